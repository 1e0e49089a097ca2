import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ulid } from 'ulidx';
import { revokeApiKey } from '../../server/auth/service.ts';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { joinConsole } from '../support/console.ts';
import { incidentBody, startTestServer, type ApiClient, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';
import { createApiKey } from '../../server/auth/service.ts';

/**
 * GET /events/stream on both engines: what a caller's scopes let through, resuming by
 * Last-Event-ID, commits out of order, heartbeats, and the stream closing when its key goes.
 */

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
const streams: OpenStream[] = [];

beforeAll(async () => {
  // Stalled-request timeouts short enough for a stream to be seen outliving them, long enough that
  // no ordinary request of these tests trips them while the whole suite loads the machine (at 300
  // and 500 ms, a stream's own opening was once answered 408 there).
  server = await startTestServer({ eventStreamHeartbeatMs: 150, requestTimeouts: { headersMs: 1500, requestMs: 2500 } });
  org = await server.createOrganization({ name: 'Stream Estate' });
  other = await server.createOrganization({ name: 'Other Estate' });
});

afterAll(async () => {
  for (const stream of streams) stream.close();
  await server?.stop();
});

async function stream(key: string, query = '', headers: Record<string, string> = {}): Promise<OpenStream> {
  const opened = await openStream(`${server.baseUrl}/events/stream${query}`, { authorization: `Bearer ${key}`, ...headers });
  streams.push(opened);
  return opened;
}

async function keyWith(scopes: Parameters<TestOrganization['keyWith']>[0], environment: 'live' | 'sandbox' = 'live'): Promise<string> {
  const created = await createApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment, name: 'stream', scopes, maker: { type: 'operator' } });
  return created.secret;
}

async function newIncident(client: ApiClient): Promise<string> {
  const res = await client.post('/incidents', incidentBody());
  expect(res.status).toBe(201);
  return res.body.incident.incident_id;
}

async function newCode(client: ApiClient): Promise<string> {
  const res = await client.post('/access-codes', { visitor_name: 'Chidi Okeke', visitor_phone: '+2348011111111' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.access_code.code_id;
}

describe('GET /events/stream', () => {
  it('sends each new event as id, event and the envelope GET /events lists, with the stream headers', async () => {
    const s = await stream(org.keys.live);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toBe('text/event-stream');
    expect(s.headers.get('cache-control')).toBe('no-store');
    expect(s.headers.get('x-accel-buffering')).toBe('no');
    const incidentId = await newIncident(org.live);
    const [event] = await s.waitForEvents(1);
    expect(event!.event).toBe('incident.created');
    expect(event!.data.data.incident_id).toBe(incidentId);
    const listed = await org.live.get(`/events?resource_id=${incidentId}`);
    expect(event!.id).toBe(listed.body.results[0].id);
    expect(event!.data).toEqual(listed.body.results[0]);
    s.close();
  });

  it("a key with only access_codes:read gets access code events and never incidents, another organization's or the other environment's", async () => {
    const codesOnly = await stream(await keyWith(['access_codes:read']));
    const incidentsOnly = await stream(await keyWith(['incidents:read']));
    await newIncident(org.live);
    await newIncident(org.sandbox);
    await newIncident(other.live);
    await newCode(other.live);
    await newCode(org.sandbox);
    const codeId = await newCode(org.live);
    const incidentId = await newIncident(org.live);
    await codesOnly.waitForEvents(1);
    await incidentsOnly.waitForEvents(2);
    // The last write reached both streams' tenant; anything of another tenant would have come before it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(codesOnly.events.map((e) => [e.event, e.data.data.code_id])).toEqual([['access_code.created', codeId]]);
    expect(incidentsOnly.events.map((e) => e.event)).toEqual(['incident.created', 'incident.created']);
    expect(incidentsOnly.events[1]!.data.data.incident_id).toBe(incidentId);
    codesOnly.close();
    incidentsOnly.close();
  });

  it('a key with no read scope is refused with 403 naming the read scopes; one with any read scope opens it', async () => {
    const refused = await stream(await keyWith(['incidents:write', 'analytics:read', 'admin']));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 403, message: expect.stringContaining('incidents:read') });
    expect(refused.body.message).toContain('logs:read');
    const opened = await stream(await keyWith(['logs:read']));
    expect(opened.status).toBe(200);
    opened.close();
  });

  it('a type filter narrows the stream, and a type the key may not read is a 403 naming the scope', async () => {
    const refused = await stream(await keyWith(['access_codes:read']), '?types=incident.*');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('incidents:read');
    expect((await stream(org.keys.live, '?types=nonsense')).status).toBe(400);
    const codes = await stream(org.keys.live, '?types=access_code.created,visitor.*');
    await newIncident(org.live);
    const codeId = await newCode(org.live);
    const [event] = await codes.waitForEvents(1);
    expect([event!.event, event!.data.data.code_id]).toEqual(['access_code.created', codeId]);
    codes.close();
  });

  it('resumes after Last-Event-ID (header or last_event_id) with every later event once, and then goes on live', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await newIncident(org.live));
    const log = (await org.live.get('/events?type=incident.created&limit=5')).body.results.reverse();
    expect(log.map((e: any) => e.data.incident_id)).toEqual(ids);
    const resumed = await stream(org.keys.live, '', { 'last-event-id': log[1].id });
    const polyfill = await stream(org.keys.live, `?last_event_id=${log[1].id}`);
    const later = await newIncident(org.live);
    for (const s of [resumed, polyfill]) {
      await s.waitForEvents(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(s.events.map((e) => e.data.data.incident_id)).toEqual([...ids.slice(2), later]);
      s.close();
    }
  });

  it('an unknown Last-Event-ID is a 400 and one older than 72 hours a 410, each naming Last-Event-ID', async () => {
    const unknown = await stream(org.keys.live, '', { 'last-event-id': 'evt_nonesuch' });
    expect(unknown.status).toBe(400);
    expectErrorBody(unknown.body, 400, expect.stringContaining('Last-Event-ID'));
    // Another organization's event is unknown here too.
    await newIncident(other.live);
    const foreign = (await other.live.get('/events?limit=1')).body.results[0].id;
    expect((await stream(org.keys.live, '', { 'last-event-id': foreign })).status).toBe(400);

    await newIncident(org.live);
    const old = (await org.live.get('/events?limit=1')).body.results[0].id;
    server.clock.advance(72 * 3600_000 + 1000);
    const tooOld = await stream(org.keys.live, '', { 'last-event-id': old });
    expect(tooOld.status).toBe(410);
    expect(tooOld.body.message).toContain('Last-Event-ID');
  });

  it('an event whose id is earlier but which commits later still arrives, live and on resume', async () => {
    // Ids are made before commit: here the later id commits first, then the earlier one.
    const live = await stream(org.keys.live);
    const first = await newIncident(org.live);
    await live.waitForEvents(1);
    const resumeFrom = live.events[0]!.id;
    const earlierId = `evt_${ulid(Date.parse('2020-01-01T00:00:00Z'))}`;
    await server.running.database.db
      .insertInto('events')
      .values({
        event_id: earlierId,
        organization_id: org.organizationId,
        environment: 'live',
        type: 'incident.updated',
        resource_id: first,
        data: JSON.stringify({ incident_id: first }),
        created_at: server.clock.now().toISOString(),
      })
      .execute();
    const second = await newIncident(org.live);
    await live.waitForEvents(3);
    expect(live.events.map((e) => e.id).slice(1)).toContain(earlierId);
    expect(live.events[2]!.data.data.incident_id).toBe(second);
    const resumed = await stream(org.keys.live, '', { 'last-event-id': resumeFrom });
    await resumed.waitForEvents(2);
    expect(resumed.events.map((e) => e.id)).toEqual(live.events.slice(1).map((e) => e.id));
    live.close();
    resumed.close();
  });

  it('writes committed together (SQLite: one group-commit batch) reach a stream and a resume each exactly once', async () => {
    const live = await stream(org.keys.live);
    await newIncident(org.live);
    await live.waitForEvents(1);
    const resumeFrom = live.events[0]!.id;
    const ids = await Promise.all(Array.from({ length: 30 }, () => newIncident(org.live)));
    await live.waitForEvents(31);
    const resumed = await stream(org.keys.live, '', { 'last-event-id': resumeFrom });
    await resumed.waitForEvents(30);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(new Set(live.events.slice(1).map((e) => e.data.data.incident_id))).toEqual(new Set(ids));
    expect(live.events).toHaveLength(31);
    expect(resumed.events.map((e) => e.id)).toEqual(live.events.slice(1).map((e) => e.id));
    live.close();
    resumed.close();
  });

  it('leaves test events out unless include_test=true', async () => {
    const plain = await stream(org.keys.sandbox);
    const withTests = await stream(org.keys.sandbox, '?include_test=true');
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['incident.created'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect((await org.sandbox.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/test`, { type: 'incident.created' })).status).toBe(202);
    const real = await newIncident(org.sandbox);
    const [testEvent, realEvent] = await withTests.waitForEvents(2);
    expect(testEvent!.data.test).toBe(true);
    expect(realEvent!.data.data.incident_id).toBe(real);
    const [only] = await plain.waitForEvents(1);
    expect(only!.data.data.incident_id).toBe(real);
    expect(plain.events).toHaveLength(1);
    await org.sandbox.delete(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`);
    plain.close();
    withTests.close();
  });

  it('sends a heartbeat comment, outlives the request timeouts, and its opening is the only request counted', async () => {
    const key = await keyWith(['incidents:read']);
    const s = await stream(key);
    const remaining = Number(s.headers.get('x-ratelimit-remaining'));
    await vi.waitFor(() => expect(s.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3), { timeout: 3000, interval: 20 });
    // Past the 1.5 s / 2.5 s stalled-request timeouts this server runs with.
    await new Promise((resolve) => setTimeout(resolve, 2700));
    const incidentId = await newIncident(org.live);
    await s.waitForEvents(1);
    expect(s.events[0]!.data.data.incident_id).toBe(incidentId);
    expect(s.isEnded).toBe(false);
    const next = await server.client(key).get('/incidents?limit=1');
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    s.close();
  });

  it("closes the stream at the next heartbeat once its key is revoked", async () => {
    const created = await createApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live', name: 'soon revoked', scopes: ['incidents:read'], maker: { type: 'operator' } });
    const s = await stream(created.secret);
    expect(s.status).toBe(200);
    await server.changedElsewhere(() => revokeApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live' }, created.api_key.key_id));
    await vi.waitFor(() => expect(s.isEnded).toBe(true), { timeout: 3000, interval: 20 });
    expect(s.comments.some((c) => c.startsWith('closing:'))).toBe(true);
  });

  it('a console viewer opens the stream with the session, and it closes when the person is removed', async () => {
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    const owner = await joinConsole(server, org.organizationId, 'admin');
    const s = await openStream(`${server.baseUrl}/events/stream`, { cookie: viewer.browser.cookie!, 'tsaro-environment': 'live' });
    streams.push(s);
    expect(s.status).toBe(200);
    const incidentId = await newIncident(org.live);
    await s.waitForEvents(1);
    expect(s.events[0]!.data.data.incident_id).toBe(incidentId);
    expect((await owner.browser.delete(`/console/people/${viewer.personId}`)).status).toBe(200);
    await vi.waitFor(() => expect(s.isEnded).toBe(true), { timeout: 3000, interval: 20 });
  });

  it("a console stream's heartbeats do not keep an unattended session from its idle timeout", async () => {
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    const s = await openStream(`${server.baseUrl}/events/stream`, { cookie: viewer.browser.cookie!, 'tsaro-environment': 'live' });
    streams.push(s);
    expect(s.status).toBe(200);
    // Heartbeats re-check the session well after the console last did anything...
    server.clock.advance(719 * 60_000);
    const seen = s.comments.length;
    await vi.waitFor(() => expect(s.comments.length).toBeGreaterThan(seen + 2), { timeout: 10_000, interval: 20 });
    expect(s.isEnded).toBe(false);
    // ...without counting as activity: 720 minutes after the last request, the stream closes.
    server.clock.advance(2 * 60_000);
    await vi.waitFor(() => expect(s.isEnded).toBe(true), { timeout: 10_000, interval: 20 });
  });

  it('a stopping server ends its streams', async () => {
    const own = await startTestServer();
    const ownOrg = await own.createOrganization();
    const s = await openStream(`${own.baseUrl}/events/stream`, { authorization: `Bearer ${ownOrg.keys.live}` });
    const started = performance.now();
    await own.stop();
    await s.ended;
    expect(performance.now() - started).toBeLessThan(4000);
  });
});
