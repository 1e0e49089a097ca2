import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessCode, AccessLog } from '../../shared/schemas/access.ts';
import { Incident } from '../../shared/schemas/incidents.ts';
import { Kiosk } from '../../shared/schemas/kiosks.ts';
import { WEBHOOK_EVENT_TYPES } from '../../shared/schemas/webhooks.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #27: a developer sends a test event of any type from the console (or the API) and sees
 * their receiver answer; failed deliveries in a time range are sent again in one go.
 */
let server: TestServer;
let org: TestOrganization;
const received: { headers: IncomingHttpHeaders; raw: string }[] = [];
let answer = 200;
const receiver = createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers, raw });
    res.statusCode = answer;
    res.end('ok');
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startTestServer({ deliverWebhooks: false });
  org = await server.createOrganization({ name: 'Test Events Estate' });
});
afterAll(async () => {
  await server.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

const SCHEMAS = { incident: Incident, access_code: AccessCode, visitor: AccessLog, kiosk: Kiosk };

describe('test events', () => {
  it('every type arrives signed (Stripe\'s own verifier accepts it), marked test, with data shaped as the real resource', async () => {
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url, events: ['incident.created'] });
    for (const type of WEBHOOK_EVENT_TYPES) {
      const sent = await org.sandbox.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/test`, { type });
      expect(sent.status, type).toBe(202);
      expect(sent.body.event).toMatchObject({ type, test: true });
    }
    received.length = 0;
    while ((await server.running.deliverWebhooks()) > 0);
    expect(received).toHaveLength(WEBHOOK_EVENT_TYPES.length);
    const stripe = new Stripe('sk_test_unused');
    for (const request of received) {
      const header = String(request.headers['svc-signature']);
      const t = Number(/t=(\d+)/.exec(header)![1]);
      const event = stripe.webhooks.constructEvent(request.raw, header, endpoint.body.secret, 300, undefined, t) as unknown as { type: string; test: boolean; data: unknown };
      expect(event.test).toBe(true);
      const family = event.type.split('.')[0] as keyof typeof SCHEMAS;
      expect(SCHEMAS[family].safeParse(event.data).success, event.type).toBe(true);
    }
  });

  it('is left out of the event log unless include_test=true, and needs the type\'s read scope', async () => {
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url, events: ['*'] });
    const sent = await org.sandbox.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/test`, { type: 'visitor.arrived' });
    const ids = (await org.sandbox.get('/events?limit=100')).body.results.map((e: { id: string }) => e.id);
    expect(ids).not.toContain(sent.body.event.id);
    const withTests = (await org.sandbox.get('/events?limit=100&include_test=true')).body.results.map((e: { id: string }) => e.id);
    expect(withTests).toContain(sent.body.event.id);
    const adminOnly = await org.keyWith(['admin'], 'sandbox');
    const refused = await adminOnly.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/test`, { type: 'visitor.arrived' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/logs:read/);
  });
});

describe('resending failures in a time range', () => {
  it('sends each failed event again once, and the receiver gets it', async () => {
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url, events: ['incident.*'] });
    const id = endpoint.body.webhook_endpoint.endpoint_id;
    const from = server.clock.now().toISOString();
    answer = 500;
    for (const type of ['incident.created', 'incident.resolved'] as const) await org.sandbox.post(`/webhook-endpoints/${id}/test`, { type });
    received.length = 0;
    while ((await server.running.deliverWebhooks()) > 0);
    expect(received.length).toBeGreaterThanOrEqual(2);
    answer = 200;
    server.clock.advance(1000);
    const resent = await org.sandbox.post(`/webhook-endpoints/${id}/resend-failed`, { from, to: server.clock.now().toISOString() });
    expect(resent.status).toBe(202);
    expect(resent.body.queued).toBe(2);
    received.length = 0;
    while ((await server.running.deliverWebhooks()) > 0);
    expect(received.map((r) => JSON.parse(r.raw).type).sort()).toEqual(['incident.created', 'incident.resolved']);
    const deliveries = (await org.sandbox.get(`/webhook-endpoints/${id}/deliveries?limit=100`)).body.results;
    expect(deliveries.filter((d: { status: string }) => d.status === 'succeeded')).toHaveLength(2);
    expect((await org.sandbox.post(`/webhook-endpoints/${id}/resend-failed`, { from: server.clock.now().toISOString(), to: from })).status).toBe(400);
  });
});
