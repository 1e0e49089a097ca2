import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

// Seeing an event is reading the resource it carries (an incident's subject, a visitor's name and
// phone): the key's read scopes decide it in GET /events, in subscriptions and in delivery payloads.
describe('the read scopes decide which events a key sees', () => {
  let server: TestServer;
  let org: TestOrganization;
  let adminOnly: ApiClient;
  let adminIncidents: ApiClient;
  const eventIds: Record<string, string> = {};
  let ownerEndpointId: string;
  // Sandbox endpoints may be on loopback (the suite allows it); nothing listens on port 9: deliveries fail, and each attempt is still recorded.
  const unreachable = 'http://127.0.0.1:9/hooks';

  beforeAll(async () => {
    server = await startTestServer({ deliverWebhooks: false });
    org = await server.createOrganization();
    adminOnly = await org.keyWith(['admin'], 'sandbox');
    adminIncidents = await org.keyWith(['admin', 'incidents:read'], 'sandbox');
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url: unreachable, events: ['*'] });
    expect(endpoint.status).toBe(201);
    ownerEndpointId = endpoint.body.webhook_endpoint.endpoint_id;
    expect((await org.sandbox.post('/incidents', incidentBody())).status).toBe(201);
    expect((await org.sandbox.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' })).status).toBe(201);
    expect((await org.sandbox.post('/access-logs', { visitor_name: 'Ngozi Eze', visitor_phone: '+2348030000002' })).status).toBe(201);
    for (const event of (await org.sandbox.get('/events')).body.results) eventIds[event.type] ??= event.id;
    expect(Object.keys(eventIds)).toEqual(expect.arrayContaining(['incident.created', 'access_code.created', 'visitor.arrived']));
    await server.running.deliverWebhooks();
  });
  afterAll(() => server?.stop());

  it('GET /events lists only the families the key may read', async () => {
    const typesSeenBy = async (client: ApiClient) => {
      const page = (await client.get('/events?limit=100')).body;
      return { types: new Set(page.results.map((event: { type: string }) => event.type.split('.')[0])), total: page.totalResults };
    };
    expect(await typesSeenBy(adminOnly)).toEqual({ types: new Set(), total: 0 });
    expect((await typesSeenBy(adminIncidents)).types).toEqual(new Set(['incident']));
    const logsOnly = await org.keyWith(['admin', 'logs:read'], 'sandbox');
    expect((await typesSeenBy(logsOnly)).types).toEqual(new Set(['visitor']));
    expect((await typesSeenBy(org.sandbox)).types).toEqual(new Set(['incident', 'access_code', 'visitor']));
  });

  it('a type filter the key may not read is a 403 naming the scope', async () => {
    const res = await adminIncidents.get('/events?type=visitor.*');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 403, message: expect.stringContaining('logs:read') });
    expect((await adminIncidents.get('/events?type=incident.created')).body.totalResults).toBeGreaterThan(0);
  });

  it('GET /events/{id} of a type the key may not read is a 404', async () => {
    expect((await adminOnly.get(`/events/${eventIds['incident.created']}`)).status).toBe(404);
    expect((await adminIncidents.get(`/events/${eventIds['visitor.arrived']}`)).status).toBe(404);
    const own = await adminIncidents.get(`/events/${eventIds['incident.created']}`);
    expect(own.status).toBe(200);
    expect(own.body.event.data.subject.name).toBe('Ada Obi');
  });

  it('subscribing to a type, a family or * needs the read scopes of what it would receive', async () => {
    const refused = [
      [adminOnly, ['incident.created'], 'incidents:read'],
      [adminOnly, ['incident.*'], 'incidents:read'],
      [adminIncidents, ['incident.*', 'visitor.arrived'], 'logs:read'],
      [adminIncidents, ['*'], 'access_codes:read'],
    ] as const;
    for (const [client, events, scope] of refused) {
      const res = await client.post('/webhook-endpoints', { url: unreachable, events });
      expect(res.status, JSON.stringify(events)).toBe(403);
      expect(res.body).toEqual({ code: 403, message: expect.stringContaining(scope) });
    }
    expect((await adminIncidents.post('/webhook-endpoints', { url: unreachable, events: ['incident.*'] })).status).toBe(201);
  });

  it('changing the events or URL of an endpoint, or enabling it, needs the scopes of its subscriptions; disabling does not', async () => {
    const path = `/webhook-endpoints/${ownerEndpointId}`;
    const moved = await adminIncidents.patch(path, { url: 'http://127.0.0.1:9/mine' });
    expect(moved.status).toBe(403);
    expect(moved.body.message).toContain('access_codes:read');
    expect((await adminIncidents.patch(path, { events: ['visitor.*'] })).status).toBe(403);
    expect((await adminIncidents.patch(path, { status: 'disabled' })).status).toBe(200);
    expect((await adminIncidents.patch(path, { status: 'enabled' })).status).toBe(403);
    expect((await org.sandbox.patch(path, { status: 'enabled' })).status).toBe(200);
    expect((await org.sandbox.get(path)).body.webhook_endpoint).toMatchObject({ url: unreachable, events: ['*'], status: 'enabled' });
  });

  it('the deliveries list shows a payload only for types the key may read', async () => {
    const payloads = async (client: ApiClient) => {
      const res = await client.get(`/webhook-endpoints/${ownerEndpointId}/deliveries?limit=100`);
      expect(res.status).toBe(200);
      return Object.fromEntries(res.body.results.map((d: { event_type: string; payload: { id: string } | null }) => [d.event_type, d.payload?.id ?? null]));
    };
    expect(await payloads(org.sandbox)).toMatchObject({
      'incident.created': eventIds['incident.created'],
      'access_code.created': eventIds['access_code.created'],
      'visitor.arrived': eventIds['visitor.arrived'],
    });
    expect(await payloads(adminIncidents)).toMatchObject({
      'incident.created': eventIds['incident.created'],
      'access_code.created': null,
      'visitor.arrived': null,
    });
    expect(Object.values(await payloads(adminOnly)).every((payload) => payload === null)).toBe(true);
    const full = (await org.sandbox.get(`/webhook-endpoints/${ownerEndpointId}/deliveries?event_id=${eventIds['visitor.arrived']}`)).body.results[0];
    expect(full.payload).toMatchObject({ id: eventIds['visitor.arrived'], type: 'visitor.arrived', data: { visitor_name: 'Ngozi Eze' } });
  });

  it('resending an event of a type the key may not read is a 404', async () => {
    const path = `/webhook-endpoints/${ownerEndpointId}/deliveries`;
    expect((await adminIncidents.post(path, { event_id: eventIds['visitor.arrived'] })).status).toBe(404);
    expect((await adminIncidents.post(path, { event_id: eventIds['incident.created'] })).status).toBe(202);
  });
});
