import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ServiceArea, Shift, StaffAlert } from '../../shared/schemas/duty.ts';
import type { QueueItem } from '../../shared/schemas/staff.ts';
import type { MapResponder, MapSite, UncoveredPlace } from '../../shared/schemas/staff-live.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import { freshFix } from '../dispatch/nearest.ts';
import { areaGaps, type PlacedResponder } from '../duty/area-geometry.ts';
import { dutyByResponder, listAlerts, listAreas, listShifts } from '../duty/service.ts';
import { distanceKm } from '../geo.ts';
import { ApiError } from '../http/errors.ts';
import type { WebhookQueue } from '../webhooks/queue.ts';
import type { SessionSettings } from '../people/session.ts';
import { staffSessionStands } from '../staff/session.ts';
import type { StreamRegistry } from '../events/stream-registry.ts';
import { liveQueue } from './service.ts';
import { liveResponderFixes, placedSites } from './store.ts';

/**
 * The staff channel (issue #47), GET /v1/staff/live: what the live map and the queue screens
 * show, as server-sent events, apart from the partners' event log (which is per organization).
 *
 * One reader per host (this file) runs only while a staff stream is open on the host: every
 * `everyMs` (1 s) it reads the network's state once (responders with their last fix and duty
 * status, the live queue, open alerts, areas, shifts, sites) with a handful of statements, compares it with
 * what it read before, and hands every open stream the same encoded frames of what changed. A
 * write on any host (one PostgreSQL) is seen by every host's reader at its next read, so a
 * position or a status reaches every staff screen within about a second, and the database's cost
 * is per host, not per screen or per responder. SQLite is one host and reads the same way.
 *
 * A stream opens with a `snapshot` of everything, then sends changes; after a drop the console
 * opens a new stream and gets a new snapshot (no Last-Event-ID: the snapshot is the resume).
 */




export interface LiveState {
  responders: Map<string, MapResponder>;
  queue: QueueItem[];
  alerts: StaffAlert[];
  areas: ServiceArea[];
  /** Every planned shift, each with `on_now` (the duty panel's list). */
  shifts: Shift[];
  sites: MapSite[];
  uncovered: UncoveredPlace[];
  /** Reach: the dispatch radius, km. */
  radius_km: number;
  at: string;
}

export interface LiveSubscriber {
  send(frame: Buffer): void;
  close(reason: string): void;
}

export interface StaffLive {
  /** Adds a subscriber and answers its snapshot frame (reading the state first if the reader was idle). */
  subscribe(subscriber: LiveSubscriber): Promise<Buffer>;
  unsubscribe(subscriber: LiveSubscriber): void;
  readonly subscribers: number;
  /** Reads now (a write on this host that staff should see at once). */
  poke(): void;
  /** Reads the host has made since it started (the bench and tests look). */
  readonly reads: number;
  stop(): Promise<void>;
}

export interface StaffLiveOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  webhookQueue: WebhookQueue;
  dispatchWindowS: number;
  escalationWindowS: number;
  fixMaxAgeS: number;
  radiusKm: number;
  /** SHIFT_TIME_ZONE: which shifts are on now. */
  timeZone: string;
  everyMs?: number;
  heartbeatMs?: number;
}

export const staffLiveOptions = (deps: { db: Db; clock: Clock; logger: Logger; webhookQueue: WebhookQueue; config: Config }, _engine?: string): StaffLiveOptions => ({
  db: deps.db,
  clock: deps.clock,
  logger: deps.logger,
  webhookQueue: deps.webhookQueue,
  dispatchWindowS: deps.config.DISPATCH_WINDOW_S,
  escalationWindowS: deps.config.ESCALATION_WINDOW_S,
  fixMaxAgeS: deps.config.DISPATCH_FIX_MAX_AGE_S,
  radiusKm: deps.config.DISPATCH_RADIUS_KM,
  timeZone: deps.config.SHIFT_TIME_ZONE,
});

const SITE_LIMIT = 5_000;
/** The lists sent whole again when they change. */
const LISTS = ['queue', 'alerts', 'areas', 'shifts', 'sites', 'uncovered'] as const;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');


/** The network's state now: one read each of responders, open offers, incidents in hand, queue, alerts, areas, shifts and sites. */
export async function readLiveState(options: StaffLiveOptions): Promise<LiveState> {
  const { db } = options;
  const ops = { db, clock: options.clock, webhookQueue: options.webhookQueue, dispatchWindowS: options.dispatchWindowS, escalationWindowS: options.escalationWindowS, fixMaxAgeS: options.fixMaxAgeS };
  const [rows, duties, queue, alerts, areas, shifts, sites] = await Promise.all([
    liveResponderFixes(db),
    dutyByResponder(db),
    liveQueue(ops, { drills: false }),
    listAlerts(db, 'open'),
    listAreas(db),
    listShifts({ db, clock: options.clock, settings: { timeZone: options.timeZone } }),
    placedSites(db, SITE_LIMIT),
  ]);
  const responders = new Map<string, MapResponder>();
  for (const row of rows) {
    // Verified and active in both reads (a responder changed between them is on the next read).
    const duty = duties.get(row.responder_id);
    if (!duty) continue;
    responders.set(row.responder_id, {
      responder_id: row.responder_id,
      name: row.name,
      ...duty,
      latitude: row.latitude === null ? null : Number(row.latitude),
      longitude: row.longitude === null ? null : Number(row.longitude),
      location_at: row.location_at,
    });
  }
  const mapSites = sites.map((site) => ({ ...site, latitude: Number(site.latitude), longitude: Number(site.longitude) }));
  const nowMs = options.clock.now().getTime();
  const reachable = [...responders.values()].filter((r) => r.duty_status === 'available' && r.latitude !== null && r.longitude !== null && freshFix(r.location_at, nowMs, options.fixMaxAgeS));
  const nearest = (point: { latitude: number; longitude: number }) => {
    let best: number | null = null;
    for (const r of reachable) {
      const km = distanceKm(point, { latitude: r.latitude!, longitude: r.longitude! });
      if (best === null || km < best) best = km;
    }
    return best === null ? null : Math.round(best * 100) / 100;
  };
  const uncovered: UncoveredPlace[] = [];
  const consider = (kind: UncoveredPlace['kind'], id: string, name: string, point: { latitude: number; longitude: number }) => {
    const km = nearest(point);
    if (km === null || km > options.radiusKm) uncovered.push({ kind, id, name, latitude: point.latitude, longitude: point.longitude, nearest_km: km, note: null });
  };
  for (const site of mapSites) consider('site', site.site_id, site.name, site);
  for (const item of queue) if (['dispatching', 'escalated', 'unresponsive'].includes(item.status)) consider('incident', item.incident_id, item.title ?? item.category, item.location);
  // Areas with a shift now and nobody available inside them (server/duty/area-geometry.ts).
  const reachableIds = new Set(reachable.map((r) => r.responder_id));
  const placed = new Map<string, PlacedResponder>([...responders].map(([id, r]) => [id, { ...r, reachable: reachableIds.has(id) }]));
  for (const gap of areaGaps(areas, shifts.filter((shift) => shift.on_now), placed)) {
    uncovered.push({ kind: 'area', id: gap.area_id, name: gap.name, latitude: gap.centre.latitude, longitude: gap.centre.longitude, nearest_km: gap.nearest_km, note: gap.note });
  }
  return { responders, queue, alerts, areas, shifts, sites: mapSites, uncovered, radius_km: options.radiusKm, at: new Date(nowMs).toISOString() };
}

const sameResponder = (a: MapResponder, b: MapResponder) =>
  a.duty_status === b.duty_status &&
  a.status_since === b.status_since &&
  a.latitude === b.latitude &&
  a.longitude === b.longitude &&
  a.location_at === b.location_at &&
  a.name === b.name &&
  a.out_of_service_reason === b.out_of_service_reason;

export function createStaffLive(options: StaffLiveOptions): StaffLive {
  const everyMs = options.everyMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const subscribers = new Set<LiveSubscriber>();
  let state: LiveState | undefined;
  let texts = { queue: '', alerts: '', areas: '', shifts: '', sites: '', uncovered: '' };
  let seq = 0;
  let reads = 0;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  /** Each read's frames go out in order, one read at a time. */
  const frame = (event: string, data: unknown) => Buffer.from(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

  function broadcast(frames: Buffer[]) {
    if (!frames.length) return;
    const joined = Buffer.concat(frames);
    for (const subscriber of [...subscribers]) subscriber.send(joined);
  }

  function read(): Promise<void> {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        const next = await readLiveState(options);
        reads++;
        const frames: Buffer[] = [];
        if (state) {
          const changed: MapResponder[] = [];
          for (const [id, responder] of next.responders) {
            const before = state.responders.get(id);
            if (!before || !sameResponder(before, responder)) changed.push(responder);
          }
          const gone = [...state.responders.keys()].filter((id) => !next.responders.has(id));
          if (changed.length || gone.length) frames.push(frame('responders', { responders: changed, removed: gone, at: next.at }));
          for (const key of LISTS) {
            const text = JSON.stringify(next[key]);
            if (text !== texts[key]) frames.push(frame(key, { [key]: next[key], at: next.at }));
          }
        }
        texts = { queue: JSON.stringify(next.queue), alerts: JSON.stringify(next.alerts), areas: JSON.stringify(next.areas), shifts: JSON.stringify(next.shifts), sites: JSON.stringify(next.sites), uncovered: JSON.stringify(next.uncovered) };
        state = next;
        broadcast(frames);
      } while (readAgain && subscribers.size);
    })()
      .catch((err: unknown) => options.logger.warn({ err }, 'staff channel read failed; the next read tries again'))
      .finally(() => (reading = undefined));
    return reading;
  }

  function schedule() {
    clearTimeout(timer);
    if (!subscribers.size) return;
    timer = setTimeout(() => void read().finally(schedule), everyMs);
    timer.unref();
  }

  function halt() {
    clearTimeout(timer);
    clearInterval(heartbeat);
    timer = undefined;
    heartbeat = undefined;
    // Idle: the next subscriber reads afresh rather than diff against an old state.
    state = undefined;
  }

  const snapshotOf = (s: LiveState) =>
    frame('snapshot', {
      responders: [...s.responders.values()],
      queue: s.queue,
      alerts: s.alerts,
      areas: s.areas,
      shifts: s.shifts,
      sites: s.sites,
      uncovered: s.uncovered,
      radius_km: s.radius_km,
      at: s.at,
    });

  return {
    async subscribe(subscriber) {
      const first = subscribers.size === 0;
      subscribers.add(subscriber);
      if (first || !state) {
        await read();
        if (!state) {
          subscribers.delete(subscriber);
          if (!subscribers.size) halt();
          throw new ApiError(503, 'The live map cannot read the network just now: try again in a moment', { 'Retry-After': '1' });
        }
      }
      if (!subscribers.has(subscriber)) throw new ApiError(503, 'The live channel closed while opening');
      if (first) {
        schedule();
        heartbeat = setInterval(() => {
          for (const s of [...subscribers]) s.send(HEARTBEAT);
        }, heartbeatMs);
        heartbeat.unref();
      }
      return snapshotOf(state);
    },
    unsubscribe(subscriber) {
      if (subscribers.delete(subscriber) && !subscribers.size) halt();
    },
    get subscribers() {
      return subscribers.size;
    },
    poke() {
      if (subscribers.size) void read();
    },
    get reads() {
      return reads;
    },
    async stop() {
      for (const subscriber of [...subscribers]) subscriber.close('the server is stopping');
      subscribers.clear();
      halt();
      await reading;
    },
  };
}

/** Bytes waiting for a slow screen before its stream is closed (it reconnects and gets a snapshot). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** GET /v1/staff/live: the snapshot, then every change, until the session ends, the screen goes, or the server stops. */
export async function openStaffLive(live: StaffLive, deps: { db: Db; clock: Clock; settings: SessionSettings; streams: StreamRegistry }, req: Request, res: Response): Promise<void> {
  const sessionId = req.staffSession!.session.session_id;
  const token = req.staffSession!.token;
  let closed = false;
  let opened = false;
  // The host's ceilings on open streams (STREAM_MAX_PER_KEY per person, STREAM_MAX_PER_HOST), and
  // the check every second that the session still stands (without counting as activity: an
  // unattended console still times out): signed out, expired or idle, the stream closes.
  const leave = deps.streams.admit({
    caller: `staff:${req.staffSession!.staff.staff_id}`,
    async recheck() {
      if (closed) return;
      try {
        if (!(await staffSessionStands(deps, token, sessionId))) close('the staff session ended');
      } catch {
        // A busy database is not a refusal: the next recheck asks again.
      }
    },
  });
  const close = (reason?: string) => {
    if (closed) return;
    closed = true;
    leave();
    live.unsubscribe(subscriber);
    if (reason && opened && !res.writableEnded) res.write(`: closing: ${reason}\n\n`);
    res.end();
  };
  const subscriber: LiveSubscriber = {
    send(bytes) {
      if (closed || !opened) return;
      res.write(bytes);
      if (res.writableLength > MAX_BUFFERED_BYTES) close('too far behind: reconnect for a new snapshot');
    },
    close,
  };
  req.on('close', () => close());
  let snapshot: Buffer;
  try {
    snapshot = await live.subscribe(subscriber);
  } catch (err) {
    closed = true;
    leave();
    throw err;
  }
  if (closed) {
    live.unsubscribe(subscriber);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'close' });
  req.socket.setNoDelay(true);
  opened = true;
  res.write(': open\nretry: 1000\n\n');
  res.write(snapshot);
}
