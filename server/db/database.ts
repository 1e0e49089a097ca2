import { closeSync, fdatasync, openSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, sql, type LogEvent, PostgresDialect, type Migration } from 'kysely';
import { isPostgresUrl } from '../config.ts';
import { allowDirectReads } from './direct-read.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { serverMigrations, withoutSealingKey } from './migrations/index.ts';
import { createPostgresPool, type PoolCounts } from './postgres-pool.ts';
import { readLanePool, type ReadLaneCounts, type ReadLaneSettings } from './read-lane.ts';
import { ReadWorkersDialect, SqliteReadWorkers } from './sqlite-read-workers.ts';
import type { Database, Db } from './schema.ts';
import { ownerOnlyDatabaseFiles } from '../../shared/node/owner-only-files.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { addSqliteFunctions } from './sqlite-functions.ts';
import { GROUP_COMMIT_DEFAULTS, GroupCommitSqliteDialect, GroupCommitter, type GroupCommitOptions, type WalSync } from './sqlite-group-commit.ts';

export type Engine = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  /**
   * The read lane (read-lane.ts): where broad reads run, never on what the SOS and the gates
   * use. PostgreSQL: a pool of its own; SQLite: worker threads (an in-memory database has only
   * the one connection, so there it is `db`).
   */
  readDb: Db;
  engine: Engine;
  /** A short, password-free description for logs: `sqlite:./data/tsaro.db` or `postgres://host:5432/db`. */
  describe: string;
  /** PostgreSQL only: the pool's connection counts, which the metrics read. */
  poolCounts?: () => PoolCounts;
  /** The read lane's broad reads running and waiting (absent for an in-memory SQLite database, which has no lane of its own). */
  readLaneCounts?: () => ReadLaneCounts;
  /**
   * SQLite only: stops starting broad reads until the function it resolves to is called (reads
   * asked meanwhile wait their turn); resolves once none runs. The WAL keeper's pause, for tests.
   */
  quiesceReads?: () => Promise<() => void>;
  /** SQLite only: the group committer (its commit counts, for tests and benchmarks). */
  groupCommit?: GroupCommitter;
  /**
   * SQLite only: rewrites the file with only what it holds now and empties the WAL, so values
   * erased or replaced (an old sealing key, secrets sealed under it) no longer lie in free pages
   * or old WAL frames for a copy to find. Start-up only: nothing else may be writing.
   */
  scrub?(): void;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL: the main pool's connections (DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** The read lane's cap and limits (DATABASE_READ_*). */
  readLane?: ReadLaneSettings;
  /** PostgreSQL: a connection not made within this fails (DATABASE_CONNECT_TIMEOUT_S). */
  connectTimeoutS?: number;
  /** PostgreSQL: a statement running longer is cancelled (DATABASE_STATEMENT_TIMEOUT_S). */
  statementTimeoutS?: number;
  /** PostgreSQL: prepare repeated statements once per connection (DATABASE_PREPARED_STATEMENTS); default on. */
  preparedStatements?: boolean;
  onConnectionError?: (err: Error) => void;
  /** Kysely's query log: every query's duration and failure (the metrics). */
  log?: (event: LogEvent) => void;
  /** SQLite: the group committer's bounds (tests and benchmarks). */
  groupCommit?: Partial<GroupCommitOptions>;
  /** SQLite: wraps the WAL sync (tests hold or fail it). */
  walSync?: (sync: WalSync) => WalSync;
  /** SQLite: past this size the WAL is made to start again while the read lane pauses (see `keepWalShort`); tests make it small. */
  walLimit?: { bytes: number; everyMs: number };
}

/** The WAL may grow to this before the read lane's snapshots are made to let a checkpoint finish. */
export const WAL_LIMIT = { bytes: 64 * 1024 * 1024, everyMs: 5_000 };

export const DEFAULT_CONNECT_TIMEOUT_S = 10;
export const DEFAULT_STATEMENT_TIMEOUT_S = 30;
export const DEFAULT_READ_LANE: ReadLaneSettings = { concurrency: 2, timeoutMs: 5_000, queueMs: 10_000 };

/**
 * Opens SQLite (WAL, group commit, and every acknowledged write synced to disk first, so it
 * survives power loss: see sqlite-group-commit.ts) or a PostgreSQL pool, chosen by the URL. A PostgreSQL
 * connection lost (restart, failover, terminated backend), idle or in use, never ends the
 * process: see postgres-pool.ts.
 */
/**
 * A direct read's log event. The logged query is made only when a listener reads it: the
 * metrics read the duration alone, and a CompiledQuery for each of a request's direct reads was
 * work for nothing. A class, so `query` is one getter on its prototype: an object literal's
 * getter was a new function and a new hidden class per read, which kept each request's objects
 * alive through V8's young collections (docs/benchmarks.md).
 */
class DirectReadLogged {
  readonly level = 'query' as const;
  readonly isStream = false;
  constructor(
    private readonly sql: string,
    private readonly parameters: readonly unknown[],
    readonly queryDurationMillis: number,
  ) {}

  get query(): CompiledQuery {
    return CompiledQuery.raw(this.sql, [...this.parameters]);
  }
}

export function openDatabase(url: string, options: OpenOptions = {}): OpenedDatabase {
  if (isPostgresUrl(url)) {
    const pool = createPostgresPool({
      url,
      max: options.poolSize ?? 10,
      connectTimeoutMs: (options.connectTimeoutS ?? DEFAULT_CONNECT_TIMEOUT_S) * 1000,
      statementTimeoutMs: (options.statementTimeoutS ?? DEFAULT_STATEMENT_TIMEOUT_S) * 1000,
      preparedStatements: options.preparedStatements,
      onConnectionError: options.onConnectionError ?? (() => undefined),
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
    const lane = options.readLane ?? DEFAULT_READ_LANE;
    const reads = createPostgresPool({
      url,
      max: lane.concurrency,
      connectTimeoutMs: lane.queueMs,
      statementTimeoutMs: lane.timeoutMs,
      preparedStatements: options.preparedStatements,
      customPlans: true,
      onConnectionError: options.onConnectionError ?? (() => undefined),
    });
    const readPool = readLanePool(reads, lane);
    const readDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: readPool }), log: options.log });
    const parsed = new URL(url);
    return {
      db,
      readDb,
      engine: 'postgres',
      describe: `postgres://${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
      poolCounts: pool.counts,
      readLaneCounts: readPool.counts,
      close: async () => {
        await readDb.destroy();
        await db.destroy();
      },
    };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') ownerOnlyDatabaseFiles(path);
  // timeout 0: better-sqlite3's default busy handler waits up to 5 s, blocking the event loop.
  const writer = new SqliteDatabase(path, { timeout: 0 });
  writer.pragma('journal_mode = WAL');
  addSqliteFunctions(writer);
  // A file's WAL is synced by the group committer before any answer, off the event loop: FULL's
  // guarantee without its fsync inside COMMIT. An in-memory database has nothing to sync.
  const wal = path === ':memory:' ? undefined : walFile(`${resolve(path)}-wal`);
  writer.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
  // The group committer checkpoints between batches (sqlite-group-commit.ts, checkpointIfDue).
  if (wal) writer.pragma('wal_autocheckpoint = 0');
  writer.pragma('foreign_keys = ON');
  // Every transaction of a batch is a SAVEPOINT (sqlite-group-commit.ts), and SQLite copies each
  // page a savepoint first changes to its sub-journal, a temporary file by default: a pwrite per
  // page, about a tenth of the event loop's time under a burst of SOSs (docs/benchmarks.md). In
  // memory, the sub-journal is emptied at each RELEASE, so it holds one transaction's pages at most.
  writer.pragma('temp_store = MEMORY');
  // No busy_timeout: the group committer waits for the write lock without blocking the event loop.
  // Reads outside a transaction see only committed (durable) rows and never wait for the writer.
  let reader: SqliteDatabase.Database | undefined;
  if (path !== ':memory:') {
    reader = new SqliteDatabase(path);
    reader.pragma('busy_timeout = 5000');
    reader.pragma('query_only = ON');
    addSqliteFunctions(reader);
  }
  const checkpointer = wal && startCheckpointer(resolve(path));
  const disk = wal && checkpointer && { sync: options.walSync ? options.walSync(wal.sync) : wal.sync, checkpoint: checkpointer.checkpoint };
  const groupCommit = new GroupCommitter(writer, reader, { ...GROUP_COMMIT_DEFAULTS, ...options.groupCommit }, disk);
  const db = new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(groupCommit), log: options.log });
  const readWorkers = path === ':memory:' ? undefined : new SqliteReadWorkers(resolve(path), options.readLane ?? DEFAULT_READ_LANE, groupCommit);
  const readDb = readWorkers ? new Kysely<Database>({ dialect: new ReadWorkersDialect(readWorkers), log: options.log }) : db;
  const walLimit = options.walLimit ?? WAL_LIMIT;
  // A WAL that started again is cut back to a quarter of the limit (SQLite keeps its size otherwise).
  if (wal) writer.pragma(`journal_size_limit = ${Math.floor(walLimit.bytes / 4)}`);
  const walKeeper = readWorkers && wal && keepWalShort(`${resolve(path)}-wal`, readWorkers, groupCommit, walLimit);
  const log = options.log;
  const queryLogged = (sql: string, parameters: readonly unknown[], queryDurationMillis: number): LogEvent => new DirectReadLogged(sql, parameters, queryDurationMillis);
  allowDirectReads(
    db,
    log
      ? (sql, parameters) => {
          const started = performance.now();
          try {
            const result = groupCommit.readDirect(sql, parameters);
            if (result) log(queryLogged(sql, parameters, performance.now() - started));
            return result;
          } catch (error) {
            log({ level: 'error', error, query: CompiledQuery.raw(sql, [...parameters]), queryDurationMillis: performance.now() - started });
            throw error;
          }
        }
      : (sql, parameters) => groupCommit.readDirect(sql, parameters),
  );
  return {
    db,
    readDb,
    engine: 'sqlite',
    describe: `sqlite:${path}`,
    groupCommit,
    ...(readWorkers ? { readLaneCounts: () => readWorkers.counts(), quiesceReads: () => readWorkers.quiesce() } : {}),
    scrub() {
      if (path === ':memory:') return;
      writer.pragma('wal_checkpoint(TRUNCATE)');
      writer.exec('VACUUM');
      // VACUUM may renumber the rowids the text search's FTS5 tables point at (migration 0036): rebuilt from their tables.
      const fts = writer.prepare(`select name from sqlite_master where type = 'table' and sql like 'create virtual table % using fts5(%'`).all() as Array<{ name: string }>;
      for (const { name } of fts) writer.exec(`insert into ${name}(${name}) values ('rebuild')`);
      writer.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: async () => {
      if (walKeeper) clearInterval(walKeeper);
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
      await checkpointer?.close();
      wal?.close();
    },
  };
}

/**
 * Long reads must not starve the checkpoint. A checkpoint copies the WAL into the database only
 * as far as the oldest snapshot still open allows, and the WAL starts again from its beginning
 * only when no reader holds one of its frames; the read lane's threads, busy one read after
 * another, can keep both from ever happening, and the WAL grows. So every `everyMs` the WAL's size
 * is looked at; past `bytes`, the read lane stops starting reads until those running have ended
 * (each is bounded by its time limit), a checkpoint runs at the writer's next idle moment, and the
 * reads go on. The writer never waits for a read: only reads wait, briefly.
 */
function keepWalShort(walPath: string, workers: SqliteReadWorkers, committer: GroupCommitter, limit: { bytes: number; everyMs: number }): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    let size = 0;
    try {
      size = statSync(walPath).size;
    } catch {
      return;
    }
    if (size <= limit.bytes) return;
    busy = true;
    void (async () => {
      const release = await workers.quiesce();
      try {
        await committer.checkpointSoon();
      } finally {
        release();
        busy = false;
      }
    })();
  }, limit.everyMs);
  timer.unref();
  return timer;
}

/**
 * The WAL file, opened once (SQLite creates it with WAL mode and keeps its inode while any
 * connection is open: a checkpoint rewrites it from the start, it is not replaced) and kept open
 * until SQLite has closed: closing a descriptor on a file can drop POSIX locks the process
 * holds on it. fdatasync runs on libuv's thread pool.
 */
function walFile(walPath: string): { sync: WalSync; close(): void } {
  let fd: number | undefined;
  return {
    sync: () =>
      new Promise<void>((done, fail) => {
        try {
          fd ??= openSync(walPath, 'r+');
        } catch (err) {
          return fail(err);
        }
        fdatasync(fd, (err) => (err ? fail(err) : done()));
      }),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function sqlitePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}

/**
 * Brings the schema up to date; safe when several hosts start at once (Kysely takes a lock).
 * The server and the CLI pass `serverMigrations({ secretBox })` with the sealing key they hold.
 */
export async function migrateToLatest(db: Db, migrations: Record<string, Migration> = serverMigrations(withoutSealingKey)): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Another process (the CLI, a second server) is migrating the same SQLite file: its
    // transaction wins, ours rolled back whole; wait and look again.
    if (isSqliteBusy(error) && attempt < 50) {
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      continue;
    }
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Start-up's first contact with the database: a PostgreSQL that refuses, or accepts and never
 * answers, stops the start with a message naming it and the setting that bounds the wait.
 */
export async function checkReachable(database: OpenedDatabase, connectTimeoutS: number): Promise<void> {
  if (database.engine !== 'postgres') return;
  try {
    await sql`select 1`.execute(database.db);
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `PostgreSQL at ${database.describe} is not answering (${reason}); gave up after DATABASE_CONNECT_TIMEOUT_S=${connectTimeoutS} s at most`,
      { cause: err },
    );
  }
}

function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}
