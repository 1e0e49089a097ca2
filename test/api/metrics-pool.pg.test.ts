import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eventually } from '../support/private-redis.ts';
import { sample } from '../support/prometheus.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/** PostgreSQL only: the pool gauges and the dropped-connection counter of GET /metrics. */
describe('GET /metrics on PostgreSQL', () => {
  let server: TestServer;
  let org: TestOrganization;
  const scrape = async () => (await fetch(server.running.metricsUrl!)).text();
  beforeAll(async () => {
    server = await startTestServer({ config: { METRICS_PORT: '0' }, deliverWebhooks: false });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('counts pooled PostgreSQL connections the server dropped, and keeps serving', async () => {
    // Idle connections in the pool, then the server ends them all (a restart or failover looks the same).
    await Promise.all(Array.from({ length: 4 }, () => org.live.get('/incidents?limit=1')));
    const before = sample(await scrape(), 'tsaro_db_pool_errors_total')!;
    const admin = new pg.Client({ connectionString: process.env.TSARO_TEST_POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      const dbName = new URL(server.database.url).pathname.slice(1);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
    } finally {
      await admin.end();
    }
    expect(await eventually(async () => sample(await scrape(), 'tsaro_db_pool_errors_total')! > before)).toBe(true);
    expect((await org.live.get('/incidents?limit=1')).status).toBe(200);
  });
});
