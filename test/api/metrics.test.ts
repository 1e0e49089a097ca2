import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { testEngine } from '../support/database.ts';
import { sample } from '../support/prometheus.ts';

describe('GET /metrics for Prometheus', () => {
  let server: TestServer;
  let org: TestOrganization;
  const scrape = async () => {
    const res = await fetch(server.running.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };
  beforeAll(async () => {
    server = await startTestServer({ config: { METRICS_PORT: '0', WEBHOOK_TIMEOUT_S: '0.5' }, deliverWebhooks: false });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('is served on its own listener bound to 127.0.0.1, never on the API port', async () => {
    expect(server.running.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(server.running.metricsUrl!).port).not.toBe(String(server.running.port));
    expect((await server.client().get('/metrics')).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.running.port}/metrics`)).status).toBe(404);
    expect((await fetch(server.running.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('is off unless METRICS_PORT is set', async () => {
    const plain = await startTestServer();
    try {
      expect(plain.running.metricsUrl).toBeUndefined();
    } finally {
      await plain.stop();
    }
  });

  it('counts and times requests by route pattern and status, never by raw URL', async () => {
    const route = '/v1/external/incidents/:incidentId';
    const before = await scrape();
    const created = await org.live.post('/incidents', incidentBody());
    const id = created.body.incident.incident_id as string;
    for (let i = 0; i < 3; i++) expect((await org.live.get(`/incidents/${id}`)).status).toBe(200);
    expect((await org.live.get('/incidents/inc_00000000000000000000000000')).status).toBe(404);
    expect((await org.live.get('/api/v1/incidents/' + id)).status).toBe(200);
    // Paths match in any case; each spelling of the mount must not become a series of its own.
    const shouted = await fetch(`${server.running.baseUrl.replace('/v1/external', '/V1/External')}/incidents/${id}`, { headers: { authorization: `Bearer ${org.keys.live}` } });
    expect(shouted.status).toBe(200);
    await server.client().get('/no-such-route/raw-url-marker');
    const after = await scrape();

    const count = (text: string, labels: Record<string, string>) => sample(text, 'tsaro_http_requests_total', labels) ?? 0;
    expect(count(after, { method: 'GET', route, status: '200' }) - count(before, { method: 'GET', route, status: '200' })).toBe(4);
    expect(after).not.toContain('/V1/External');
    expect(count(after, { method: 'GET', route, status: '404' }) - count(before, { method: 'GET', route, status: '404' })).toBe(1);
    expect(count(after, { method: 'POST', route: '/v1/external/incidents', status: '201' })).toBeGreaterThanOrEqual(1);
    expect(count(after, { method: 'GET', route: '/v1/external/api/v1/incidents/:incidentId', status: '200' })).toBe(1);
    expect(count(after, { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    const histogram = (text: string) => sample(text, 'tsaro_http_request_duration_seconds_count', { method: 'GET', route, status: '200' }) ?? 0;
    expect(histogram(after) - histogram(before)).toBe(4);
    expect(sample(after, 'tsaro_http_request_duration_seconds_bucket', { method: 'GET', route, status: '200', le: '+Inf' })).toBe(histogram(after));
    expect(after).not.toContain(id);
    // A marker no number can contain (a metric's value once held the digits "12345" by chance).
    expect(after).not.toContain('raw-url-marker');
    expect(after).not.toContain('no-such-route');
  });

  it('shows database queries, and the PostgreSQL pool when there is one', async () => {
    const before = sample(await scrape(), 'tsaro_db_query_duration_seconds_count')!;
    await org.live.get('/incidents?limit=5');
    const text = await scrape();
    expect(sample(text, 'tsaro_db_query_duration_seconds_count')!).toBeGreaterThan(before);
    expect(sample(text, 'tsaro_db_query_errors_total')).toBe(0);
    if (testEngine() === 'postgres') {
      const total = sample(text, 'tsaro_db_pool_connections', { state: 'total' })!;
      expect(total).toBeGreaterThan(0);
      expect(sample(text, 'tsaro_db_pool_connections', { state: 'idle' })!).toBeLessThanOrEqual(total);
      expect(sample(text, 'tsaro_db_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    } else {
      expect(sample(text, 'tsaro_db_pool_connections', { state: 'total' })).toBeUndefined();
    }
  });


  it('shows the webhook outbox: deliveries waiting, then failing and retrying', async () => {
    const other = await server.createOrganization({ name: 'Outbox Estate' });
    const endpoint = await other.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/tsaro/hooks', events: ['incident.created'] });
    expect(endpoint.status).toBe(201);
    const before = await scrape();
    const pending = (text: string) => sample(text, 'tsaro_webhook_outbox_jobs', { state: 'pending' })!;
    for (let i = 0; i < 2; i++) expect((await other.live.post('/incidents', incidentBody())).status).toBe(201);
    const queued = await scrape();
    expect(pending(queued) - pending(before)).toBe(2);
    expect(sample(queued, 'tsaro_webhook_outbox_jobs', { state: 'retrying' })).toBe(0);

    // 8.8.8.8 does not answer here within the 0.5 s timeout: both first attempts fail and wait to be retried.
    await server.running.deliverWebhooks();
    const failing = await scrape();
    expect(sample(failing, 'tsaro_webhook_outbox_jobs', { state: 'retrying' })).toBe(2);
    expect(sample(failing, 'tsaro_webhook_outbox_jobs', { state: 'failed' })).toBe(0);
    await other.live.delete(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`);
  });

  it('shows dispatch deadlines waiting, and those overdue once the clock passes them', async () => {
    const waiting = (text: string) => sample(text, 'tsaro_dispatch_deadlines', { state: 'waiting' })!;
    const before = await scrape();
    expect(sample(before, 'tsaro_dispatch_deadlines', { state: 'overdue' })).toBe(0);
    await org.live.post('/incidents', incidentBody());
    const after = await scrape();
    expect(waiting(after) - waiting(before)).toBe(1);
    server.clock.advance(61_000);
    expect(sample(await scrape(), 'tsaro_dispatch_deadlines', { state: 'overdue' })).toBe(waiting(after));
    server.clock.set('2026-11-22T10:00:00.000Z');
  });

  it('shows the Redis fallback: 0 without Redis, 1 while a configured Redis does not answer', async () => {
    expect(sample(await scrape(), 'tsaro_rate_limit_fallback')).toBe(0);
    const cut = await startTestServer({ config: { METRICS_PORT: '0', REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const scrapeCut = async () => (await fetch(cut.running.metricsUrl!)).text();
      const cutOrg = await cut.createOrganization();
      expect((await cutOrg.live.get('/incidents')).status).toBe(200);
      const text = await scrapeCut();
      expect(sample(text, 'tsaro_rate_limit_fallback')).toBe(1);
      expect(sample(text, 'tsaro_rate_limit_fallbacks_total')).toBe(1);
      // Two apps in one process keep separate registries: this server's requests are not the other's.
      expect(sample(text, 'tsaro_http_requests_total', { method: 'GET', route: '/v1/external/incidents/:incidentId', status: '200' })).toBeUndefined();
    } finally {
      await cut.stop();
    }
  });
});
