import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { FairPlaces } from './fair-queue.ts';

/**
 * The read lane (issue #45): where broad reads run (lists, searches, stats, analytics, reports),
 * so that they never take what the emergency and gate paths need. On PostgreSQL a pool of its
 * own with its own statement timeout, beside the main pool that serves the SOS, the gates and
 * every write; on SQLite worker threads with connections of their own, off the event loop
 * (sqlite-read-workers.ts). A route says it is a broad read (`lane: 'reads'`,
 * server/http/define-route.ts) and its handler's `input.db` is then this lane's database.
 */
export interface ReadLaneSettings {
  /** Broad reads running at once: the pool's connections, or the threads. */
  concurrency: number;
  /** The longest one may run. */
  timeoutMs: number;
  /** The longest one may wait for its turn. */
  queueMs: number;
  /** SQLite: how far below the event loop the read threads' CPU priority sits (Linux nice, 0-19); default 10. */
  nice?: number;
}

/**
 * A broad read stopped by its time limit. Not the database's fault and not worth retrying as it
 * is: the answer (503) says to narrow the request, and carries no Retry-After.
 */
export class ReadTooBroad extends Error {
  constructor(readonly limitMs: number) {
    super(`broad read stopped after ${limitMs} ms`);
  }
}

/** Every broad-read place was taken for longer than the queue allows: retry shortly. */
export class ReadLaneBusy extends Error {
  constructor(readonly waitedMs: number) {
    super(`no broad-read place free within ${waitedMs} ms`);
  }
}

/**
 * A page by `page` deeper than `DeepPageSettings.fromRows` (an OFFSET that walks every row before
 * it) found every deep-page place taken for `waitedMs`: retry shortly, or page by cursor.
 */
export class DeepPageBusy extends Error {
  constructor(
    readonly fromRows: number,
    readonly waitedMs: number,
  ) {
    super(`no deep-page place free within ${waitedMs} ms`);
  }
}

const codeOf = (err: unknown) => String((err as { code?: unknown } | null)?.code ?? '');

/**
 * The read pool as Kysely's dialect takes it: PostgreSQL's own cancellation by the pool's
 * `statement_timeout` (57014) becomes ReadTooBroad, and a wait for a place that ran out while
 * every connection was busy becomes ReadLaneBusy (a refused or unreachable database stays what
 * it is, a 503 "not answering"). Places are handed out in turns between organizations (FairPlaces).
 */
export function readLanePool(pool: PostgresPool, settings: ReadLaneSettings): PostgresPool & { counts(): ReadLaneCounts } {
  const translated = (err: unknown): unknown => (codeOf(err) === '57014' ? new ReadTooBroad(settings.timeoutMs) : err);
  // Handed out here rather than by the pool's own first-come queue: waiting reads take turns
  // between organizations, and the pool never has more asked of it than its connections.
  const turns = new FairPlaces(settings.concurrency, settings.queueMs, () => new ReadLaneBusy(settings.queueMs));
  return {
    async connect(): Promise<PostgresPoolClient> {
      await turns.take();
      let client: PostgresPoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        turns.give();
        throw err;
      }
      let released = false;
      return {
        query: ((sql: unknown, parameters?: readonly unknown[]) => {
          const result = (client.query as (a: unknown, b?: unknown) => unknown)(sql, parameters);
          return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(translated(err))) : result;
        }) as PostgresPoolClient['query'],
        release: () => {
          if (released) return;
          released = true;
          client.release();
          turns.give();
        },
      };
    },
    end: () => pool.end(),
    counts: () => turns.counts(),
  };
}

/** Broad reads running (each holding a place) and waiting for one, now: for the metrics and tests. */
export interface ReadLaneCounts {
  running: number;
  waiting: number;
}
