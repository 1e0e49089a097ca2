import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../server/db/database.ts';
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
export async function createTestDatabase(engine = testEngine(), template?: string): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(SYSTEM_TMP, 'tsaro-test-'));
    return { url: join(dir, 'tsaro.db'), engine, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TSARO_TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error('postgres project without TSARO_TEST_POSTGRES_ADMIN_URL');
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine,
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Template databases are named `tsaro_tpl_<run>`; test/support/template-setup.ts drops them when the run ends. */
export const TEMPLATE_PREFIX = 'tsaro_tpl_';
/** Where a run's SQLite template lives (removed when the run ends). */
export const sqliteTemplateDir = (run: string) => join(SYSTEM_TMP, `tsaro-template-${run}`);

/**
 * A database of the test's own, already migrated to the latest schema: what a server starts on.
 * Within a vitest run (vitest.config.ts sets TSARO_TEST_TEMPLATE_RUN) it is a copy of a template
 * the run's first caller migrated, so each server does not run every migration again (about a
 * second on PostgreSQL, more on a loaded host); the server still runs `migrateToLatest` at start,
 * which finds nothing to do. Outside a run (or with TSARO_TEST_TEMPLATE_RUN=off) it is a fresh
 * database, migrated.
 * Tests of the migrations themselves use `createTestDatabase`, which is empty.
 */
export async function createMigratedDatabase(engine = testEngine()): Promise<TestDatabase> {
  const run = process.env.TSARO_TEST_TEMPLATE_RUN;
  // TSARO_TEST_TEMPLATE_RUN=off: every server migrates its own database (to compare, or to rule the templates out).
  if (!run || run === 'off' || !/^[a-z0-9]+$/.test(run)) {
    const database = await createTestDatabase(engine);
    const opened = openDatabase(database.url);
    try {
      await migrateToLatest(opened.db);
    } finally {
      await opened.close();
    }
    return database;
  }
  if (engine === 'sqlite') {
    const template = await sqliteTemplate(run);
    const dir = mkdtempSync(join(SYSTEM_TMP, 'tsaro-test-'));
    const url = join(dir, 'tsaro.db');
    copyFileSync(template, url);
    return { url, engine, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const template = await postgresTemplate(run);
  return createTestDatabase('postgres', template);
}

/**
 * The run's SQLite template: migrated in a file of its own, its journal folded in, then renamed
 * into place (a rename is atomic: two workers building at once both leave a whole template).
 */
async function sqliteTemplate(run: string): Promise<string> {
  const dir = sqliteTemplateDir(run);
  const path = join(dir, 'tsaro.db');
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const building = join(dir, `building-${randomBytes(6).toString('hex')}.db`);
  const opened = openDatabase(building);
  try {
    await migrateToLatest(opened.db);
  } finally {
    await opened.close();
  }
  const file = new Database(building);
  file.pragma('journal_mode = delete');
  file.close();
  renameSync(building, path);
  return path;
}

/** The run's PostgreSQL template, built once under an advisory lock: `tsaro_tpl_<run>`. */
async function postgresTemplate(run: string): Promise<string> {
  const adminUrl = process.env.TSARO_TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error('postgres project without TSARO_TEST_POSTGRES_ADMIN_URL');
  const name = `${TEMPLATE_PREFIX}${run}`;
  await withAdmin(adminUrl, async (client) => {
    const exists = async () => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return;
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      if (await exists()) return;
      const building = `${name}_b${randomBytes(4).toString('hex')}`;
      await client.query(`CREATE DATABASE ${building}`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const opened = openDatabase(url.toString());
      try {
        await migrateToLatest(opened.db);
      } catch (err) {
        await opened.close();
        await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        throw err;
      }
      await opened.close();
      // No session may be left on it: a copy is refused while anyone is connected to its template.
      await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  return name;
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
