import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { MapResponder, MapSite, UncoveredPlace } from '../../../shared/schemas/staff-live.ts';
import { answerOf, type StaffClient, type StaffSchemas } from './client.ts';

/**
 * The staff channel (GET /v1/staff/live, issue #47) for every staff screen: one stream per
 * signed-in console, held here, read through `useStaffLive()` by the queue, the duty panel, the
 * live map and an incident's screen. It opens with a snapshot and then sends what changed, so
 * those screens never poll while it is up. When it drops, EventSource reconnects by itself (a
 * refusal, a 429 or 503, is tried again here, a little later each time) and the reconnection's
 * snapshot is the resume; while it is down the lists are read every few seconds instead (the
 * fallback), and the screens say "Live updates paused, reconnecting". A session that ended
 * (the fallback's reads answer 401) goes back to the sign-in.
 */

export interface StaffLiveData {
  responders: Map<string, MapResponder>;
  queue: StaffSchemas['QueueItem'][];
  alerts: StaffSchemas['StaffAlert'][];
  areas: StaffSchemas['ServiceArea'][];
  shifts: StaffSchemas['Shift'][];
  sites: MapSite[];
  uncovered: UncoveredPlace[];
  radius_km: number;
}

/** `connecting`: the first snapshot is on its way; `live`: the stream is open; `paused`: it dropped, reconnecting (the fallback reads run). */
export type ChannelState = 'connecting' | 'live' | 'paused';

export interface StaffLive {
  /** What the channel (or, while paused, the fallback) said last; null until the first answer. */
  data: StaffLiveData | null;
  state: ChannelState;
  /** Moves on every change, responders' included (their map is changed in place). */
  version: number;
  /**
   * Responders changed since the live map last drew (`all` after a snapshot), and those removed:
   * the map, their one reader, clears them as it draws.
   */
  changed: { current: Set<string> | 'all' };
  removed: { current: Set<string> };
  /** After an action: while paused, the lists are read again at once; live, the channel brings the change (within a second). */
  refresh(): Promise<void>;
}

const FALLBACK_EVERY_MS = 3_000;
const LISTS = ['queue', 'alerts', 'areas', 'shifts', 'sites', 'uncovered'] as const;
const Context = createContext<StaffLive | null>(null);

/** `onSignedOut`: the session ended (signed out elsewhere, timed out): the stream closed and the fallback's reads answer 401. */
export function StaffLiveProvider({ client, mayDispatch, onSignedOut, children }: { client: StaffClient; mayDispatch: boolean; onSignedOut: () => void; children: ReactNode }) {
  const [state, setState] = useState<ChannelState>('connecting');
  const [data, setData] = useState<StaffLiveData | null>(null);
  const [version, setVersion] = useState(0);
  const current = useRef<StaffLiveData | null>(null);
  const changed = useRef<Set<string> | 'all'>('all');
  const removed = useRef<Set<string>>(new Set());
  const stateRef = useRef<ChannelState>('connecting');
  const publish = useCallback((next: StaffLiveData) => {
    current.current = next;
    setData(next);
    setVersion((v) => v + 1);
  }, []);
  const moveTo = useCallback((next: ChannelState) => {
    stateRef.current = next;
    setState(next);
  }, []);

  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let refusals = 0;
    let stopped = false;
    const open = () => {
      source = new EventSource('/v1/staff/live');
      source.addEventListener('error', () => {
        if (stopped) return;
        moveTo('paused');
        // A refusal (429, 503, a session that ended) closes it for good: open it again here.
        if (source?.readyState === EventSource.CLOSED) {
          refusals++;
          retry = setTimeout(open, Math.min(10_000, 1_000 * 2 ** Math.min(refusals, 4)));
        }
      });
      source.addEventListener('snapshot', (event) => {
        const snapshot = JSON.parse((event as MessageEvent<string>).data) as Omit<StaffLiveData, 'responders'> & { responders: MapResponder[] };
        refusals = 0;
        changed.current = 'all';
        removed.current = new Set();
        publish({ ...snapshot, responders: new Map(snapshot.responders.map((r) => [r.responder_id, r])) });
        moveTo('live');
      });
      source.addEventListener('responders', (event) => {
        const now = current.current;
        if (!now) return;
        const message = JSON.parse((event as MessageEvent<string>).data) as { responders: MapResponder[]; removed: string[] };
        for (const r of message.responders) {
          now.responders.set(r.responder_id, r);
          if (changed.current !== 'all') changed.current.add(r.responder_id);
        }
        for (const id of message.removed) {
          now.responders.delete(id);
          removed.current.add(id);
        }
        setVersion((v) => v + 1);
      });
      for (const key of LISTS) {
        source.addEventListener(key, (event) => {
          if (!current.current) return;
          const message = JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>;
          publish({ ...current.current, [key]: message[key] });
        });
      }
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [publish, moveTo]);

  // The fallback: the lists read by hand, only while the channel is down.
  const readLists = useCallback(async () => {
    const [alerts, areas, shifts, queue] = await Promise.all([
      answerOf(client.GET('/alerts', { params: { query: {} } })),
      answerOf(client.GET('/areas')),
      answerOf(client.GET('/shifts', { params: { query: {} } })),
      mayDispatch ? answerOf(client.GET('/queue', { params: { query: {} } })) : Promise.resolve(undefined),
    ]);
    // The channel came back meanwhile: its snapshot is newer.
    if (stateRef.current === 'live') return;
    const before = current.current ?? { responders: new Map(), queue: [], alerts: [], areas: [], shifts: [], sites: [], uncovered: [], radius_km: 0 };
    // openapi-fetch reads tuples ([lng, lat]) as arrays: the document's shape is the one served.
    publish({ ...before, alerts: alerts.alerts, areas: areas.areas as unknown as StaffLiveData['areas'], shifts: shifts.shifts, ...(queue && { queue: queue.incidents }) });
  }, [client, mayDispatch, publish]);
  useEffect(() => {
    if (state !== 'paused') return;
    const read = () =>
      void readLists().catch((failure: unknown) => {
        if ((failure as { status?: number }).status === 401) onSignedOut();
      });
    read();
    const timer = setInterval(read, FALLBACK_EVERY_MS);
    return () => clearInterval(timer);
  }, [state, readLists, onSignedOut]);

  const refresh = useCallback(async () => {
    if (stateRef.current !== 'live') await readLists().catch(() => undefined);
  }, [readLists]);
  const value = useMemo<StaffLive>(() => ({ data, state, version, changed, removed, refresh }), [data, state, version, refresh]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

/** The staff channel's state, shared by every staff screen (inside StaffLiveProvider). */
export function useStaffLive(): StaffLive {
  const live = useContext(Context);
  if (!live) throw new Error('useStaffLive outside StaffLiveProvider');
  return live;
}

/** What a screen says while the channel is down: the lists still come, by hand, every few seconds. */
export function ChannelNotice() {
  const { state } = useStaffLive();
  if (state !== 'paused') return null;
  return (
    <p className="notice" role="status" data-testid="channel-paused">
      Live updates paused, reconnecting. The lists are read every few seconds meanwhile.
    </p>
  );
}
