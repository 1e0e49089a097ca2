import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { KioskStatus } from '../../../shared/kiosk/calls.ts';
import type { KioskClient } from '../../../shared/kiosk/client.ts';

/** The one way the screens reach the kiosk core: the typed handler map of shared/kiosk. */
const KioskContext = createContext<KioskClient | null>(null);

export function KioskProvider({ client, children }: { client: KioskClient; children: ReactNode }) {
  return <KioskContext.Provider value={client}>{children}</KioskContext.Provider>;
}

export function useKiosk(): KioskClient {
  const client = useContext(KioskContext);
  if (!client) throw new Error('useKiosk outside KioskProvider');
  return client;
}

export interface LiveStatus {
  status: KioskStatus | null;
  /** The core itself did not answer (the host is down), as opposed to the server being offline. */
  coreError: string | null;
  refresh(): void;
}

/**
 * The kiosk's status, read from the core every `intervalMs` (a local SQLite read, no network),
 * so the status bar, the panic banner and the attention list are never more than that stale.
 */
export function useKioskStatus(intervalMs = 1000): LiveStatus {
  const kiosk = useKiosk();
  const [status, setStatus] = useState<KioskStatus | null>(null);
  const [coreError, setCoreError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const inFlight = useRef(false);

  useEffect(() => {
    let cancelled = false;
    const read = async () => {
      if (inFlight.current) return;
      inFlight.current = true;
      try {
        const next = await kiosk.call('kioskStatus', {});
        if (!cancelled) {
          setStatus(next);
          setCoreError(null);
        }
      } catch (error) {
        if (!cancelled) setCoreError((error as Error).message);
      } finally {
        inFlight.current = false;
      }
    };
    void read();
    const timer = window.setInterval(read, intervalMs);
    return () => {
      cancelled = true;
      window.clearInterval(timer);
    };
  }, [kiosk, intervalMs, tick]);

  return { status, coreError, refresh: () => setTick((value) => value + 1) };
}
