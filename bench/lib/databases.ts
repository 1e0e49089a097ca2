import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { registerCleanup } from './cleanup.ts';

/** Where a fresh PostgreSQL database is created; override with BENCH_POSTGRES_ADMIN_URL (loopback only). */
import type { Engine } from './settings.ts';

export const DEFAULT_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  engine: 'sqlite' | 'postgres';
  url: string;
  /** Removes the file or drops the database; safe to call twice (also run by `runCleanups` on an interrupted run). */
  drop(): Promise<void>;
}

/** A SQLite file in a temporary directory of its own, removed by `drop`. */
export function createSqliteDatabase(): BenchDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'tsaro-bench-'));
  const drop = registerCleanup(`remove ${dir}`, async () => rmSync(dir, { recursive: true, force: true }));
  return { engine: 'sqlite', url: join(dir, 'tsaro.db'), drop };
}

export function postgresAdminUrl(): string {
  const url = process.env.BENCH_POSTGRES_ADMIN_URL || DEFAULT_POSTGRES_ADMIN_URL;
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) {
    throw new Error(`BENCH_POSTGRES_ADMIN_URL must point at loopback, not ${host}`);
  }
  return url;
}

/** Password-free form for printing. */
export function describePostgres(url: string): string {
  const parsed = new URL(url);
  return `postgres://${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Why PostgreSQL cannot be used, or undefined when it answers. */
export async function postgresUnavailable(adminUrl: string): Promise<string | undefined> {
  try {
    await withAdmin(adminUrl, (client) => client.query('SELECT 1'));
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message || err.constructor.name : String(err);
  }
}

/** `CREATE DATABASE t_<random>`, dropped (WITH FORCE) by `drop`. */
export async function createPostgresDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // The servers under test reach PostgreSQL through its Unix socket in this folder instead of
  // loopback TCP (an operator's choice where the database runs on the same machine).
  const socket = process.env.BENCH_POSTGRES_SOCKET;
  if (socket) url.searchParams.set('host', socket);
  const drop = registerCleanup(`drop database ${name}`, async () => {
    await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  return { engine: 'postgres', url: url.toString(), drop };
}

/**
 * A fresh database of `engine`: a temporary SQLite file, or a new PostgreSQL database. When
 * PostgreSQL is not reachable, says why through `skipped` and answers undefined.
 */
export async function createEngineDatabase(
  engine: Engine,
  skipped: (line: string) => void,
  what?: string,
): Promise<BenchDatabase | undefined> {
  if (engine === 'sqlite') return createSqliteDatabase();
  const adminUrl = postgresAdminUrl();
  const why = await postgresUnavailable(adminUrl);
  if (why) {
    skipped(`PostgreSQL skipped${what ? ` (${what})` : ''}: not reachable at ${describePostgres(adminUrl)} (${why})`);
    return undefined;
  }
  return createPostgresDatabase(adminUrl);
}
