import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asReadParty } from '../../server/db/fair-queue.ts';
import { sample } from '../support/prometheus.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The read lane takes turns between organizations (issue #45): when every broad-read place is
 * taken, the reads waiting are served one organization at a time in rotation, so a security
 * company's burst of lists and reports queues behind itself, not in front of a small partner's
 * first page. Shown with one place on the lane, held: six lists of one organization queue, then
 * one of another; once the place is free, the other's list is answered among the first, not
 * seventh as a first-come queue would have it.
 */
describe('broad reads waiting for the lane take turns between organizations', () => {
  let server: TestServer;
  let busy: TestOrganization;
  let small: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_READ_CONCURRENCY: '1', DATABASE_READ_QUEUE_S: '60', DATABASE_READ_TIMEOUT_S: '60', METRICS_PORT: '0' } });
    busy = await server.createOrganization();
    small = await server.createOrganization();
    for (const [org, name] of [[busy, 'Musa Bello'], [small, 'Ada Okafor']] as const) {
      const code = await org.live.post('/access-codes', { visitor_name: name, visitor_phone: '+2348030000001' });
      expect((await org.live.post('/access-codes/validate', { code: code.body.access_code.code })).body.valid).toBe(true);
    }
  });
  afterAll(() => server.stop());

  /** Takes the lane's one place (PostgreSQL: a read waiting on a lock; SQLite: the lane paused) and gives it back. */
  async function holdTheLane(): Promise<() => Promise<void>> {
    const database = server.running.database;
    if (database.quiesceReads) {
      const resume = await database.quiesceReads();
      return async () => resume();
    }
    const locker = new pg.Client({ connectionString: server.database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table roll_calls in access exclusive mode');
    const held = asReadParty('someone else', () => sql`select count(*) from roll_calls`.execute(database.readDb));
    await expect.poll(() => database.readLaneCounts!().running, { timeout: 10_000, interval: 20 }).toBe(1);
    return async () => {
      await locker.query('rollback');
      await held;
      await locker.end();
    };
  }

  it("one organization's queued lists do not hold another's first page behind them", async () => {
    const lane = () => server.running.database.readLaneCounts!();
    const release = await holdTheLane();
    const finished: string[] = [];
    const answered = (who: string) => (answer: { status: number; body: { results: Array<{ visitor_name: string }> } }) => {
      finished.push(who);
      return answer;
    };
    const busyLists = Array.from({ length: 6 }, (_, i) => busy.live.get('/access-logs').then(answered(`busy ${i}`)));
    await expect.poll(() => lane().waiting, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(6);
    const queuedBefore = lane().waiting;
    const smallList = small.live.get('/access-logs').then(answered('small'));
    await expect.poll(() => lane().waiting, { timeout: 10_000, interval: 20 }).toBeGreaterThan(queuedBefore);
    await release();

    const [smallAnswer, ...busyAnswers] = await Promise.all([smallList, ...busyLists]);
    expect(smallAnswer.status).toBe(200);
    expect(smallAnswer.body.results.map((visit) => visit.visitor_name)).toEqual(['Ada Okafor']);
    for (const answer of busyAnswers) expect(answer.body.results.map((visit) => visit.visitor_name)).toEqual(['Musa Bello']);
    // Turns are by statement: each of the small list's statements (its page, its total) waits for
    // at most one of the busy organization's. First come, first served would answer it seventh.
    expect(finished.indexOf('small'), finished.join(', ')).toBeLessThanOrEqual(3);
    expect(lane()).toEqual({ running: 0, waiting: 0 });
  }, 60_000);

  it('tells Prometheus how many broad reads run and wait', async () => {
    const release = await holdTheLane();
    const list = busy.live.get('/access-logs');
    await expect.poll(() => server.running.database.readLaneCounts!().waiting, { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
    const text = await (await fetch(server.running.metricsUrl!)).text();
    expect(sample(text, 'tsaro_db_read_lane', { state: 'waiting' })).toBeGreaterThan(0);
    await release();
    expect((await list).status).toBe(200);
    const after = await (await fetch(server.running.metricsUrl!)).text();
    expect(sample(after, 'tsaro_db_read_lane', { state: 'running' })).toBe(0);
    expect(sample(after, 'tsaro_db_read_lane', { state: 'waiting' })).toBe(0);
  });
});
