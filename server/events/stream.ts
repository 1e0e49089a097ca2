import type { Request, Response } from 'express';
import { EVENT_STREAM_SCOPES, mayReadEventType } from '../../shared/schemas/event-scopes.ts';
import { coversType } from '../../shared/schemas/webhooks.ts';
import { HOUR_MS } from '../../shared/time.ts';
import type { AuthContext } from '../auth/context.ts';
import type { Clock } from '../clock.ts';
import type { Executor, EventRow, Tenant } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { reachesSite } from '../db/tenant.ts';
import { tenantKeyOf, type EventFeed, type FeedEvent, type FeedSubscriber } from './feed.ts';
import type { StreamRegistry } from './stream-registry.ts';
import { requireEventReadScopes, rowToEvent } from './service.ts';
import { feedPositionOf, tenantEventsAfter } from './store.ts';

/** How far back a stream resumes (CONTRACT.md): older, the caller reads GET /events. */
export const RESUME_WINDOW_MS = 72 * HOUR_MS;
/** Bytes a stream may have waiting for a slow reader; more, and it is closed (the client resumes by Last-Event-ID). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Events a resuming stream keeps from the live feed while it catches up from the database. */
const MAX_HELD_EVENTS = 5_000;
const CATCH_UP_PAGE = 500;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');
/** An event's id: `evt_` and a ULID. */
const EVENT_ID = /^evt_[0-9A-Za-z]{26}$/;

/** `id:`, `event:` and one `data:` line (JSON.stringify escapes every line break), then the blank line. */
export function eventFrame(row: EventRow): string {
  return `id: ${row.event_id}\nevent: ${row.type}\ndata: ${JSON.stringify(rowToEvent(row))}\n\n`;
}

export interface StreamRequest {
  /** Last-Event-ID (the header, or `last_event_id` for EventSource polyfills that cannot set it). */
  lastEventId?: string;
  /** Types or wildcards (`incident.*`): only these, as GET /events' `type` filter. */
  types?: readonly string[];
  includeTest?: boolean;
}

export interface StreamDeps {
  db: Executor;
  clock: Clock;
  feed: EventFeed;
  /** The host's ceilings and the recheck of every open stream. */
  streams: StreamRegistry;
}

/**
 * GET /events/stream: server-sent events of every event the caller's scopes may read, oldest
 * first, from now or after Last-Event-ID. The feed (events/feed.ts) hands the stream its tenant's
 * events; a resume first reads what it missed from the database, holding the live events that
 * arrive meanwhile, and never sends an event twice (each is sent once, by its feed position).
 */
export async function openEventStream(deps: StreamDeps, req: Request, res: Response, auth: AuthContext, request: StreamRequest): Promise<void> {
  const tenant: Tenant = { organizationId: auth.organization.organization_id, environment: auth.environment, sites: auth.sites };
  // Never echoed unless it has an event id's shape: a header of any length or content is not repeated back.
  if (request.lastEventId && !EVENT_ID.test(request.lastEventId)) {
    throw new ApiError(400, 'Last-Event-ID is not an event id (evt_ and 26 letters and digits): open the stream without it, and read what you missed from GET /events');
  }
  if (request.types?.length) requireEventReadScopes(auth.scopes, request.types);
  let scopes: ReadonlySet<string> = auth.scopes;
  let sites = auth.sites;
  let position = 0;
  /** Live events held until the answer's head is written and, on a resume, the catch-up is done; undefined once live. */
  let held: FeedEvent[] | undefined = [];
  let heldOverflow = false;
  let closed = false;

  // Decided once per type (a handful), not per event: a host hands every event of a tenant to each of its streams.
  const decisions = new Map<string, boolean>();
  const wanted = (row: EventRow) => {
    if (row.test && !request.includeTest) return false;
    if (!reachesSite(sites, row.site_id, 'organization')) return false;
    let yes = decisions.get(row.type);
    if (yes === undefined) {
      yes = mayReadEventType(scopes, row.type) && (!request.types?.length || request.types.some((pattern) => coversType(pattern, row.type)));
      decisions.set(row.type, yes);
    }
    return yes;
  };

  // The key, or the person, asks again every second whether it may still read (the registry's
  // timer): revoked, expired, removed, signed out or suspended, the stream closes.
  const leave = deps.streams.admit({
    caller: `${auth.actor.type}:${auth.actor.id}`,
    async recheck() {
      if (closed || !auth.recheck) return;
      try {
        const now = await auth.recheck();
        if (!EVENT_STREAM_SCOPES.some((scope) => now.scopes.has(scope))) return close('no read scope any more');
        if (now.scopes.size !== scopes.size || [...now.scopes].some((scope) => !scopes.has(scope))) {
          scopes = now.scopes;
          decisions.clear();
        }
        sites = now.sites;
      } catch (err) {
        // Refused (revoked, removed, signed out, suspended): closed. Anything else (a busy or
        // restarting database) is not a refusal: the stream stays, and the next second asks again.
        if (err instanceof ApiError && err.status >= 400 && err.status < 500) close(err.message);
      }
    },
  });

  const close = (reason?: string) => {
    if (closed) return;
    closed = true;
    leave();
    deps.feed.unsubscribe(subscriber);
    if (reason && !res.writableEnded && res.headersSent) res.write(`: closing: ${reason}\n\n`);
    res.end();
  };

  const write = (text: string | Buffer) => {
    if (closed) return;
    res.write(text);
    // A reader that does not keep up: close rather than hold its backlog (it resumes by Last-Event-ID).
    if (res.writableLength > MAX_BUFFERED_BYTES) close();
  };

  const send = (event: { row: EventRow; seq: number; frame(): string | Buffer }) => {
    if (event.seq <= position) return;
    position = event.seq;
    if (wanted(event.row)) write(event.frame());
  };

  const subscriber: FeedSubscriber = {
    tenantKey: tenantKeyOf(tenant.organizationId, tenant.environment),
    deliver(events) {
      if (closed) return;
      if (held) {
        if (held.length + events.length > MAX_HELD_EVENTS) {
          held = [];
          heldOverflow = true;
        } else held.push(...events);
        return;
      }
      for (const event of events) send(event);
    },
    heartbeat() {
      write(HEARTBEAT);
    },
    close,
  };

  req.on('close', () => close());
  const from = await deps.feed.subscribe(subscriber);
  // Gone while the feed started: close() ran before the subscription existed.
  if (closed) {
    deps.feed.unsubscribe(subscriber);
    return;
  }
  try {
    position = request.lastEventId ? await resumePosition(deps, tenant, request.lastEventId) : from;
  } catch (err) {
    deps.feed.unsubscribe(subscriber);
    leave();
    closed = true;
    throw err;
  }
  if (closed) {
    deps.feed.unsubscribe(subscriber);
    return;
  }

  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    // Nothing follows a stream on its connection: closed with it, so a stopping server is not left waiting on it.
    Connection: 'close',
  });
  req.socket.setNoDelay(true);
  res.write(': open\nretry: 1000\n\n');

  // A resume catches up from the database first (again, if the live events held meanwhile
  // overflowed); then the held live events, each sent only if it is past what was sent; then live.
  do {
    heldOverflow = false;
    if (!request.lastEventId) break;
    let page: EventRow[];
    do {
      page = await tenantEventsAfter(deps.db, tenant, position, CATCH_UP_PAGE);
      for (const row of page) send({ row, seq: Number(row.feed_seq), frame: () => eventFrame(row) });
    } while (page.length === CATCH_UP_PAGE && !closed);
  } while (heldOverflow && !closed);
  const caughtUp = held ?? [];
  held = undefined;
  for (const event of caughtUp) send(event);
}

/** The feed position after Last-Event-ID: 400 for an id this tenant never had, 410 for one older than 72 hours. */
async function resumePosition(deps: StreamDeps, tenant: Tenant, lastEventId: string): Promise<number> {
  let found = await feedPositionOf(deps.db, tenant, lastEventId);
  if (!found) throw new ApiError(400, `Last-Event-ID ${lastEventId} is not an event of this organization and environment: open the stream without it, and read what you missed from GET /events`);
  if (Date.parse(found.created_at) < deps.clock.now().getTime() - RESUME_WINDOW_MS) {
    throw new ApiError(410, `Last-Event-ID ${lastEventId} is older than 72 hours: open the stream without it, and read what you missed from GET /events`);
  }
  if (found.feed_seq === null || found.feed_seq === undefined) {
    // Committed (the caller saw it) but not numbered yet (PostgreSQL): number it now.
    await deps.feed.sequenceNow();
    found = await feedPositionOf(deps.db, tenant, lastEventId);
  }
  if (found?.feed_seq === null || found?.feed_seq === undefined) throw new ApiError(503, 'The event stream is catching up: try again in a moment', { 'Retry-After': '1' });
  return Number(found.feed_seq);
}
