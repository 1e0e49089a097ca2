import pg from 'pg';
import type { Logger } from 'pino';
import type { Engine } from '../db/database.ts';
import type { Db, EventRow } from '../db/schema.ts';
import { eventsAfter, latestFeedSeq, sequenceCommittedEvents } from './store.ts';

/** What the feed hands events to: one open stream (events/stream.ts). */
export interface FeedSubscriber {
  /** `organization_id\nenvironment`: the feed hands a subscriber only its tenant's events. */
  readonly tenantKey: string;
  /** Events of the subscriber's tenant, in feed order, each with its frame made once for every stream. */
  deliver(rows: readonly FeedEvent[]): void;
  /** Every heartbeat interval: the comment line, and the check that the caller may still read. */
  heartbeat(): void;
  /** The server is stopping. */
  close(reason: string): void;
}

/** An event as the feed read it, and its server-sent-events frame (encoded once, for every stream that gets it). */
export interface FeedEvent {
  row: EventRow;
  seq: number;
  frame(): Buffer;
}

export interface EventFeedOptions {
  db: Db;
  engine: Engine;
  /** PostgreSQL: the feed LISTENs on its own connection. */
  databaseUrl: string;
  logger: Logger;
  /** Comment lines on every open stream this often (default 15 s); tests shorten it. */
  heartbeatMs?: number;
  /** PostgreSQL: how often the sequencer numbers what was committed (default 100 ms). */
  sequenceMs?: number;
  /** How often the reader looks without being woken: SQLite always, PostgreSQL while its listener is down (default 100 ms). */
  pollMs?: number;
  /** PostgreSQL, listener up: a read this often anyway (default 1 s). */
  safetyPollMs?: number;
  /** Renders an event's frame (events/stream.ts). */
  frameOf(row: EventRow): string;
}

export interface EventFeed {
  /** Where the feed has read up to; every event numbered after it reaches the subscribers. */
  readonly cursor: number;
  readonly subscribers: number;
  readonly heartbeatMs: number;
  /** Adds a subscriber (starting the reader if it was idle) and answers the position from which it will be handed events. */
  subscribe(subscriber: FeedSubscriber): Promise<number>;
  unsubscribe(subscriber: FeedSubscriber): void;
  /** PostgreSQL: numbers what is committed now (a resume whose Last-Event-ID has no number yet); SQLite: nothing to do. */
  sequenceNow(): Promise<void>;
  /** Closes every stream and stops reading: the server is stopping. */
  stop(): Promise<void>;
}

const PAGE = 1000;

/**
 * The host's one reader of the event log (docs/architecture.md, "The event stream"): it runs only
 * while this host has a stream open, reads every tenant's newly numbered events with one query
 * per wake, and hands each tenant's to that tenant's streams in memory. No stream queries the
 * database on its own except to catch up when it resumes.
 *
 * - SQLite: events are numbered as they are inserted (migration 0020), so the reader polls
 *   (one indexed read on the query-only connection every 100 ms while streams are open).
 * - PostgreSQL: a sequencer numbers committed events every 100 ms (any host's sequencer numbers
 *   every host's events, one at a time under an advisory lock) and NOTIFYs `tsaro_events`; the
 *   reader LISTENs on its own connection and reads when woken, polling only while that
 *   connection is down, plus once a second as a safety net.
 */
export function createEventFeed(options: EventFeedOptions): EventFeed {
  const { db, engine, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const sequenceMs = options.sequenceMs ?? 100;
  const pollMs = options.pollMs ?? 100;
  const safetyPollMs = options.safetyPollMs ?? 1_000;
  const byTenant = new Map<string, Set<FeedSubscriber>>();
  let count = 0;
  let cursor = 0;
  let starting: Promise<void> | undefined;
  let running = false;
  let timers: NodeJS.Timeout[] = [];
  let pollTimer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;
  let listening = false;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let sequencing: Promise<void> | undefined;

  /** Reads everything numbered after the cursor, page by page, and hands it out. One read at a time; a wake meanwhile reads again after. */
  function read(): Promise<void> {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        let rows: EventRow[];
        do {
          rows = await eventsAfter(db, cursor, PAGE);
          if (!running) return;
          if (rows.length) fanOut(rows);
        } while (rows.length === PAGE);
      } while (readAgain && running);
    })()
      .catch((err: unknown) => logger.warn({ err }, 'event feed read failed; the next wake or poll reads again'))
      .finally(() => (reading = undefined));
    return reading;
  }

  function fanOut(rows: readonly EventRow[]): void {
    const perTenant = new Map<string, FeedEvent[]>();
    for (const row of rows) {
      const seq = Number(row.feed_seq);
      cursor = Math.max(cursor, seq);
      const key = tenantKeyOf(row.organization_id, row.environment);
      if (!byTenant.has(key)) continue;
      let frame: Buffer | undefined;
      const list = perTenant.get(key) ?? [];
      // Made and encoded once: a thousand streams of the tenant write the same bytes.
      list.push({ row, seq, frame: () => (frame ??= Buffer.from(options.frameOf(row))) });
      perTenant.set(key, list);
    }
    for (const [key, events] of perTenant) {
      for (const subscriber of byTenant.get(key) ?? []) subscriber.deliver(events);
    }
  }

  function sequence(): Promise<void> {
    sequencing ??= (async () => {
      let numbered: number;
      do numbered = await sequenceCommittedEvents(db);
      while (numbered === 10_000 && running);
      // Our own numbering: read at once rather than wait for the NOTIFY to come back.
      if (numbered > 0) void read();
    })()
      .catch((err: unknown) => logger.warn({ err }, 'event sequencer failed; it runs again shortly'))
      .finally(() => (sequencing = undefined));
    return sequencing;
  }

  /** Each start's poll chain is its own: a chain from before a stop never runs beside the next start's. */
  let generation = 0;
  function schedulePoll(chain = generation): void {
    if (!running || chain !== generation) return;
    const wait = engine === 'postgres' && listening ? safetyPollMs : pollMs;
    pollTimer = setTimeout(() => {
      void read().finally(() => schedulePoll(chain));
    }, wait);
    pollTimer.unref();
  }

  async function listen(): Promise<void> {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'tsaro-event-feed', keepAlive: true, connectionTimeoutMillis: 10_000 });
    listener = client;
    const down = (err?: unknown) => {
      if (listener !== client) return;
      if (listening) logger.warn({ err }, 'event feed listener lost; polling until it is back');
      listening = false;
      listener = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      if (!running) return;
      reconnectTimer = setTimeout(() => void listen(), 500);
      reconnectTimer.unref();
    };
    client.on('error', down);
    client.on('end', () => down());
    client.on('notification', () => void read());
    try {
      await client.connect();
      await client.query('LISTEN tsaro_events');
    } catch (err) {
      down(err);
      return;
    }
    if (listener !== client || !running) {
      await client.end().catch(() => undefined);
      return;
    }
    listening = true;
    // Whatever was numbered while nobody listened.
    void read();
  }

  async function start(): Promise<void> {
    running = true;
    try {
      await begin();
    } catch (err) {
      await halt();
      throw err;
    }
  }

  async function begin(): Promise<void> {
    if (engine === 'postgres') {
      // Number what was committed before this start first, so "now" is after it.
      await sequence();
      void listen();
      const sequencer = setInterval(() => void sequence(), sequenceMs);
      sequencer.unref();
      timers.push(sequencer);
    }
    cursor = Math.max(cursor, await latestFeedSeq(db));
    const heartbeats = setInterval(() => {
      for (const subscribers of byTenant.values()) for (const subscriber of subscribers) subscriber.heartbeat();
    }, heartbeatMs);
    heartbeats.unref();
    timers.push(heartbeats);
    schedulePoll();
  }

  async function halt(): Promise<void> {
    running = false;
    generation++;
    for (const timer of timers) clearInterval(timer);
    timers = [];
    clearTimeout(pollTimer);
    clearTimeout(reconnectTimer);
    const client = listener;
    listener = undefined;
    listening = false;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    await Promise.allSettled([client?.end(), reading, sequencing]);
  }

  return {
    get cursor() {
      return cursor;
    },
    get subscribers() {
      return count;
    },
    heartbeatMs,
    async subscribe(subscriber) {
      if (!running) {
        starting ??= start().finally(() => (starting = undefined));
      }
      await starting;
      const set = byTenant.get(subscriber.tenantKey) ?? new Set();
      if (!set.has(subscriber)) count++;
      set.add(subscriber);
      byTenant.set(subscriber.tenantKey, set);
      return cursor;
    },
    unsubscribe(subscriber) {
      const set = byTenant.get(subscriber.tenantKey);
      if (!set?.delete(subscriber)) return;
      count--;
      if (set.size === 0) byTenant.delete(subscriber.tenantKey);
      // The last stream gone: nothing to read for, nothing to number for (a later start numbers the backlog).
      if (count === 0 && running && !starting) void halt();
    },
    async sequenceNow() {
      if (engine === 'postgres') {
        await sequencing;
        await sequence();
      }
    },
    async stop() {
      for (const subscribers of [...byTenant.values()]) for (const subscriber of [...subscribers]) subscriber.close('the server is stopping');
      byTenant.clear();
      count = 0;
      await starting?.catch(() => undefined);
      await halt();
    },
  };
}

export const tenantKeyOf = (organizationId: string, environment: string) => `${organizationId}\n${environment}`;
