import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Broad reads (lists, searches, stats, reports) run on a lane of their own (issue #45): on
 * PostgreSQL a pool that no SOS uses, on SQLite worker threads off the event loop. An SOS and a
 * gate's validation answer while every broad-read place is taken, and a broad read that runs too
 * long is stopped and answered 503 "too broad" (not "database unavailable", which clients retry).
 */
describe('the read lane on PostgreSQL: a pool of its own', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_READ_CONCURRENCY: '2', DATABASE_READ_QUEUE_S: '1', DATABASE_READ_TIMEOUT_S: '3', DATABASE_POOL_SIZE: '4' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it("plans each read for its own parameters: a report's window never gets PostgreSQL's generic plan", async () => {
    // A generic plan (chosen after five runs of a prepared statement) walked a tenant's incidents by
    // the time index for a report's rows not yet tallied, instead of the partial index (issue #45).
    const setting = async (db: typeof server.running.database.db) => (await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(db)).rows[0]!.mode;
    expect(await setting(server.running.database.readDb!)).toBe('force_custom_plan');
    expect(await setting(server.running.database.db)).toBe('auto');
  });

  it('twelve lists stuck behind a lock hold every read connection, and an SOS and a validation still answer', async () => {
    const code = await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' });
    const locker = new pg.Client({ connectionString: server.database.url });
    await locker.connect();
    try {
      // Roll calls: a list no SOS or validation writes to, so only the lists wait on the lock.
      await locker.query('begin');
      await locker.query('lock table roll_calls in access exclusive mode');
      const lists = Array.from({ length: 12 }, () => org.live.get('/roll-calls'));
      // Both read connections wait on the lock; without the lane the twelve would have taken the main pool's four.
      await expect
        .poll(async () => (await locker.query(`select count(*)::int as n from pg_locks where relation = 'roll_calls'::regclass and not granted`)).rows[0].n, { timeout: 5_000, interval: 50 })
        .toBe(2);
      const sos = await org.live.post('/incidents', incidentBody());
      expect(sos.status, JSON.stringify(sos.body)).toBe(201);
      const again = await org.live.post('/incidents', incidentBody({ severity: 'high' }));
      expect(again.status).toBe(201);
      const validated = await org.live.post('/access-codes/validate', { code: code.body.access_code.code });
      expect(validated.body.valid).toBe(true);
      const answers = await Promise.all(lists);
      // Those that ran were stopped by the read timeout: "too broad", no Retry-After; the others
      // waited their turn for a second and were told to retry. Nothing else.
      const tooBroad = answers.filter((answer) => answer.status === 503 && /too broad/.test(answer.body.message) && answer.headers.get('retry-after') === null);
      const busy = answers.filter((answer) => answer.status === 503 && /retry shortly/.test(answer.body.message) && answer.headers.get('retry-after') === '1');
      expect(tooBroad.length).toBeGreaterThanOrEqual(1);
      expect(busy.length).toBeGreaterThanOrEqual(1);
      expect(tooBroad.length + busy.length, JSON.stringify(answers.map((answer) => answer.body))).toBe(12);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
    expect((await org.live.get('/roll-calls')).status).toBe(200);
  }, 60_000);
});

/**
 * A tenant's validations number their codes on its feed counter and hold that row until their
 * COMMIT is on disk. Beside heavy reads the flushes slow down and the validations queued on the
 * counter inside PostgreSQL, each holding a connection of the main pool, which the SOS needs
 * (issue #45). They now wait on the host, holding nothing, and the next transaction takes them all.
 */
describe("a tenant's validations waiting on its feed counter on PostgreSQL", () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_POOL_SIZE: '3' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('hold one connection between them, so an SOS answers while the counter is held; then all are admitted in one order on the feed', async () => {
    const codes = await Promise.all(
      Array.from({ length: 4 }, (_, i) => org.live.post('/access-codes', { visitor_name: `Visitor ${i}`, visitor_phone: `+23480300000${10 + i}`, max_uses: 5 })),
    );
    const { body: before } = await org.live.get('/access-codes/changes?cursor=0');
    const holder = new pg.Client({ connectionString: server.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from feed_counters where organization_id = $1 and environment = 'live' for update`, [org.organizationId]);
      // Eight validations: before, each took one of the three connections and waited on the counter.
      const validations = Array.from({ length: 8 }, (_, i) => org.live.post('/access-codes/validate', { code: codes[i % 4]!.body.access_code.code }));
      await expect
        .poll(async () => (await holder.query(`select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid) where not l.granted and a.datname = current_database()`)).rows[0].n, { timeout: 5_000, interval: 50 })
        .toBe(1);
      const sos = await org.live.post('/incidents', incidentBody());
      expect(sos.status, JSON.stringify(sos.body)).toBe(201);
      await holder.query('rollback');
      const answers = await Promise.all(validations);
      expect(answers.map((answer) => [answer.status, answer.body.valid])).toEqual(Array.from({ length: 8 }, () => [200, true]));
      expect(new Set(answers.map((answer) => answer.body.log_id)).size).toBe(8);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    // Each code used twice, and the kiosks' feed has each code once more, numbered after what it had.
    const { body: listed } = await org.live.get('/access-codes?limit=10');
    expect(listed.results.map((code: { uses_remaining: number }) => code.uses_remaining)).toEqual([3, 3, 3, 3]);
    const { body: feed } = await org.live.get(`/access-codes/changes?cursor=${before.next_cursor}`);
    expect(feed.codes.map((code: { code_id: string }) => code.code_id).sort()).toEqual(codes.map((code) => code.body.access_code.code_id).sort());
    expect(feed.codes.every((code: { uses_remaining: number }) => code.uses_remaining === 3)).toBe(true);
  }, 60_000);

  it('sent with an Idempotency-Key (every kiosk sends one) they wait the same way, their answers stored with them, and a retry replays', async () => {
    const codes = await Promise.all(
      Array.from({ length: 4 }, (_, i) => org.live.post('/access-codes', { visitor_name: `Keyed ${i}`, visitor_phone: `+23480300001${10 + i}`, max_uses: 5 })),
    );
    const bodyOf = (i: number) => ({ code: codes[i % 4]!.body.access_code.code, entry_point: `Gate ${i}` });
    const keyOf = (i: number) => ({ headers: { 'idempotency-key': `kiosk-7.scan-${i}` } });
    const holder = new pg.Client({ connectionString: server.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from feed_counters where organization_id = $1 and environment = 'live' for update`, [org.organizationId]);
      // Before, each keyed validation opened a transaction of its own for its key in the middleware
      // and took one of the three connections to wait on the counter: the SOS found none.
      const validations = Array.from({ length: 8 }, (_, i) => org.live.post('/access-codes/validate', bodyOf(i), keyOf(i)));
      await expect
        .poll(async () => (await holder.query(`select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid) where not l.granted and a.datname = current_database()`)).rows[0].n, { timeout: 5_000, interval: 50 })
        .toBe(1);
      const sos = await org.live.post('/incidents', incidentBody());
      expect(sos.status, JSON.stringify(sos.body)).toBe(201);
      await holder.query('rollback');
      const answers = await Promise.all(validations);
      expect(answers.map((answer) => [answer.status, answer.body.valid, answer.headers.get('idempotent-replayed')])).toEqual(Array.from({ length: 8 }, () => [200, true, null]));
      expect(new Set(answers.map((answer) => answer.body.log_id)).size).toBe(8);

      // Each answer was stored with its change: sent again, each is replayed and consumes nothing.
      const again = await Promise.all(Array.from({ length: 8 }, (_, i) => org.live.post('/access-codes/validate', bodyOf(i), keyOf(i))));
      expect(again.map((answer) => answer.headers.get('idempotent-replayed'))).toEqual(Array.from({ length: 8 }, () => 'true'));
      expect(again.map((answer) => answer.body)).toEqual(answers.map((answer) => answer.body));
      // The same key with another body is refused, and runs nothing.
      const other = await org.live.post('/access-codes/validate', bodyOf(1), keyOf(0));
      expect(other.status).toBe(400);
      expect(other.body.message).toContain('Idempotency-Key');
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    const { body: listed } = await org.live.get('/access-codes?search=Keyed&limit=10');
    expect(listed.results.map((code: { uses_remaining: number }) => code.uses_remaining)).toEqual([3, 3, 3, 3]);
    const records = await server.running.database.db
      .selectFrom('idempotency_requests')
      .select(['state', 'response_status'])
      .where('organization_id', '=', org.organizationId)
      .where('idempotency_key', 'like', 'kiosk-7.scan-%')
      .execute();
    expect(records).toEqual(Array.from({ length: 8 }, () => ({ state: 'complete', response_status: 200 })));
  }, 60_000);
});
