/**
 * The generator's own connection to the year's database: plain SQL, no pool, no read lane.
 * SQLite: better-sqlite3 with the sync off (a bench file, rebuilt if the machine falls over);
 * PostgreSQL: one client with `synchronous_commit` off.
 */
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { Engine } from '../lib/settings.ts';

export interface Conn {
  engine: Engine;
  /** One statement (or several, SQLite) in a transaction of its own. */
  exec(text: string): Promise<void>;
  rows<T = Record<string, unknown>>(text: string): Promise<T[]>;
  /** Column name → type to cast to (PostgreSQL's udt_name; '' on SQLite). */
  columns(table: string): Promise<Map<string, string>>;
  close(): Promise<void>;
}

export const sqlitePath = (url: string) => url.replace(/^(sqlite:\/\/|sqlite:|file:)/, '');

export async function openConn(engine: Engine, url: string): Promise<Conn> {
  if (engine === 'sqlite') {
    const db = new SqliteDatabase(sqlitePath(url));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1000000');
    db.pragma('temp_store = MEMORY');
    return {
      engine,
      async exec(text) {
        db.exec('begin');
        try {
          db.exec(text);
          db.exec('commit');
        } catch (err) {
          db.exec('rollback');
          throw err;
        }
      },
      async rows<T>(text: string) {
        return db.prepare(text).all() as T[];
      },
      async columns(table) {
        const rows = db.prepare(`pragma table_info(${table})`).all() as { name: string }[];
        return new Map(rows.map((row) => [row.name, '']));
      },
      async close() {
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  await client.query('set maintenance_work_mem = \'512MB\'');
  await client.query('set statement_timeout = 0');
  return {
    engine,
    async exec(text) {
      await client.query(text);
    },
    async rows<T>(text: string) {
      return (await client.query(text)).rows as T[];
    },
    async columns(table) {
      const { rows } = await client.query<{ column_name: string; udt_name: string }>(
        'select column_name, udt_name from information_schema.columns where table_schema = current_schema() and table_name = $1',
        [table],
      );
      return new Map(rows.map((row) => [row.column_name, row.udt_name]));
    },
    async close() {
      await client.end();
    },
  };
}
