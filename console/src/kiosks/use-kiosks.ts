import { useEffect, useState } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { useConsole } from '../context.tsx';
import { useLiveEvents } from '../live/hooks.ts';
import { useSiteScope } from '../sites/site-scope.tsx';

export type Kiosk = Schemas['Kiosk'];

/** Heartbeats raise no event (one every 30 s per gate); "last seen" is read again this often. */
const REFRESH_MS = 15_000;

/** Every kiosk of the environment and the site chosen, read again on each `kiosk.*` event and every 15 s. */
export function useKiosks(): { kiosks: Kiosk[] | null; error: string | null; reload: () => void } {
  const { client, environment } = useConsole();
  const { siteId } = useSiteScope();
  const [kiosks, setKiosks] = useState<Kiosk[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    client.get('/kiosks', { params: { query: { limit: 100, site_id: siteId } } }).then(
      (page) => current && (setKiosks(page.results), setError(null)),
      (failure: unknown) => current && setError(describeError(failure)),
    );
    const timer = setTimeout(() => setRound((n) => n + 1), REFRESH_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, environment, round, siteId]);
  useLiveEvents(
    (event) => event.type.startsWith('kiosk.') && setRound((n) => n + 1),
    () => setRound((n) => n + 1),
  );
  return { kiosks, error, reload: () => setRound((n) => n + 1) };
}

export const kioskLabel = (kiosk: Kiosk): string => kiosk.name ?? kiosk.entry_point;
