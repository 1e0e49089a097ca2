import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { SYSTEM_TMP } from './temp.ts';

export interface TestDatabase {
  url: string;
  engine: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/** The engine this project runs on: `sqlite` or `postgres` (vitest.config.ts sets it per project). */
export function testEngine(): 'sqlite' | 'postgres' {
  return process.env.TSARO_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

/** A database of the test's own: a temporary SQLite file, or `CREATE DATABASE t_<random>` dropped after. */
export async function createTestDatabase(engine = testEngine()): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(SYSTEM_TMP, 'tsaro-test-'));
    return { url: join(dir, 'tsaro.db'), engine, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TSARO_TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error('postgres project without TSARO_TEST_POSTGRES_ADMIN_URL');
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine,
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
