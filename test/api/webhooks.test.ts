import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../shared/webhooks.ts';
import { incidentBody, startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/** One request a receiver got, exactly as it arrived. */
interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body bytes as received, before any parsing. */
  raw: Buffer;
  body: any;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

/** A partner's webhook receiver on loopback: records every request and answers from a programmable sequence. */
interface Receiver {
  url(path?: string): string;
  received: Received[];
  /** Requests whose path is `path`. */
  at(path: string): Received[];
}

const receivers: { server: Server; timers: Set<NodeJS.Timeout> }[] = [];

/** `answers[i]` answers request i; past the end the last one repeats (default: 200). */
async function startReceiver(answers: Answer[] = [{ status: 200 }]): Promise<Receiver> {
  const received: Received[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const answer = answers[Math.min(received.length, answers.length - 1)] ?? { status: 200 };
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body });
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          reply();
        }, answer.delayMs);
        timers.add(timer);
      } else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receivers.push({ server, timers });
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path) => received.filter((request) => request.path === path),
  };
}

/** `t` and every `v1` of an Svc-Signature header. */
function parseSignature(header: string | string[] | undefined): { t: number; v1: string[] } {
  expect(typeof header).toBe('string');
  const parts = (header as string).split(',').map((part) => part.split('='));
  const t = parts.filter(([name]) => name === 't').map(([, value]) => Number(value));
  expect(t).toHaveLength(1);
  return { t: t[0]!, v1: parts.filter(([name]) => name === 'v1').map(([, value]) => value!) };
}

/** What a receiver without our library would do: HMAC-SHA256 over `${t}.` and the raw bytes. */
function hmacOf(secret: string, t: number, raw: Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex');
}

function signedBy(secret: string, request: Received): boolean {
  const { t, v1 } = parseSignature(request.headers['svc-signature']);
  const expected = Buffer.from(hmacOf(secret, t, request.raw), 'hex');
  return v1.some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing repair', host_user_id: 'resident-14B' };

describe('webhooks and the event log', () => {
  let server: TestServer;
  /** Every organization made by a test: its endpoints are deleted after the test, so no queued delivery leaks into the next. */
  const made: TestOrganization[] = [];

  beforeAll(async () => {
    server = await startTestServer({ deliverWebhooks: false, config: { WEBHOOK_TIMEOUT_S: '0.5' } });
  });
  afterEach(async () => {
    for (const org of made.splice(0)) {
      for (const client of [org.live, org.sandbox]) {
        const { body } = await client.get('/webhook-endpoints?limit=100');
        for (const endpoint of body.results as { endpoint_id: string }[]) await client.delete(`/webhook-endpoints/${endpoint.endpoint_id}`);
      }
    }
  });
  afterAll(async () => {
    await server.stop();
    for (const { server: receiver, timers } of receivers) {
      for (const timer of timers) clearTimeout(timer);
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  const newOrganization = async (name = 'Lekki Gardens Estate') => {
    const org = await server.createOrganization({ name });
    made.push(org);
    return org;
  };
  const register = async (client: ApiClient, url: string, events: string[] = ['*'], description?: string) => {
    const res = await client.post('/webhook-endpoints', { url, events, ...(description !== undefined && { description }) });
    expect(res.status).toBe(201);
    return res.body as { webhook_endpoint: { endpoint_id: string } & Record<string, unknown>; secret: string };
  };
  const deliveries = async (client: ApiClient, endpointId: string) => {
    const res = await client.get(`/webhook-endpoints/${endpointId}/deliveries?limit=100`);
    expect(res.status).toBe(200);
    return (res.body.results as { attempt: number }[]).slice().sort((a, b) => a.attempt - b.attempt) as any[];
  };
  const deliver = () => server.running.deliverWebhooks();
  const nowIso = () => server.clock.now().toISOString();
  const nowSeconds = () => Math.floor(server.clock.now().getTime() / 1000);

  describe('endpoints', () => {
    it('an admin registers an endpoint: 201 with the endpoint and a whsec_ secret shown once, never again in GET or list', async () => {
      const org = await newOrganization();
      const res = await org.live.post('/webhook-endpoints', {
        url: 'https://8.8.8.8/tsaro/hooks',
        events: ['incident.*', 'access_code.created'],
        description: 'Control room',
      });
      expect(res.status).toBe(201);
      const { webhook_endpoint: endpoint, secret } = res.body;
      expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);
      expect(endpoint).toEqual({
        endpoint_id: expect.stringMatching(/^whe_[0-9A-Z]{26}$/),
        url: 'https://8.8.8.8/tsaro/hooks',
        description: 'Control room',
        events: ['incident.*', 'access_code.created'],
        site_ids: null,
        status: 'enabled',
        environment: 'live',
        secret_rotated_at: null,
        previous_secret_expires_at: null,
        secret_rotation_due: false,
        created_at: nowIso(),
        updated_at: nowIso(),
      });

      const one = await org.live.get(`/webhook-endpoints/${endpoint.endpoint_id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ webhook_endpoint: endpoint });
      expect(JSON.stringify(one.body)).not.toContain(secret);
      expect(JSON.stringify(one.body)).not.toContain('whsec_');

      const list = await org.live.get('/webhook-endpoints');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ results: [endpoint], page: 1, limit: 20, totalPages: 1, totalResults: 1, next_cursor: null });
      expect(JSON.stringify(list.body)).not.toContain('whsec_');

      // Another organization, and the same organization's sandbox, do not see it.
      const other = await newOrganization('Other Estate');
      expect((await other.live.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(404);
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(404);
      expect((await org.sandbox.get('/webhook-endpoints')).body.totalResults).toBe(0);
    });

    it('a retry with the same Idempotency-Key replays the same endpoint and secret, and creates no second one', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const body = { url: receiver.url(), events: ['*'] };
      const first = await org.sandbox.post('/webhook-endpoints', body, { headers: { 'idempotency-key': 'register-hook-1' } });
      const retry = await org.sandbox.post('/webhook-endpoints', body, { headers: { 'idempotency-key': 'register-hook-1' } });
      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.webhook_endpoint.endpoint_id).toBe(first.body.webhook_endpoint.endpoint_id);
      expect(retry.body.secret).toBe(first.body.secret);
      const list = await org.sandbox.get('/webhook-endpoints');
      expect(list.body.totalResults).toBe(1);

      // One endpoint, so one delivery per event.
      await org.sandbox.post('/incidents', incidentBody());
      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(1);
      expect(signedBy(first.body.secret, receiver.received[0]!)).toBe(true);
    });

    it('a disabled endpoint gets nothing; enabled again, it gets the events that follow', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url());

      const disabled = await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: 'disabled' });
      expect(disabled.status).toBe(200);
      expect(disabled.body.webhook_endpoint.status).toBe('disabled');
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).body.webhook_endpoint.status).toBe('disabled');

      const whileDisabled = await org.sandbox.post('/incidents', incidentBody());
      expect(whileDisabled.status).toBe(201);
      await deliver();
      server.clock.advance(10 * MINUTE);
      await deliver();
      expect(receiver.received).toHaveLength(0);

      const enabled = await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: 'enabled' });
      expect(enabled.body.webhook_endpoint.status).toBe('enabled');
      const afterwards = await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.body.data.incident_id).toBe(afterwards.body.incident.incident_id);
    });

    it('an event queued before the endpoint was disabled is not sent while it is disabled', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url());
      await org.sandbox.post('/incidents', incidentBody());
      await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: 'disabled' });
      await deliver();
      await deliver();
      expect(receiver.received).toHaveLength(0);
      expect(await deliveries(org.sandbox, endpoint.endpoint_id)).toEqual([]);
    });

    it('DELETE answers 200; then the endpoint is 404, gone from the list, and its queued deliveries are cancelled', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url());
      const { webhook_endpoint: kept } = await register(org.sandbox, receiver.url('/kept'));
      await org.sandbox.post('/incidents', incidentBody());

      const res = await org.sandbox.delete(`/webhook-endpoints/${endpoint.endpoint_id}`);
      expect(res.status).toBe(200);
      expect(res.body.webhook_endpoint.endpoint_id).toBe(endpoint.endpoint_id);
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(404);
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`)).status).toBe(404);
      expect((await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: 'enabled' })).status).toBe(404);
      expect((await org.sandbox.delete(`/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(404);
      const list = await org.sandbox.get('/webhook-endpoints');
      expect(list.body.results.map((e: { endpoint_id: string }) => e.endpoint_id)).toEqual([kept.endpoint_id]);

      // Only the endpoint still registered is attempted.
      expect(await deliver()).toBe(1);
      expect(receiver.at('/hook')).toHaveLength(0);
      expect(receiver.at('/kept')).toHaveLength(1);
      await org.sandbox.post('/incidents', incidentBody());
      server.clock.advance(HOUR);
      await deliver();
      expect(receiver.at('/hook')).toHaveLength(0);
    });

    it('PATCH changes url, events and description; a foreign endpoint is 404', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url('/old'), ['incident.created'], 'first');
      server.clock.advance(SECOND);
      const res = await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, {
        url: receiver.url('/new'),
        events: ['access_code.*'],
        description: null,
      });
      expect(res.status).toBe(200);
      expect(res.body.webhook_endpoint).toMatchObject({ url: receiver.url('/new'), events: ['access_code.*'], description: null, updated_at: nowIso() });
      await org.sandbox.post('/incidents', incidentBody());
      const code = await org.sandbox.post('/access-codes', visitor);
      await deliver();
      expect(receiver.received.map((r) => [r.path, r.body.type])).toEqual([['/new', 'access_code.created']]);
      expect(receiver.received[0]!.body.data.code_id).toBe(code.body.access_code.code_id);

      const other = await newOrganization('Other Estate');
      expect((await other.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: 'disabled' })).status).toBe(404);
      expect((await other.sandbox.delete(`/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(404);
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).body.webhook_endpoint.status).toBe('enabled');
    });

    it.each([
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url'],
      [{ events: ['*'] }, 'url'],
      [{ url: 'http://127.0.0.1:9/x', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:9/x', events: ['incident.exploded'] }, 'events'],
      [{ url: 'http://127.0.0.1:9/x', events: ['incident*'] }, 'events'],
      [{ url: 'http://127.0.0.1:9/x' }, 'events'],
      [{ url: 'http://127.0.0.1:9/x', events: ['*'], secret: 'mine' }, 'secret'],
    ])('an invalid registration %j is a 400 naming %s', async (body, field) => {
      const org = await newOrganization();
      const res = await org.sandbox.post('/webhook-endpoints', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain(field);
      expect((await org.sandbox.get('/webhook-endpoints')).body.totalResults).toBe(0);
    });
  });

  describe('where endpoints may point (SSRF)', () => {
    it.each([
      'http://127.0.0.1/x',
      'https://127.0.0.1/x',
      'https://169.254.169.254/latest',
      'https://10.0.0.5/x',
      'https://[::1]/x',
      'https://192.168.1.10/x',
      'https://172.16.0.1/x',
      'https://localhost/x',
      'http://example.com/',
    ])('a live endpoint at %s is refused with a 400 naming url, and nothing is registered', async (url) => {
      const org = await newOrganization();
      const res = await org.live.post('/webhook-endpoints', { url, events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain('url');
      expect((await org.live.get('/webhook-endpoints')).body.totalResults).toBe(0);
    });

    it('a live endpoint may be https on a public address, but may not be moved to a private one', async () => {
      const org = await newOrganization();
      const { webhook_endpoint: endpoint } = await register(org.live, 'https://8.8.8.8/hooks', ['incident.*']);
      const res = await org.live.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { url: 'https://10.0.0.5/x' });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('url');
      expect((await org.live.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).body.webhook_endpoint.url).toBe('https://8.8.8.8/hooks');
    });

    it('a sandbox endpoint may be http on loopback (the tests set WEBHOOK_ALLOW_PRIVATE), but never link-local or reserved', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const ok = await org.sandbox.post('/webhook-endpoints', { url: receiver.url(), events: ['*'] });
      expect(ok.status).toBe(201);
      expect(ok.body.webhook_endpoint.environment).toBe('sandbox');
      for (const url of ['http://169.254.169.254/', 'http://0.0.0.0:8080/', 'http://[fe80::1]/']) {
        const res = await org.sandbox.post('/webhook-endpoints', { url, events: ['*'] });
        expect(res.status, url).toBe(400);
        expect(res.body.message, url).toContain('url');
      }
      expect((await org.sandbox.get('/webhook-endpoints')).body.totalResults).toBe(1);
    });
  });

  describe('deliveries', () => {
    it('every event reaches the endpoint as the signed envelope {id, type, created_at, data}, data equal to the REST resource', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint, secret } = await register(org.sandbox, receiver.url(), ['incident.*']);

      const created = await org.sandbox.post('/incidents', incidentBody({ description: 'Panic button at gate 3' }));
      expect(created.status).toBe(201);
      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(1);
      const request = receiver.received[0]!;

      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(request.body)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(request.body).toEqual({
        id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
        type: 'incident.created',
        created_at: nowIso(),
        data: created.body.incident,
      });
      expect(request.headers['svc-event-id']).toBe(request.body.id);
      expect(request.headers['svc-event-type']).toBe('incident.created');

      // The event log holds the same envelope.
      const logged = await org.sandbox.get(`/events/${request.body.id}`);
      expect(logged.status).toBe(200);
      expect(logged.body.event).toEqual(request.body);

      // The signature: Stripe's scheme, t the send time in unix seconds.
      const header = request.headers['svc-signature'] as string;
      const { t, v1 } = parseSignature(header);
      expect(t).toBe(nowSeconds());
      expect(v1).toHaveLength(1);
      expect(v1[0]).toBe(hmacOf(secret, t, request.raw));
      expect(signedBy(secret, request)).toBe(true);
      const rawText = request.raw.toString('utf8');
      expect(await verifyWebhookSignature(rawText, header, secret, { now: nowSeconds() })).toBe(true);
      // ... and only that secret, that body and that time.
      expect(await verifyWebhookSignature(rawText, header, 'whsec_someone_else', { now: nowSeconds() })).toBe(false);
      expect(await verifyWebhookSignature(rawText.replace('Panic button', 'Panic Button'), header, secret, { now: nowSeconds() })).toBe(false);
      expect(await verifyWebhookSignature(rawText, header, secret, { now: nowSeconds() + 301 })).toBe(false);
      expect(signedBy('whsec_someone_else', request)).toBe(false);

      const [delivery] = await deliveries(org.sandbox, endpoint.endpoint_id);
      expect(delivery).toEqual({
        delivery_id: expect.stringMatching(/^whd_[0-9A-Z]{26}$/),
        endpoint_id: endpoint.endpoint_id,
        event_id: request.body.id,
        event_type: 'incident.created',
        attempt: 1,
        status: 'succeeded',
        response_status: 200,
        // The test receiver answers "ok".
        response_excerpt: 'ok',
        error: null,
        duration_ms: expect.any(Number),
        attempted_at: nowIso(),
        next_attempt_at: null,
        payload: request.body,
      });
      expect(delivery.duration_ms).toBeGreaterThanOrEqual(0);

      // Delivered once: nothing more, however long we wait.
      server.clock.advance(HOUR);
      expect(await deliver()).toBe(0);
      expect(receiver.received).toHaveLength(1);
    });

    it('each endpoint gets exactly the types it subscribes to, exact or wildcard', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const subscriptions: Record<string, string[]> = {
        '/incidents': ['incident.*'],
        '/codes': ['access_code.*'],
        '/visitors': ['visitor.*'],
        '/everything': ['*'],
        '/cancelled-only': ['incident.cancelled'],
        '/mixed': ['access_code.created', 'visitor.arrived'],
      };
      for (const [path, events] of Object.entries(subscriptions)) await register(org.sandbox, receiver.url(path), events);

      const incident = await org.sandbox.post('/incidents', incidentBody());
      const code = await org.sandbox.post('/access-codes', visitor);
      const log = await org.sandbox.post('/access-logs', { visitor_name: 'Walk-in Guest', visitor_phone: '+2348030000002' });
      const cancelled = await org.sandbox.post(`/incidents/${incident.body.incident.incident_id}/cancel`, { reason: 'False alarm' });
      const revoked = await org.sandbox.delete(`/access-codes/${code.body.access_code.code_id}`);
      expect([incident.status, code.status, log.status, cancelled.status, revoked.status]).toEqual([201, 201, 201, 200, 200]);

      await deliver();
      const types = (path: string) => receiver.at(path).map((r) => r.body.type as string).sort();
      expect(types('/incidents')).toEqual(['incident.cancelled', 'incident.created']);
      expect(types('/codes')).toEqual(['access_code.created', 'access_code.revoked']);
      expect(types('/visitors')).toEqual(['visitor.arrived']);
      expect(types('/everything')).toEqual(
        ['access_code.created', 'access_code.revoked', 'incident.cancelled', 'incident.created', 'visitor.arrived'].sort(),
      );
      expect(types('/cancelled-only')).toEqual(['incident.cancelled']);
      expect(types('/mixed')).toEqual(['access_code.created', 'visitor.arrived']);

      // data is the REST representation of each resource.
      const byType = (type: string) => receiver.at('/everything').find((r) => r.body.type === type)!.body.data;
      expect(byType('incident.cancelled')).toEqual(cancelled.body.incident);
      expect(byType('access_code.created')).toEqual(code.body.access_code);
      expect(byType('visitor.arrived')).toEqual(log.body.access_log);
      expect(byType('access_code.revoked').status).toBe('revoked');
    });

    it("another organization's events, and the same organization's other environment's, never reach an endpoint", async () => {
      const org = await newOrganization();
      const other = await newOrganization('Other Estate');
      const receiver = await startReceiver();
      await register(org.sandbox, receiver.url(), ['*']);

      await other.sandbox.post('/incidents', incidentBody());
      await other.sandbox.post('/access-codes', visitor);
      await org.live.post('/incidents', incidentBody());
      await org.live.post('/access-codes', visitor);
      await deliver();
      server.clock.advance(HOUR);
      await deliver();
      expect(receiver.received).toHaveLength(0);

      const own = await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(receiver.received.map((r) => r.body.data.incident_id)).toEqual([own.body.incident.incident_id]);
    });

    it('a receiver answering 500 then 200 gets the retry at once, and nothing after the success', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver([{ status: 500 }, { status: 200 }]);
      const { webhook_endpoint: endpoint, secret } = await register(org.sandbox, receiver.url(), ['incident.created']);
      await org.sandbox.post('/incidents', incidentBody());
      const sentAt = nowIso();

      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(1);
      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(2);
      expect(await deliver()).toBe(0);
      server.clock.advance(10 * MINUTE);
      expect(await deliver()).toBe(0);
      expect(receiver.received).toHaveLength(2);

      const [first, second] = receiver.received;
      expect(second!.body.id).toBe(first!.body.id);
      expect(second!.raw.equals(first!.raw)).toBe(true);
      expect(signedBy(secret, first!)).toBe(true);
      expect(signedBy(secret, second!)).toBe(true);

      expect(await deliveries(org.sandbox, endpoint.endpoint_id)).toEqual([
        expect.objectContaining({ attempt: 1, status: 'failed', response_status: 500, attempted_at: sentAt, next_attempt_at: sentAt }),
        expect.objectContaining({ attempt: 2, status: 'succeeded', response_status: 200, error: null, attempted_at: sentAt, next_attempt_at: null }),
      ]);
      const failed = (await deliveries(org.sandbox, endpoint.endpoint_id))[0];
      expect(failed.error).toContain('500');
      const onlyFailed = await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries?status=failed`);
      expect(onlyFailed.body.results.map((d: { attempt: number }) => d.attempt)).toEqual([1]);
    });

    it('a receiver that keeps failing is tried at once, again at once, after 30 s and after 5 min; then about hourly', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver([{ status: 500 }]);
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url(), ['incident.*']);
      await org.sandbox.post('/incidents', incidentBody());
      const t0 = server.clock.now().getTime();
      const at = (ms: number) => new Date(t0 + ms).toISOString();

      expect(await deliver()).toBe(1); // attempt 1
      expect(await deliver()).toBe(1); // attempt 2: at once, same clock time
      expect(receiver.received).toHaveLength(2);
      expect(await deliver()).toBe(0); // attempt 3 waits 30 s
      server.clock.advance(30 * SECOND - 1);
      expect(await deliver()).toBe(0);
      expect(receiver.received).toHaveLength(2);
      server.clock.advance(1);
      expect(await deliver()).toBe(1); // attempt 3
      expect(receiver.received).toHaveLength(3);
      server.clock.advance(5 * MINUTE - 1);
      expect(await deliver()).toBe(0);
      expect(receiver.received).toHaveLength(3);
      server.clock.advance(1);
      expect(await deliver()).toBe(1); // attempt 4
      expect(receiver.received).toHaveLength(4);
      // Then hourly, spread by up to 6 minutes either way.
      server.clock.advance(54 * MINUTE - 1);
      expect(await deliver()).toBe(0);
      expect(receiver.received).toHaveLength(4);
      server.clock.advance(12 * MINUTE + 1);
      expect(await deliver()).toBe(1); // attempt 5
      expect(receiver.received).toHaveLength(5);

      // The same event every time, signed at the time of each attempt.
      expect(new Set(receiver.received.map((r) => r.headers['svc-event-id'])).size).toBe(1);
      expect(receiver.received.slice(0, 4).map((r) => parseSignature(r.headers['svc-signature']).t)).toEqual(
        [0, 0, 30 * SECOND, 330 * SECOND].map((ms) => Math.floor((t0 + ms) / 1000)),
      );

      const attempts = await deliveries(org.sandbox, endpoint.endpoint_id);
      expect(attempts.slice(0, 3).map((d) => [d.attempt, d.status, d.response_status, d.attempted_at, d.next_attempt_at])).toEqual([
        [1, 'failed', 500, at(0), at(0)],
        [2, 'failed', 500, at(0), at(30 * SECOND)],
        [3, 'failed', 500, at(30 * SECOND), at(330 * SECOND)],
      ]);
      expect(attempts[3]).toMatchObject({ attempt: 4, status: 'failed', attempted_at: at(330 * SECOND) });
      const hourly = Date.parse(attempts[3].next_attempt_at) - (t0 + 330 * SECOND);
      expect(hourly).toBeGreaterThanOrEqual(54 * MINUTE);
      expect(hourly).toBeLessThanOrEqual(66 * MINUTE);
      expect(attempts[4]).toMatchObject({ attempt: 5, status: 'failed', next_attempt_at: expect.any(String) });
      for (const attempt of attempts) {
        expect(attempt.error).toEqual(expect.stringContaining('500'));
        expect(Number.isInteger(attempt.duration_ms)).toBe(true);
        expect(attempt.event_id).toBe(receiver.received[0]!.body.id);
      }
    });

    it('a receiver slower than WEBHOOK_TIMEOUT_S is a failed attempt with a timeout error', async () => {
      const org = await newOrganization();
      // The receiver would answer after 10 s; the server gives up at 0.5 s. The bounds below sit
      // far from both, so a loaded host's slower pass cannot blur them.
      const receiver = await startReceiver([{ status: 200, delayMs: 10_000 }]);
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url(), ['*']);
      await org.sandbox.post('/incidents', incidentBody());
      const started = performance.now();
      expect(await deliver()).toBe(1);
      expect(performance.now() - started).toBeLessThan(8_000);
      expect(receiver.received).toHaveLength(1);

      const [attempt] = await deliveries(org.sandbox, endpoint.endpoint_id);
      expect(attempt).toMatchObject({ attempt: 1, status: 'failed', response_status: null, next_attempt_at: nowIso() });
      expect(attempt.error).toMatch(/time[ d]?out/i);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(400);
      expect(attempt.duration_ms).toBeLessThan(8_000);
    });

    it('a redirect is not followed: the attempt fails naming the redirect, and the other server receives nothing', async () => {
      const org = await newOrganization();
      const elsewhere = await startReceiver();
      const receiver = await startReceiver([{ status: 302, headers: { location: elsewhere.url('/landing') } }]);
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url(), ['*']);
      await org.sandbox.post('/incidents', incidentBody());
      expect(await deliver()).toBe(1);
      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(2);
      expect(elsewhere.received).toHaveLength(0);

      const attempts = await deliveries(org.sandbox, endpoint.endpoint_id);
      expect(attempts).toHaveLength(2);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ status: 'failed', response_status: 302 });
        expect(attempt.error).toMatch(/redirect/i);
      }
    });
  });

  describe('secret rotation', () => {
    it('for expires_in_hours the delivery carries two v1 signatures, old and new secret; after the expiry only the new one', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint, secret: oldSecret } = await register(org.sandbox, receiver.url(), ['incident.*']);

      const rotated = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 24 });
      expect(rotated.status).toBe(200);
      const newSecret = rotated.body.secret as string;
      expect(newSecret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);
      expect(newSecret).not.toBe(oldSecret);
      const expiresAt = new Date(server.clock.now().getTime() + 24 * HOUR).toISOString();
      expect(rotated.body.webhook_endpoint).toMatchObject({
        endpoint_id: endpoint.endpoint_id,
        secret_rotated_at: nowIso(),
        previous_secret_expires_at: expiresAt,
      });
      const shown = await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`);
      expect(shown.body.webhook_endpoint.previous_secret_expires_at).toBe(expiresAt);
      expect(JSON.stringify(shown.body)).not.toContain(newSecret);
      expect(JSON.stringify(shown.body)).not.toContain(oldSecret);

      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      const during = receiver.received[0]!;
      const { t, v1 } = parseSignature(during.headers['svc-signature']);
      expect(v1).toHaveLength(2);
      expect(v1.sort()).toEqual([hmacOf(oldSecret, t, during.raw), hmacOf(newSecret, t, during.raw)].sort());
      const header = during.headers['svc-signature'] as string;
      expect(await verifyWebhookSignature(during.raw.toString('utf8'), header, oldSecret, { now: t })).toBe(true);
      expect(await verifyWebhookSignature(during.raw.toString('utf8'), header, newSecret, { now: t })).toBe(true);

      // Just before the expiry the old one still signs...
      server.clock.advance(24 * HOUR - SECOND);
      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(parseSignature(receiver.received[1]!.headers['svc-signature']).v1).toHaveLength(2);

      // ... past it, only the new one.
      server.clock.advance(2 * SECOND);
      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(receiver.received).toHaveLength(3);
      const after = receiver.received[2]!;
      expect(parseSignature(after.headers['svc-signature']).v1).toHaveLength(1);
      expect(signedBy(newSecret, after)).toBe(true);
      expect(signedBy(oldSecret, after)).toBe(false);
      const afterHeader = after.headers['svc-signature'] as string;
      const afterT = parseSignature(afterHeader).t;
      expect(await verifyWebhookSignature(after.raw.toString('utf8'), afterHeader, newSecret, { now: afterT })).toBe(true);
      expect(await verifyWebhookSignature(after.raw.toString('utf8'), afterHeader, oldSecret, { now: afterT })).toBe(false);
    });

    it('expires_in_hours 0 drops the old secret at once', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint, secret: oldSecret } = await register(org.sandbox, receiver.url(), ['incident.*']);
      const rotated = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 0 });
      expect(rotated.status).toBe(200);
      expect(rotated.body.webhook_endpoint.previous_secret_expires_at).toBeNull();
      const newSecret = rotated.body.secret as string;

      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      const request = receiver.received[0]!;
      expect(parseSignature(request.headers['svc-signature']).v1).toHaveLength(1);
      expect(signedBy(newSecret, request)).toBe(true);
      expect(signedBy(oldSecret, request)).toBe(false);
    });

    it('rotating a foreign endpoint is 404, and an out-of-range expires_in_hours is a 400 naming it', async () => {
      const org = await newOrganization();
      const other = await newOrganization('Other Estate');
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url());
      expect((await other.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 1 })).status).toBe(404);
      const bad = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: -1 });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('expires_in_hours');
      expect((await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).body.webhook_endpoint.secret_rotated_at).toBeNull();
    });
  });

  describe('resend by hand', () => {
    it('POST /deliveries {event_id} answers 202 and the receiver gets the same event again', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint, secret } = await register(org.sandbox, receiver.url(), ['incident.*']);
      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(receiver.received).toHaveLength(1);
      const eventId = receiver.received[0]!.body.id as string;

      server.clock.advance(MINUTE);
      const res = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { event_id: eventId });
      expect(res.status).toBe(202);
      expect(await deliver()).toBe(1);
      expect(receiver.received).toHaveLength(2);
      const again = receiver.received[1]!;
      expect(again.headers['svc-event-id']).toBe(eventId);
      expect(again.body).toEqual(receiver.received[0]!.body);
      expect(signedBy(secret, again)).toBe(true);
      expect(parseSignature(again.headers['svc-signature']).t).toBe(nowSeconds());

      const forEvent = await org.sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries?event_id=${eventId}`);
      expect(forEvent.body.totalResults).toBe(2);
      expect(forEvent.body.results.every((d: { status: string; event_id: string }) => d.status === 'succeeded' && d.event_id === eventId)).toBe(true);
    });

    it('an event of a type the endpoint is not subscribed to is a 409 naming event_id: a resend goes only where live deliveries would (issue #46)', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url(), ['access_code.*']);
      await org.sandbox.post('/incidents', incidentBody());
      await deliver();
      expect(receiver.received).toHaveLength(0);
      const { body } = await org.sandbox.get('/events?type=incident.created');
      const eventId = body.results[0].id as string;
      const res = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { event_id: eventId });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: `event_id: ${eventId} is a incident.created event, and this endpoint is not subscribed to incident.created: live deliveries never send it there` });
      // Subscribed since: it goes.
      expect((await org.sandbox.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { events: ['incident.*'] })).status).toBe(200);
      expect((await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { event_id: eventId })).status).toBe(202);
      await deliver();
      expect(receiver.received.map((r) => r.body.id)).toEqual([eventId]);
    });

    it("an endpoint limited to a site is resent only that site's events, by hand or as failures, as live deliveries send them (issue #46)", async () => {
      const org = await newOrganization();
      const siteOf = async (name: string) => (await org.live.post('/sites', { name })).body.site.site_id as string;
      const [a, b] = [await siteOf('Admiralty Estate'), await siteOf('Banana Island Estate')];
      const receiver = await startReceiver([{ status: 500 }]);
      const limited = await org.sandbox.post('/webhook-endpoints', { url: receiver.url(), events: ['incident.*'], site_ids: [a, b] });
      expect(limited.status).toBe(201);
      const endpointId = limited.body.webhook_endpoint.endpoint_id as string;
      const from = nowIso();
      const eventOf = async (siteId?: string) => {
        const incident = (await org.sandbox.post('/incidents', incidentBody({ site_id: siteId }))).body.incident;
        return (await org.sandbox.get(`/events?resource_id=${incident.incident_id}`)).body.results[0].id as string;
      };
      const [atA, atB, nowhere] = [await eventOf(a), await eventOf(b), await eventOf()];
      await deliver();
      // Live deliveries: A's and B's (each tried again at once, failing), none about no site.
      expect([...new Set(receiver.received.map((r) => r.body.id))].sort()).toEqual([atA, atB].sort());
      // Now limited to A: B's event, and one about no site, are not its to receive again.
      expect((await org.sandbox.patch(`/webhook-endpoints/${endpointId}`, { site_ids: [a] })).status).toBe(200);
      const resend = (eventId: string) => org.sandbox.post(`/webhook-endpoints/${endpointId}/deliveries`, { event_id: eventId });
      expect((await resend(atB)).body).toEqual({ code: 409, message: `event_id: ${atB} is about site ${b}, and this endpoint is limited to other sites: live deliveries never send it there` });
      expect((await resend(nowhere)).body).toEqual({ code: 409, message: `event_id: ${nowhere} is about no site, and this endpoint is limited to other sites: live deliveries never send it there` });
      server.clock.advance(MINUTE);
      const failures = await org.sandbox.post(`/webhook-endpoints/${endpointId}/resend-failed`, { from, to: nowIso() });
      // Both failed; only A's is still the endpoint's to receive.
      expect(failures.body).toEqual({ queued: 1 });
      const failedForB = (await org.sandbox.get(`/webhook-endpoints/${endpointId}/deliveries?event_id=${atB}`)).body.results as { status: string }[];
      expect(failedForB.length).toBeGreaterThan(0);
      expect(failedForB.every((delivery) => delivery.status === 'failed')).toBe(true);
      expect((await org.sandbox.get(`/webhook-endpoints/${endpointId}/deliveries?event_id=${nowhere}`)).body.totalResults).toBe(0);
      expect((await resend(atA)).status).toBe(202);
    });

    it("an unknown event id, another organization's or another environment's, is a 404 and queues nothing", async () => {
      const org = await newOrganization();
      const other = await newOrganization('Other Estate');
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url(), ['incident.*']);
      await other.sandbox.post('/incidents', incidentBody());
      await org.live.post('/incidents', incidentBody());
      const foreign = (await other.sandbox.get('/events')).body.results[0].id as string;
      const otherEnvironment = (await org.live.get('/events')).body.results[0].id as string;
      expect(foreign).toMatch(/^evt_/);
      expect(otherEnvironment).toMatch(/^evt_/);

      for (const eventId of ['evt_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', foreign, otherEnvironment]) {
        const res = await org.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { event_id: eventId });
        expect(res.status, eventId).toBe(404);
        expect(res.body.code).toBe(404);
      }
      // Nor to another organization's endpoint.
      const ownEvent = (await org.sandbox.post('/incidents', incidentBody())).body.incident.incident_id as string;
      const ownEventId = (await org.sandbox.get(`/events?resource_id=${ownEvent}`)).body.results[0].id as string;
      expect((await other.sandbox.post(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { event_id: ownEventId })).status).toBe(404);

      await deliver();
      expect(receiver.received.map((r) => r.body.id)).toEqual([ownEventId]);
    });
  });

  describe('the event log', () => {
    it('GET /events lists the organization’s events newest first in the page shape, with type, resource_id and date filters', async () => {
      const org = await newOrganization();
      const t0 = server.clock.now();
      const first = await org.live.post('/incidents', incidentBody());
      server.clock.advance(MINUTE);
      const code = await org.live.post('/access-codes', visitor);
      server.clock.advance(MINUTE);
      const cancelled = await org.live.post(`/incidents/${first.body.incident.incident_id}/cancel`, {});
      server.clock.advance(MINUTE);
      const second = await org.live.post('/incidents', incidentBody({ severity: 'low' }));
      expect([first.status, code.status, cancelled.status, second.status]).toEqual([201, 201, 200, 201]);
      const iso = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE).toISOString();

      const all = await org.live.get('/events');
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 4 });
      expect(all.body.results.map((e: { type: string; created_at: string }) => [e.type, e.created_at])).toEqual([
        ['incident.created', iso(3)],
        ['incident.cancelled', iso(2)],
        ['access_code.created', iso(1)],
        ['incident.created', iso(0)],
      ]);
      for (const event of all.body.results) {
        expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'type']);
        expect(event.id).toMatch(/^evt_[0-9A-Z]{26}$/);
      }
      expect(all.body.results[0].data).toEqual(second.body.incident);
      expect(all.body.results[1].data).toEqual(cancelled.body.incident);
      expect(all.body.results[2].data).toEqual(code.body.access_code);
      expect(all.body.results[3].data).toEqual(first.body.incident);

      const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((e) => e.id);
      const [e3, e2, e1, e0] = ids(all);

      const paged = await org.live.get('/events?limit=3&page=2');
      expect(paged.body).toMatchObject({ page: 2, limit: 3, totalPages: 2, totalResults: 4 });
      expect(ids(paged)).toEqual([e0]);

      expect(ids(await org.live.get('/events?type=incident.created'))).toEqual([e3, e0]);
      expect(ids(await org.live.get('/events?type=incident.*'))).toEqual([e3, e2, e0]);
      expect(ids(await org.live.get('/events?type=access_code.*'))).toEqual([e1]);
      expect(ids(await org.live.get('/events?type=visitor.*'))).toEqual([]);
      expect(ids(await org.live.get(`/events?resource_id=${first.body.incident.incident_id}`))).toEqual([e2, e0]);
      expect(ids(await org.live.get(`/events?resource_id=${code.body.access_code.code_id}`))).toEqual([e1]);
      // from_date inclusive, to_date exclusive.
      expect(ids(await org.live.get(`/events?from_date=${iso(1)}&to_date=${iso(3)}`))).toEqual([e2, e1]);
      expect(ids(await org.live.get(`/events?from_date=${iso(3)}`))).toEqual([e3]);
      expect(ids(await org.live.get(`/events?to_date=${iso(0)}`))).toEqual([]);
      expect(ids(await org.live.get(`/events?type=incident.*&from_date=${iso(1)}`))).toEqual([e3, e2]);

      // The sandbox and other organizations have their own logs.
      expect((await org.sandbox.get('/events')).body.totalResults).toBe(0);
      const other = await newOrganization('Other Estate');
      expect((await other.live.get('/events')).body.totalResults).toBe(0);
    });

    it('GET /events/{id} answers one event; another organization’s or environment’s is 404', async () => {
      const org = await newOrganization();
      const other = await newOrganization('Other Estate');
      const incident = await org.live.post('/incidents', incidentBody());
      const [listed] = (await org.live.get('/events')).body.results;
      const res = await org.live.get(`/events/${listed.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ event: { id: listed.id, type: 'incident.created', created_at: nowIso(), data: incident.body.incident } });

      for (const client of [other.live, org.sandbox]) {
        const foreign = await client.get(`/events/${listed.id}`);
        expect(foreign.status).toBe(404);
        expect(foreign.body.code).toBe(404);
      }
      expect((await org.live.get('/events/evt_01JD7ZK3Q0C7W5N2Y8S4V6X9AB')).status).toBe(404);
    });

    it.each([
      ['type=incident.exploded', 'type'],
      ['type=*', 'type'],
      ['from_date=yesterday', 'from_date'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
    ])('GET /events?%s is a 400 naming %s', async (query, field) => {
      const org = await newOrganization();
      const res = await org.live.get(`/events?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    });
  });

  describe('scopes', () => {
    it('every /webhook-endpoints and /events route answers 403 naming admin to a key without it', async () => {
      const org = await newOrganization();
      const receiver = await startReceiver();
      const { webhook_endpoint: endpoint } = await register(org.sandbox, receiver.url());
      await org.sandbox.post('/incidents', incidentBody());
      const eventId = (await org.sandbox.get('/events')).body.results[0].id as string;
      const narrow = await org.keyWith(
        ['incidents:read', 'incidents:write', 'access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'analytics:read'],
        'sandbox',
      );
      const id = endpoint.endpoint_id;
      const calls: [string, string, unknown?][] = [
        ['POST', '/webhook-endpoints', { url: receiver.url(), events: ['*'] }],
        ['GET', '/webhook-endpoints'],
        ['GET', `/webhook-endpoints/${id}`],
        ['PATCH', `/webhook-endpoints/${id}`, { status: 'disabled' }],
        ['DELETE', `/webhook-endpoints/${id}`],
        ['POST', `/webhook-endpoints/${id}/rotate-secret`, { expires_in_hours: 0 }],
        ['GET', `/webhook-endpoints/${id}/deliveries`],
        ['POST', `/webhook-endpoints/${id}/deliveries`, { event_id: eventId }],
        ['GET', '/events'],
        ['GET', `/events/${eventId}`],
      ];
      for (const [method, path, body] of calls) {
        const res = await narrow.request(method, path, body === undefined ? {} : { body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe(403);
        expect(res.body.message, `${method} ${path}`).toContain('admin');
      }
      // Nothing changed: the endpoint is still enabled with its secret, and nothing was queued.
      const still = await org.sandbox.get(`/webhook-endpoints/${id}`);
      expect(still.body.webhook_endpoint).toMatchObject({ status: 'enabled', secret_rotated_at: null });
      expect((await org.sandbox.get('/webhook-endpoints')).body.totalResults).toBe(1);
      await deliver();
      expect(receiver.received).toHaveLength(1);
    });

    it('a key with admin reaches them all', async () => {
      const org = await newOrganization();
      const admin = await org.keyWith(['admin'], 'sandbox');
      expect((await admin.get('/webhook-endpoints')).status).toBe(200);
      expect((await admin.get('/events')).status).toBe(200);
    });
  });
});

describe('a signing secret that no longer opens', () => {
  it('is a failed attempt on record, not a job that loops unseen', async () => {
    const server = await startTestServer({ deliverWebhooks: false });
    try {
      const org = await server.createOrganization();
      const created = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/never', events: ['*'] });
      const endpointId = created.body.webhook_endpoint.endpoint_id;
      // As after SECRETS_KEY changed under secrets sealed with the old key.
      await server.running.database.db.updateTable('webhook_endpoints').set({ secret: 'v1.AAAA.BBBB.CCCC' }).where('endpoint_id', '=', endpointId).execute();
      await org.sandbox.post('/incidents', { category: 'sos', severity: 'low', subject: { name: 'A' }, location: { coordinates: [3.4, 6.5] } });
      expect(await server.running.deliverWebhooks()).toBe(1);
      const deliveries = await org.sandbox.get(`/webhook-endpoints/${endpointId}/deliveries`);
      expect(deliveries.body.results).toHaveLength(1);
      expect(deliveries.body.results[0]).toMatchObject({ status: 'failed', attempt: 1, error: expect.stringContaining('could not sign') });
    } finally {
      await server.stop();
    }
  });
});
