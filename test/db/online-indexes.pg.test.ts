import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { ONLINE_FROM_ROWS } from '../../server/db/migrations/0036-reads-at-scale.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import { startIndexBuilds } from '../../server/db/online-indexes.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const migrations = serverMigrations(withoutSealingKey);
const names = Object.keys(migrations);
/** The migrations up to and including `name`, in order. */
const through = (name: string) => Object.fromEntries(names.slice(0, names.indexOf(name) + 1).map((n) => [n, migrations[n]!]));
const before = (name: string) => names[names.indexOf(name) - 1]!;

/**
 * An upgrade of a big PostgreSQL database holds no host at start while an index of a big table is
 * built (issue #45): every host waits for the migrations' lock, so an index read from a year of
 * visits there stops them all. 0055's index of a code's visits (`access_logs_by_code`) is left to
 * the online builder when the visits are many, which builds it `CONCURRENTLY` after the hosts
 * serve; on a small table the migration builds it.
 */
describe('indexes of big tables on PostgreSQL', () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
    opened = undefined;
    database = undefined;
  });

  async function migratedBefore0055(visits: number) {
    database = await createTestDatabase('postgres');
    // 100,000 visits through 0036's text indexes take longer than a request may on a loaded machine.
    opened = openDatabase(database.url, { statementTimeoutS: 600 });
    const db = opened.db;
    await migrateToLatest(db, through('0001-foundation'));
    const now = '2026-11-22T10:00:00.000Z';
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_a', name: 'org_a', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    await migrateToLatest(db, through(before('0055-already-inside')));
    await sql`
      insert into access_logs (log_id, organization_id, environment, method, visitor_name, visitor_phone, entry_point, status, checked_in_at, checked_out_at, auto_checked_out, created_at, updated_at)
      select 'log_' || lpad(n::text, 7, '0'), 'org_a', 'live', 'walk_in', 'Visitor ' || n, '+23480' || lpad(n::text, 8, '0'), 'Main Gate', 'checked_out', ${now}, ${now}, 0, ${now}, ${now}
      from generate_series(1, ${visits}) n`.execute(db);
    return db;
  }

  const indexOf = async (db: OpenedDatabase['db'], name: string) =>
    (await sql<{ valid: boolean }>`select i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = ${name}`.execute(db)).rows[0];

  it('0055 leaves the index of a code\'s visits to the online builder when the visits are many, which builds it after the hosts serve', async () => {
    const db = await migratedBefore0055(ONLINE_FROM_ROWS);
    expect(await migrateToLatest(db, through('0055-already-inside'))).toEqual(['0055-already-inside']);
    expect(await indexOf(db, 'access_logs_by_code')).toBeUndefined();
    await migrateToLatest(db);

    const builder = startIndexBuilds(database!.url, pino({ level: 'silent' }));
    await builder.checked;
    // Until it is built, `/health` says the upgrade's indexes are still pending.
    expect(builder.state().pending).toBeGreaterThanOrEqual(1);
    await builder.settled;
    expect(builder.state()).toEqual({ state: 'complete', pending: 0, building: null });
    expect(await indexOf(db, 'access_logs_by_code')).toEqual({ valid: true });
    await builder.stop();
  }, 120_000);

  it('0055 builds it in the migration when the visits are few', async () => {
    const db = await migratedBefore0055(10);
    await migrateToLatest(db, through('0055-already-inside'));
    expect(await indexOf(db, 'access_logs_by_code')).toEqual({ valid: true });
  });
});
