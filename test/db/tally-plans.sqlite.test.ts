import SqliteDatabase from 'better-sqlite3';
import { sql, type CompiledQuery, type LogEvent } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import { foldTallies, talliedCount, talliedGroups } from '../../server/db/tallies.ts';
import { INCIDENT_TALLY } from '../../server/incidents/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Issue #45, found on the bench's generated year: a total by a field with an index of its own
 * (`?status=resolved`) read the unfolded tail through that index, walking every resolved
 * incident, tallied or not (180,000 rows for one count), instead of the partial index that holds
 * only the untallied ones. SQLite's plans of the tallies' statements, after ANALYZE.
 */
const now = '2026-11-28T10:00:00.000Z';

describe('the unfolded tail is read on its partial index (SQLite)', () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('counts, groups and folds by status without walking the tallied rows', async () => {
    database = await createTestDatabase('sqlite');
    const statements: CompiledQuery[] = [];
    opened = openDatabase(database.url, { log: (event: LogEvent) => void statements.push(event.query) });
    const db = opened.db;
    await migrateToLatest(db, serverMigrations(withoutSealingKey));
    await sql`insert into organizations (organization_id, name, plan, subscription_status, code_prefix, created_at, updated_at) values ('org_1', 'A', 'starter', 'active', 'AB', ${now}, ${now})`.execute(db);
    // 4,000 resolved incidents already folded, and a few new ones not yet.
    await sql`
      with recursive s(n) as (select 0 union all select n + 1 from s where n < 4003)
      insert into incidents (incident_id, organization_id, environment, category, severity, status, title, is_drill, subject_name, subject_metadata,
        longitude, latitude, version, dispatch_deadline, escalation_deadline, created_at, updated_at, dispatch_round, tallied)
      select 'inc_' || n, 'org_1', 'live', 'sos', 'high', case when n < 4000 then 'resolved' else 'dispatching' end, 'SOS', 0, 'Ada', '{}',
        3.4, 6.4, 1, ${now}, ${now}, ${now}, ${now}, 1, case when n < 4000 then 1 else 0 end
      from s`.execute(db);
    await sql`analyze`.execute(db);

    const rollup = INCIDENT_TALLY.rollups[0]!;
    const filter = { scope: { organization_id: 'org_1', environment: 'live' }, equals: { status: 'resolved' } };
    statements.length = 0;
    await talliedCount(db, INCIDENT_TALLY, rollup, filter);
    await talliedGroups(db, INCIDENT_TALLY, rollup, { ...filter, from: '2026-01-01T00:00:00.000Z' }, ['category']);
    expect(statements).toHaveLength(2);
    const reader = new SqliteDatabase(database.url, { readonly: true });
    for (const statement of statements) {
      const plan = reader.prepare(`explain query plan ${statement.sql}`).all(...statement.parameters) as { detail: string }[];
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toContain('incidents_untallied');
      expect(details).not.toContain('incidents_by_status');
    }

    // The background fold's pick: before, SQLite walked incidents_by_status_deadline over every
    // resolved incident already folded, each batch (an upgrade's backlog folded in quadratic time).
    statements.length = 0;
    await foldTallies(db, INCIDENT_TALLY, 10);
    const pick = statements.find((statement) => /^\s*select/i.test(statement.sql))!;
    const plan = (reader.prepare(`explain query plan ${pick.sql}`).all(...pick.parameters) as { detail: string }[]).map((row) => row.detail).join('\n');
    expect(plan).toContain('incidents_untallied');
    expect(plan).not.toContain('incidents_by_status');
    reader.close();
  });
});
