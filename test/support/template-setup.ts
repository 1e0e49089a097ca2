import { rmSync } from 'node:fs';
import pg from 'pg';
import { sqliteTemplateDir, TEMPLATE_PREFIX } from './database.ts';
import { POSTGRES_ADMIN_URL } from './services.ts';

/**
 * vitest's global setup: the migrated template databases of this run (test/support/database.ts,
 * `createMigratedDatabase`) are built by the first test that needs one and removed here when the
 * run ends.
 */
export default function setup() {
  return async function teardown() {
    const run = process.env.TSARO_TEST_TEMPLATE_RUN;
    if (!run) return;
    rmSync(sqliteTemplateDir(run), { recursive: true, force: true });
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${TEMPLATE_PREFIX}${run}%`]);
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    } catch {
      // No PostgreSQL in this run: there is no template to drop.
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}
