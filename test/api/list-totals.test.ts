import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/schema.ts';
import { histogramCount, percentileOf, secondsBucket } from '../../server/db/histogram.ts';
import { foldInBulk, foldTallies, splitDays, type Histogram } from '../../server/db/tallies.ts';
import { TALLIED_TABLES } from '../../server/tally-folder.ts';
import { checkProperty } from '../support/property.ts';
import { bulkRows } from '../support/bulk-rows.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * `totalResults` comes from day tallies, the rows not yet tallied and the partial days at a
 * window's ends (server/db/tallies.ts, issue #45). Whatever the fold has reached, for any field
 * filter, any window (days, instants within a day) and any caller (limited to a site or not),
 * it equals `count(*)` of the same rows. About 10,000 rows, written straight to the tables.
 */
const DAY = 86_400_000;
const START = Date.parse('2026-09-01T00:00:00.000Z');
const pick = <T>(values: readonly T[], n: number) => values[n % values.length]!;
const instant = (n: number) => new Date(START + ((n * 7_919_117) % (60 * DAY))).toISOString();

describe('list totals agree with count(*) at any point of the fold', () => {
  let server: TestServer;
  let org: TestOrganization;
  let siteKey: ApiClient;
  let sites: string[];
  let db: Db;

  beforeAll(async () => {
    server = await startTestServer();
    db = server.running.database.db;
    org = await server.createOrganization();
    const made = [await org.live.post('/sites', { name: 'Lekki Gardens' }), await org.live.post('/sites', { name: 'Banana Island' })];
    sites = made.map((answer) => answer.body.site.site_id);
    const key = await org.live.post('/api-keys', { name: 'Lekki only', scopes: ['incidents:read', 'logs:read', 'access_codes:read', 'admin'], site_ids: [sites[0]] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    siteKey = server.client(key.body.secret);
    const other = await server.createOrganization({ name: 'Small Estate' });
    await bulkRows(db, org.organizationId, sites, 4000, instant);
    await bulkRows(db, other.organizationId, [], 200, instant);
  }, 120_000);
  afterAll(() => server.stop());

  const SITE = (n: number) => [undefined, 0, 1][n % 3];
  const windowOf = (a: number, b: number, dateOnly: boolean) => {
    const [from, to] = [instant(a), instant(b)].sort();
    return dateOnly ? { from_date: from!.slice(0, 10), to_date: to!.slice(0, 10) } : { from_date: from!, to_date: to! };
  };

  /** A random list request, and the SQL count of the same rows. */
  const request = fc.record({
    list: fc.constantFrom('incidents', 'access-logs', 'access-codes', 'events', 'audit-log'),
    site: fc.nat(),
    value: fc.nat(),
    second: fc.nat(),
    window: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { nil: undefined }),
    limited: fc.boolean(),
    fold: fc.option(fc.tuple(fc.nat({ max: TALLIED_TABLES.length - 1 }), fc.integer({ min: 1, max: 900 })), { nil: undefined }),
    settle: fc.boolean(),
  });

  /**
   * The control room's analytics read the same three parts, and a window ending late in a month
   * reads that month's tallies less its last days (server/db/tallies.ts `splitDays`): counts and
   * the histograms' percentiles equal those of the rows themselves, whatever the fold has reached.
   */
  it('incident analytics over random windows (days, instants, across months) equal the rows', async () => {
    const analyticsRequest = fc.record({
      window: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { nil: undefined }),
      site: fc.nat(),
      fold: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
      settle: fc.option(fc.nat(), { nil: undefined }),
    });
    const incidentSpec = TALLIED_TABLES.find((spec) => spec.table === 'incidents')!;
    let subtracted = 0;
    await checkProperty(
      fc.asyncProperty(analyticsRequest, async (r) => {
        if (r.fold) await foldTallies(db, incidentSpec, r.fold);
        if (r.settle !== undefined) await settleSome(db, r.settle);
        const query: Record<string, string> = {};
        const where: ReturnType<typeof sql>[] = [sql`organization_id = ${org.organizationId}`, sql`environment = 'live'`];
        const site = SITE(r.site);
        if (site !== undefined) {
          query.site_id = sites[site]!;
          where.push(sql`site_id = ${sites[site]!}`);
        }
        if (r.window) {
          const window = windowOf(...r.window);
          Object.assign(query, window);
          const from = new Date(window.from_date).toISOString();
          const to = window.to_date.length === 10 ? new Date(Date.parse(window.to_date) + DAY).toISOString() : new Date(window.to_date).toISOString();
          where.push(sql`created_at >= ${from} and created_at < ${to}`);
          // The window's whole days, as server/db/tallies.ts splits them.
          const fromDay = from.endsWith('T00:00:00.000Z') ? from.slice(0, 10) : new Date(Date.parse(from.slice(0, 10)) + DAY).toISOString().slice(0, 10);
          if (splitDays(fromDay, to.slice(0, 10)).less.length) subtracted++;
        }
        const answer = await org.live.get(`/incidents/analytics?${new URLSearchParams(query)}`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const { rows } = await sql<{ category: string; status: string; severity: string; created_at: string; assigned_at: string | null }>`
          select category, status, severity, created_at, assigned_at from incidents where ${sql.join(where, sql` and `)}`.execute(db);
        const expected = { total: rows.length, by_category: {} as Record<string, number>, by_status: {} as Record<string, number>, by_severity: {} as Record<string, number> };
        const toAssign: Histogram = new Map();
        for (const row of rows) {
          expected.by_category[row.category] = (expected.by_category[row.category] ?? 0) + 1;
          expected.by_status[row.status] = (expected.by_status[row.status] ?? 0) + 1;
          expected.by_severity[row.severity] = (expected.by_severity[row.severity] ?? 0) + 1;
          if (row.assigned_at) {
            const bucket = secondsBucket(Math.round((Date.parse(row.assigned_at) - Date.parse(row.created_at)) / 1000));
            toAssign.set(bucket, (toAssign.get(bucket) ?? 0) + 1);
          }
        }
        const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0));
        const label = JSON.stringify(query);
        expect(answer.body.total, label).toBe(expected.total);
        expect(nonZero(answer.body.by_category), label).toEqual(expected.by_category);
        expect(nonZero(answer.body.by_status), label).toEqual(expected.by_status);
        expect(nonZero(answer.body.by_severity), label).toEqual(expected.by_severity);
        const median = percentileOf(toAssign, 0.5);
        const p90 = percentileOf(toAssign, 0.9);
        expect(answer.body.seconds_to_assign, label).toEqual({ count: histogramCount(toAssign), median: median.value, p90: p90.value, approximate: median.approximate || p90.approximate });
      }),
      { numRuns: 60 },
    );
    // The windows drawn took days away from a month's tallies at least once (the case this is for).
    expect(subtracted).toBeGreaterThan(0);
  }, 180_000);

  it('for random filters, windows, callers and folds', async () => {
    await checkProperty(
      fc.asyncProperty(request, async (r) => {
        if (r.fold) await foldTallies(db, TALLIED_TABLES[r.fold[0]]!, r.fold[1]);
        // Rows settle between folds, as visits end and incidents close.
        if (r.settle) await settleSome(db, r.value);
        const query: Record<string, string> = {};
        // The event log and the audit log take no site_id: only a caller's own reach narrows them.
        const site = r.limited ? 0 : r.list === 'events' || r.list === 'audit-log' ? undefined : SITE(r.site);
        if (site !== undefined && !r.limited) query.site_id = sites[site]!;
        const where: ReturnType<typeof sql>[] = [sql`organization_id = ${org.organizationId}`];
        let table: string;
        let time = 'created_at';
        if (r.list !== 'audit-log') where.push(sql`environment = 'live'`);
        /** The query's field filter and the same condition for the count. */
        const filterOn = (param: string, value: string | undefined, column = param) => {
          if (value === undefined) return;
          query[param] = value;
          where.push(sql`${sql.ref(column)} = ${value}`);
        };
        const siteFilter = (everywhere: boolean) => {
          const reach = r.limited ? sites[0] : site === undefined ? undefined : sites[site];
          if (reach) where.push(everywhere ? sql`(site_id = ${reach} or site_id is null)` : sql`site_id = ${reach}`);
        };
        switch (r.list) {
          case 'incidents': {
            table = 'incidents';
            siteFilter(false);
            const status = pick([undefined, 'active', 'resolved', 'cancelled', 'dispatching', 'escalated'], r.value);
            if (status === 'active') where.push(sql`status not in ('resolved', 'cancelled')`);
            else if (status) where.push(sql`status = ${status}`);
            if (status) query.status = status;
            const category = pick([undefined, 'sos', 'medical'], r.second);
            filterOn('category', category, 'category');
            const severity = pick([undefined, undefined, 'high', 'low'], r.second >> 2);
            filterOn('severity', severity, 'severity');
            break;
          }
          case 'access-logs': {
            table = 'access_logs';
            time = 'checked_in_at';
            siteFilter(false);
            const status = pick([undefined, 'checked_in', 'checked_out'], r.value);
            filterOn('status', status, 'status');
            const gate = pick([undefined, 'Main Gate', 'Back Gate'], r.second);
            filterOn('entry_point', gate, 'entry_point');
            break;
          }
          case 'access-codes': {
            table = 'access_codes';
            siteFilter(true);
            const status = pick([undefined, 'active', 'used', 'expired', 'revoked'], r.value);
            filterOn('status', status, 'status');
            break;
          }
          case 'events': {
            table = 'events';
            siteFilter(false);
            where.push(sql`test = 0`);
            const type = pick([undefined, 'incident.created', 'visitor.arrived'], r.value);
            filterOn('type', type, 'type');
            break;
          }
          default: {
            table = 'audit_log';
            if (r.limited) return; // the audit log is for callers of every site
            const action = pick([undefined, 'createIncident', 'createAccessCode'], r.value);
            filterOn('action', action, 'action');
          }
        }
        if (r.window) {
          const window = windowOf(...r.window);
          Object.assign(query, window);
          const from = new Date(window.from_date).toISOString();
          // A date alone as to_date lets that whole day in (CONTRACT.md).
          const to = window.to_date.length === 10 ? new Date(Date.parse(window.to_date) + DAY).toISOString() : new Date(window.to_date).toISOString();
          where.push(sql`${sql.ref(time)} >= ${from} and ${sql.ref(time)} < ${to}`);
        }
        const client = r.limited ? siteKey : org.live;
        const answer = await client.get(`/${r.list}?${new URLSearchParams({ ...query, limit: '1' })}`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.join(where, sql` and `)}`.execute(db);
        expect(answer.body.totalResults, `${r.list} ${JSON.stringify(query)}${r.limited ? ' (key of one site)' : ''}`).toBe(Number(rows[0]!.n));
      }),
      { numRuns: 120 },
    );
    // Everything folds in the end, and the totals still agree.
    await server.running.foldTallies();
    expect((await org.live.get('/incidents?limit=1')).body.totalResults).toBe(Number((await sql<{ n: number }>`select count(*) as n from incidents where organization_id = ${org.organizationId} and environment = 'live'`.execute(db)).rows[0]!.n));
  }, 180_000);
});


/** Some open visits check out and some active incidents close, as the product changes them (a settled row never changes again). */
async function settleSome(db: Db, seed: number): Promise<void> {
  const at = instant(seed + 999);
  await db.updateTable('access_logs').set({ status: 'checked_out', checked_out_at: at }).where('status', '=', 'checked_in').where('log_id', 'like', `%${seed % 10}`).execute();
  await db.updateTable('incidents').set({ status: 'resolved' }).where('status', 'in', ['dispatching', 'escalated', 'on_scene']).where('incident_id', 'like', `%${seed % 10}`).execute();
}

describe('the fold in bulk (a generated year) tallies every settled row once', () => {
  let server: TestServer;
  afterAll(() => server.stop());

  it('leaves no settled row untallied, and the totals still equal count(*)', async () => {
    server = await startTestServer();
    const db = server.running.database.db;
    const org = await server.createOrganization();
    await bulkRows(db, org.organizationId, [], 1500, instant);
    for (const spec of TALLIED_TABLES) await foldInBulk(db, spec, 250);
    const left = await sql<{ n: number | string }>`select count(*) as n from access_logs where tallied = 0 and status = 'checked_out'`.execute(db);
    expect(Number(left.rows[0]!.n)).toBe(0);
    const count = async (statement: ReturnType<typeof sql>) => Number((await sql<{ n: number }>`select count(*) as n from ${statement}`.execute(db)).rows[0]!.n);
    for (const [path, expected] of [
      ['/access-logs', await count(sql`access_logs`)],
      ['/access-logs?status=checked_out&from_date=2026-09-10T13:00:00Z&to_date=2026-10-02', await count(sql`access_logs where status = 'checked_out' and checked_in_at >= '2026-09-10T13:00:00.000Z' and checked_in_at < '2026-10-03T00:00:00.000Z'`)],
      ['/incidents?status=resolved&category=medical', await count(sql`incidents where status = 'resolved' and category = 'medical'`)],
      ['/access-codes?status=used', await count(sql`access_codes where status = 'used'`)],
      ['/events', await count(sql`events where test = 0`)],
    ] as const) {
      expect((await org.live.get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).body.totalResults, path).toBe(expected);
    }
  }, 120_000);
});
