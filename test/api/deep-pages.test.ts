import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedRows, type ListOrder } from '../../server/db/paged.ts';
import type { Db } from '../../server/db/schema.ts';
import { foldTallies, tallySkip } from '../../server/db/tallies.ts';
import { TALLIED_TABLES } from '../../server/tally-folder.ts';
import { checkProperty } from '../support/property.ts';
import { bulkRows } from '../support/bulk-rows.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * A deep page by `page` of a tallied list starts at the day holding its first row, found by
 * counting rows per month and day in the tallies (server/db/tallies.ts `tallySkip`, issue #45),
 * and skips only that day's rows before it. Whatever the fold has reached, for any field filter,
 * window and caller, its rows are those of the plain OFFSET over the same rows: ties at a day's
 * first instant and within an instant included, and past the end.
 */
const DAY = 86_400_000;
const START = Date.parse('2026-08-20T00:00:00.000Z');
const pick = <T>(values: readonly T[], n: number) => values[n % values.length]!;
/** Over 75 days (three months and more); every 13th row on a day's first instant, every 7th sharing an instant with the row before. */
const instant = (i: number) => {
  const n = i % 7 === 6 ? i - 1 : i;
  const at = START + ((n * 7_919_117) % (75 * DAY));
  return new Date(n % 13 === 0 ? at - (at % DAY) : at).toISOString();
};
const VISIT_SPEC = TALLIED_TABLES.find((spec) => spec.table === 'access_logs')!;
const INCIDENT_SPEC = TALLIED_TABLES.find((spec) => spec.table === 'incidents')!;

describe('deep pages by page number, started from the tallies', () => {
  let server: TestServer;
  let org: TestOrganization;
  let siteKey: ApiClient;
  let sites: string[];
  let db: Db;

  beforeAll(async () => {
    // "Deep" from the 20th row: most pages take the tallies' way; a day holds about 40 rows, so
    // what is left to skip within a day is sometimes deep still.
    server = await startTestServer({ config: { DATABASE_READ_DEEP_FROM_ROWS: '20' } });
    db = server.running.database.db;
    org = await server.createOrganization();
    const made = [await org.live.post('/sites', { name: 'Lekki Gardens' }), await org.live.post('/sites', { name: 'Banana Island' })];
    sites = made.map((answer) => answer.body.site.site_id);
    const key = await org.live.post('/api-keys', { name: 'Lekki only', scopes: ['incidents:read', 'logs:read'], site_ids: [sites[0]] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    siteKey = server.client(key.body.secret);
    await bulkRows(db, org.organizationId, sites, 3000, instant, false);
    const other = await server.createOrganization({ name: 'Small Estate' });
    await bulkRows(db, other.organizationId, [], 300, instant, false);
    // Some folded, some not.
    await foldTallies(db, VISIT_SPEC, 900);
    await foldTallies(db, INCIDENT_SPEC, 400);
  }, 120_000);
  afterAll(() => server.stop());

  const windowOf = (a: number, b: number, dateOnly: boolean) => {
    const [from, to] = [instant(a), instant(b)].sort();
    return dateOnly ? { from_date: from!.slice(0, 10), to_date: to!.slice(0, 10) } : { from_date: from!, to_date: to! };
  };

  const request = fc.record({
    list: fc.constantFrom('access-logs', 'incidents'),
    site: fc.nat(),
    value: fc.nat(),
    second: fc.nat(),
    window: fc.option(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }), fc.boolean()), { nil: undefined }),
    limited: fc.boolean(),
    limit: fc.integer({ min: 1, max: 60 }),
    /** Where the page lies, in thousandths of the list (past its end too). */
    depth: fc.integer({ min: 0, max: 1100 }),
    fold: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
  });

  it("a random deep page's rows, next cursor and total are those of the plain OFFSET over the same rows", async () => {
    let tallied = 0;
    await checkProperty(
      fc.asyncProperty(request, async (r) => {
        if (r.fold) await foldTallies(db, r.list === 'incidents' ? INCIDENT_SPEC : VISIT_SPEC, r.fold);
        const query: Record<string, string> = {};
        const where: ReturnType<typeof sql>[] = [sql`organization_id = ${org.organizationId}`, sql`environment = 'live'`];
        const site = r.limited ? 0 : pick([undefined, 0, 1], r.site);
        if (site !== undefined) where.push(sql`site_id = ${sites[site]!}`);
        if (site !== undefined && !r.limited) query.site_id = sites[site]!;
        const table = r.list === 'incidents' ? 'incidents' : 'access_logs';
        const time = r.list === 'incidents' ? 'created_at' : 'checked_in_at';
        const id = r.list === 'incidents' ? 'incident_id' : 'log_id';
        if (r.list === 'incidents') {
          const status = pick([undefined, 'active', 'resolved', 'escalated'], r.value);
          if (status === 'active') where.push(sql`status not in ('resolved', 'cancelled')`);
          else if (status) where.push(sql`status = ${status}`);
          if (status) query.status = status;
          const category = pick([undefined, 'sos', 'medical'], r.second);
          if (category) {
            query.category = category;
            where.push(sql`category = ${category}`);
          }
        } else {
          const status = pick([undefined, 'checked_in', 'checked_out'], r.value);
          if (status) {
            query.status = status;
            where.push(sql`status = ${status}`);
          }
          const gate = pick([undefined, 'Main Gate', 'Back Gate'], r.second);
          if (gate) {
            query.entry_point = gate;
            where.push(sql`entry_point = ${gate}`);
          }
        }
        if (r.window) {
          const window = windowOf(...r.window);
          Object.assign(query, window);
          const from = new Date(window.from_date).toISOString();
          const to = window.to_date.length === 10 ? new Date(Date.parse(window.to_date) + DAY).toISOString() : new Date(window.to_date).toISOString();
          where.push(sql`${sql.ref(time)} >= ${from} and ${sql.ref(time)} < ${to}`);
        }
        const filtered = sql.join(where, sql` and `);
        const total = Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${filtered}`.execute(db)).rows[0]!.n);
        const page = Math.floor((r.depth * total) / 1000 / r.limit) + 1;
        const offset = (page - 1) * r.limit;
        if (offset >= 20 && offset < total) tallied++;
        const { rows } = await sql<Record<string, string>>`
          select ${sql.ref(id)} as id from ${sql.table(table)} where ${filtered}
          order by ${sql.ref(time)} desc, ${sql.ref(id)} desc limit ${r.limit + 1} offset ${offset}`.execute(db);
        const label = `${r.list} page ${page} of ${JSON.stringify(query)}${r.limited ? ' (key of one site)' : ''}`;
        const answer = await (r.limited ? siteKey : org.live).get(`/${r.list}?${new URLSearchParams({ ...query, limit: String(r.limit), page: String(page) })}`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(
          answer.body.results.map((row: Record<string, string>) => row[id]),
          label,
        ).toEqual(rows.slice(0, r.limit).map((row) => row.id));
        expect(answer.body.next_cursor !== null, label).toBe(rows.length > r.limit);
        expect(answer.body.totalResults, label).toBe(total);
      }),
      { numRuns: 150 },
    );
    // Most pages drawn were deep, and in the list.
    expect(tallied).toBeGreaterThan(40);
  }, 240_000);

  it('a list in ascending order is skipped from its oldest day the same way', async () => {
    const order: ListOrder = { name: 'visits_oldest_first', kind: 'keyset', column: 'checked_in_at', id: 'log_id', direction: 'asc' };
    const filter = { scope: { organization_id: org.organizationId, environment: 'live' }, equals: { status: 'checked_out' } };
    const base = () => db.selectFrom('access_logs').selectAll().where('organization_id', '=', org.organizationId).where('environment', '=', 'live').where('status', '=', 'checked_out');
    const skip = tallySkip(db, { spec: VISIT_SPEC, rollup: VISIT_SPEC.rollups[0]!, filter });
    await checkProperty(
      fc.asyncProperty(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 40 }), async (page, limit) => {
        const paged = await pagedRows(base(), order, { page, limit }, { skip });
        const plain = await base().orderBy('checked_in_at').orderBy('log_id').offset((page - 1) * limit).limit(limit + 1).execute();
        expect(paged.rows.map((row) => row.log_id)).toEqual(plain.slice(0, limit).map((row) => row.log_id));
        expect(paged.nextCursor !== null).toBe(plain.length > limit);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it("a deep page's answer is the same before and after the fold", async () => {
    const other = await server.createOrganization({ name: 'Unfolded Estate' });
    await bulkRows(db, other.organizationId, [], 1500, instant, false);
    const paths = ['/access-logs?limit=25&page=30', '/access-logs?limit=7&page=150&status=checked_out', '/access-logs?limit=10&page=20&entry_point=Main%20Gate', '/incidents?limit=9&page=40', '/incidents?limit=9&page=25&status=resolved'];
    const before = await Promise.all(paths.map(async (path) => (await other.live.get(path)).body));
    await server.running.foldTallies();
    const left = await sql<{ n: number | string }>`select count(*) as n from access_logs where organization_id = ${other.organizationId} and tallied = 0 and status = 'checked_out'`.execute(db);
    expect(Number(left.rows[0]!.n)).toBe(0);
    const after = await Promise.all(paths.map(async (path) => (await other.live.get(path)).body));
    paths.forEach((path, i) => {
      expect(before[i].results.length, path).toBeGreaterThan(0);
      expect({ results: after[i].results, next_cursor: after[i].next_cursor, totalResults: after[i].totalResults }, path).toEqual({
        results: before[i].results,
        next_cursor: before[i].next_cursor,
        totalResults: before[i].totalResults,
      });
    });
  }, 120_000);
});

