import pg from 'pg';
import type { Logger } from 'pino';
import { createIndexSql, LIST_INDEXES, type ListIndex } from './migrations/0036-reads-at-scale.ts';
import { ACCESS_LOGS_BY_CODE } from './migrations/0055-already-inside.ts';

/** What `/health` says of the upgrade's index builds. */
export interface IndexBuildState {
  /** `complete`: every index is there and valid; `building`: this host or another is building; `waiting`: another host holds the builder's lock; `failed`: the last build failed (it is tried again at the next start). */
  state: 'complete' | 'building' | 'waiting' | 'failed';
  /** Indexes not yet there (or not yet valid). */
  pending: number;
  /** The one being built by this host, if any. */
  building: string | null;
}

export interface IndexBuilder {
  state(): IndexBuildState;
  /** Resolves once this host knows which indexes are missing (one catalog query): until then `state()` cannot say. */
  checked: Promise<void>;
  /** Resolves when this host's builds have ended (done, failed, or left to another host). */
  settled: Promise<void>;
  stop(): Promise<void>;
}

/** The builder's session lock (5318 is Tsaro's advisory-lock space; 50: index builds). */
const BUILD_LOCK = 'select pg_try_advisory_lock(5318, 50) as locked';

/** Every index this version builds online on a big table, from each migration that declares some (0036's list, which 0063's text indexes are in; 0055's). */
export const ONLINE_INDEXES: readonly ListIndex[] = [...LIST_INDEXES, ACCESS_LOGS_BY_CODE];

/**
 * PostgreSQL: builds the indexes the migrations declared (`ONLINE_INDEXES`) after the hosts
 * serve, `CREATE INDEX CONCURRENTLY`, so an upgrade of a database with millions of rows never
 * stops a host (every host waits for the migration lock at start; an index build of minutes
 * there would have stopped them all). One host builds, holding a session advisory lock on a
 * connection of its own with no statement timeout; the others report `waiting` and leave it.
 * A build interrupted (a host stopped, a connection lost) leaves an INVALID index, which the
 * next builder drops and builds again. Until an index exists, the queries it serves run without
 * it (slower, never wrong).
 */
export function startIndexBuilds(url: string, logger: Logger, indexes: readonly ListIndex[] = ONLINE_INDEXES): IndexBuilder {
  let current: IndexBuildState = { state: 'building', pending: indexes.length, building: null };
  let client: pg.Client | undefined;
  let stopped = false;
  let markChecked!: () => void;
  const checked = new Promise<void>((resolve) => (markChecked = resolve));
  const settled = (async () => {
    client = new pg.Client({ connectionString: url, application_name: 'tsaro-index-builder' });
    client.on('error', (err) => logger.warn({ err }, 'index builder connection lost; builds resume at the next start'));
    try {
      await client.connect();
      await client.query('set statement_timeout = 0');
      const missing = await missingIndexes(client, indexes);
      current = { state: missing.length ? 'building' : 'complete', pending: missing.length, building: null };
      markChecked();
      if (missing.length === 0) return;
      const { rows } = await client.query<{ locked: boolean }>(BUILD_LOCK);
      if (!rows[0]!.locked) {
        current = { ...current, state: 'waiting' };
        return;
      }
      for (const index of missing) {
        if (stopped) return;
        current = { ...current, building: index.name };
        const started = Date.now();
        // An INVALID index from an interrupted build: dropped first, or IF NOT EXISTS would keep it.
        await client.query(`drop index concurrently if exists ${index.name}`);
        await client.query(createIndexSql(index, true, true));
        current = { ...current, pending: current.pending - 1, building: null };
        logger.info({ index: index.name, ms: Date.now() - started }, 'built a list index online');
      }
      current = { state: 'complete', pending: 0, building: null };
    } catch (err) {
      if (!stopped) {
        current = { ...current, state: 'failed', building: null };
        logger.warn({ err }, 'an online index build failed; it is tried again at the next start, and the queries it serves run without it meanwhile');
      }
    } finally {
      markChecked();
      await client?.end().catch(() => undefined);
      client = undefined;
    }
  })();
  return {
    state: () => current,
    checked,
    settled,
    async stop() {
      stopped = true;
      // Ends a build in progress: PostgreSQL cancels it and leaves an INVALID index for the next start.
      await client?.end().catch(() => undefined);
      await settled;
    },
  };
}

/** The indexes that are absent or invalid. */
async function missingIndexes(client: pg.Client, indexes: readonly ListIndex[]): Promise<ListIndex[]> {
  const { rows } = await client.query<{ name: string; valid: boolean }>(
    `select c.relname as name, i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relname = any($1)`,
    [indexes.map((index) => index.name)],
  );
  const valid = new Set(rows.filter((row) => row.valid).map((row) => row.name));
  return indexes.filter((index) => !valid.has(index.name));
}

/** SQLite builds its indexes in the migration: nothing waits after start. */
export const NO_INDEX_BUILDS: IndexBuilder = {
  state: () => ({ state: 'complete', pending: 0, building: null }),
  checked: Promise.resolve(),
  settled: Promise.resolve(),
  stop: async () => undefined,
};
