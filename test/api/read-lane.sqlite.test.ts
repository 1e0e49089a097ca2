import { sql } from 'kysely';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadLaneBusy, ReadTooBroad } from '../../server/db/read-lane.ts';
import { expectErrorBody, incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Broad reads (lists, searches, stats, reports) run on a lane of their own (issue #45): on
 * PostgreSQL a pool that no SOS uses, on SQLite worker threads off the event loop. An SOS and a
 * gate's validation answer while every broad-read place is taken, and a broad read that runs too
 * long is stopped and answered 503 "too broad" (not "database unavailable", which clients retry).
 */
/** A read that keeps a SQLite thread busy for a few seconds whatever the data (a count to 20 million). */
const slowSqliteRead = sql<{ n: number }>`with recursive c(n) as (select 1 union all select n + 1 from c where n < 20000000) select count(*) as n from c`;

describe('the read lane on SQLite: worker threads', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_READ_CONCURRENCY: '1', DATABASE_READ_QUEUE_S: '0.3', DATABASE_READ_TIMEOUT_S: '300' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('the event loop, an SOS and a code validation answer while a slow broad read runs, and a list waiting for its turn is told to retry', async () => {
    const code = await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' });
    expect(code.status).toBe(201);
    let slowDone = false;
    const slow = slowSqliteRead.execute(server.running.database.readDb).finally(() => (slowDone = true));

    // The event loop is free: a request that needs only it answers while the read runs.
    const health = await server.client().get('/health');
    expect(health.status).toBe(200);
    expect(slowDone, 'the slow read was still running when health answered').toBe(false);
    const [sos, validated, list] = await Promise.all([
      org.live.post('/incidents', incidentBody()),
      org.live.post('/access-codes/validate', { code: code.body.access_code.code }),
      // The only broad-read place is taken: a list waits its turn, then is told to come back.
      org.live.get('/access-logs'),
    ]);
    expect(sos.status, JSON.stringify(sos.body)).toBe(201);
    expect(validated.body.valid).toBe(true);
    expectErrorBody(list.body, 503, expect.stringContaining('retry shortly'));
    expect(list.headers.get('retry-after')).toBe('1');

    expect((await slow).rows[0]!.n).toBe(20_000_000);
    const after = await org.live.get('/access-logs');
    expect(after.status).toBe(200);
    expect(after.body.results.map((log: { log_id: string }) => log.log_id)).toEqual([validated.body.log_id]);
    // The read thread sits below the event loop (nice 10): with the whole suite on two cores, CI
    // has seen this count take over 30 s, hence the generous limits.
  }, 300_000);

  it('a read never answers a change before it is on disk, and answers it once it is', async () => {
    const made = await org.live.post('/incidents', incidentBody({ category: 'medical' }));
    const listed = await org.live.get('/incidents?category=medical');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.results.map((incident: { incident_id: string }) => incident.incident_id)).toContain(made.body.incident.incident_id);
  });
});

describe('a broad read over its time limit on SQLite', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_READ_CONCURRENCY: '1', DATABASE_READ_QUEUE_S: '0.2', DATABASE_READ_TIMEOUT_S: '0.5' } });
  });
  afterAll(() => server.stop());

  it('is stopped with ReadTooBroad, and its thread keeps its place until its statement has ended', async () => {
    const org = await server.createOrganization();
    await expect(slowSqliteRead.execute(server.running.database.readDb)).rejects.toBeInstanceOf(ReadTooBroad);
    // The ended thread still finishes its statement: the cap of one holds meanwhile.
    await expect(sql`select 1`.execute(server.running.database.readDb)).rejects.toBeInstanceOf(ReadLaneBusy);
    await expect.poll(async () => (await org.live.get('/access-logs')).status, { timeout: 60_000, interval: 200 }).toBe(200);
  }, 90_000);
});


describe('the read threads\' priority on SQLite (DATABASE_READ_NICE)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ config: { DATABASE_READ_CONCURRENCY: '1', DATABASE_READ_NICE: '19' } });
  });
  afterAll(() => server.stop());

  /** The nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
  const threadNices = () =>
    readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });

  it.runIf(process.platform === 'linux')('is what the setting says, below the event loop\'s', async () => {
    const before = threadNices();
    expect(before).not.toContain(19);
    const { rows } = await sql<{ n: number }>`select 1 as n`.execute(server.running.database.readDb);
    expect(rows).toEqual([{ n: 1 }]);
    expect(threadNices()).toContain(19);
    // The event loop's thread keeps the priority the process was started with (0, or what `nice` gave it).
    expect(threadNices()[0]).toBe(before[0]);
  });
});
