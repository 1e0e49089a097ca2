import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, type DialectAdapter, type Migration } from 'kysely';
import pg from 'pg';
import { isPostgresUrl } from '../config.ts';
import { migrations as allMigrations } from './migrations/index.ts';
import type { Database, Db } from './schema.ts';

/**
 * SQLite runs DDL in transactions, but Kysely's adapter says it does not, so its migrator would
 * leave a migration half-applied on failure. Declaring it lets each migration run and record
 * itself in one transaction, as on PostgreSQL.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TsaroSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export type Engine = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  engine: Engine;
  /** A short, password-free description for logs: `sqlite:./data/tsaro.db` or `postgres://host:5432/db`. */
  describe: string;
  close(): Promise<void>;
}

/**
 * Opens SQLite (WAL, synchronous=FULL so an acknowledged write survives power loss) or a
 * PostgreSQL pool, chosen by the URL.
 */
export function openDatabase(
  url: string,
  options: { poolSize?: number; onConnectionError?: (err: Error) => void } = {},
): OpenedDatabase {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    // An idle connection dropped by the server (restart, failover) is replaced on next use; without
    // a listener pg rethrows it and the whole process dies.
    pool.on('error', options.onConnectionError ?? (() => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const parsed = new URL(url);
    return {
      db,
      engine: 'postgres',
      describe: `postgres://${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
      close: () => db.destroy(),
    };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new TsaroSqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, engine: 'sqlite', describe: `sqlite:${path}`, close: () => db.destroy() };
}

/**
 * Kysely's SQLite driver prepares every statement anew (about 20 µs under load, an eighth of
 * a simple GET). The same SQL text gets the same prepared statement; better-sqlite3 runs
 * statements synchronously, so one is never used by two queries at once.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, capacity = 500): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const prepare = (source: string) => {
    let statement = cache.get(source);
    if (statement) {
      cache.delete(source);
    } else {
      statement = sqlite.prepare(source);
      if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, statement);
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function sqlitePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}

/** Brings the schema up to date; safe when several hosts start at once (Kysely takes a lock). */
export async function migrateToLatest(db: Db, migrations: Record<string, Migration> = allMigrations): Promise<string[]> {
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

function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}
