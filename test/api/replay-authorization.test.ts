import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #25: an idempotent replay is authorized like the request itself, and an answer that
 * carries a secret goes only to the key that made it. Before, a key holding only `admin` got a
 * key with `incidents:write` (201, with its secret) by replaying the owner's Idempotency-Key.
 */
const HOUR = 3_600_000;
const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });

describe('replays are authorized like requests', () => {
  let server: TestServer;
  let org: TestOrganization;
  let adminOnly: ApiClient;
  let secondOwner: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Replay Estate' });
    adminOnly = await org.keyWith(['admin']);
    secondOwner = await org.keyWith(['admin', 'incidents:read', 'incidents:write', 'access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'analytics:read']);
  });
  afterAll(() => server.stop());

  const keyCount = async () => (await org.live.get('/api-keys?limit=100')).body.totalResults as number;
  const endpointCount = async () => (await org.live.get('/webhook-endpoints?limit=100')).body.totalResults as number;

  it("a key holding only admin replaying the owner's key creation gets 403, not the key", async () => {
    const body = { name: 'Dispatch desk', scopes: ['incidents:write'] };
    const first = await org.live.post('/api-keys', body, idem('owner-makes-key-1'));
    expect(first.status).toBe(201);
    const before = await keyCount();
    const replay = await adminOnly.post('/api-keys', body, idem('owner-makes-key-1'));
    expect(replay.status).toBe(403);
    expect(replay.body).toEqual({ code: 403, message: 'This API key cannot grant the incidents:write scope it does not hold' });
    expect(JSON.stringify(replay.body)).not.toContain(first.body.secret);
    expect(await keyCount()).toBe(before);
  });

  it('another key that could grant it gets 409 naming Idempotency-Key, never the secret, and no second key is made', async () => {
    const body = { name: 'Night desk', scopes: ['incidents:write'] };
    const first = await org.live.post('/api-keys', body, idem('owner-makes-key-2'));
    expect(first.status).toBe(201);
    const before = await keyCount();
    const replay = await secondOwner.post('/api-keys', body, idem('owner-makes-key-2'));
    expect(replay.status).toBe(409);
    expect(replay.body.message).toMatch(/Idempotency-Key/);
    expect(JSON.stringify(replay.body)).not.toContain(first.body.secret);
    expect(await keyCount()).toBe(before);
  });

  it('the key that made it gets the same answer again, secret included', async () => {
    const body = { name: 'Day desk', scopes: ['incidents:read'] };
    const first = await org.live.post('/api-keys', body, idem('owner-makes-key-3'));
    const again = await org.live.post('/api-keys', body, idem('owner-makes-key-3'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it("a webhook endpoint's secret, and a rotated one, are replayed only to their maker", async () => {
    const body = { url: 'https://8.8.8.8/hooks', events: ['incident.*'] };
    const made = await org.live.post('/webhook-endpoints', body, idem('owner-endpoint-1'));
    expect(made.status).toBe(201);
    const before = await endpointCount();
    const stolen = await secondOwner.post('/webhook-endpoints', body, idem('owner-endpoint-1'));
    expect(stolen.status).toBe(409);
    expect(JSON.stringify(stolen.body)).not.toContain(made.body.secret);
    expect(await endpointCount()).toBe(before);
    expect((await org.live.post('/webhook-endpoints', body, idem('owner-endpoint-1'))).body.secret).toBe(made.body.secret);

    const path = `/webhook-endpoints/${made.body.webhook_endpoint.endpoint_id}/rotate-secret`;
    const rotated = await org.live.post(path, { expires_in_hours: 0 }, idem('owner-rotate-1'));
    expect(rotated.status).toBe(200);
    const replay = await secondOwner.post(path, { expires_in_hours: 0 }, idem('owner-rotate-1'));
    expect(replay.status).toBe(409);
    expect(JSON.stringify(replay.body)).not.toContain(rotated.body.secret);
  });

  it('an answer without a secret is replayed to any key allowed the route, and refused to one that is not', async () => {
    const incident = { category: 'medical', severity: 'high', subject: { name: 'Ada Obi' }, location: { coordinates: [3.3792, 6.5244] } };
    const writer = await org.keyWith(['incidents:write']);
    const reader = await org.keyWith(['incidents:read']);
    const first = await org.live.post('/incidents', incident, idem('plain-answer-1'));
    expect(first.status).toBe(201);
    const other = await writer.post('/incidents', incident, idem('plain-answer-1'));
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBe('true');
    expect(other.body.incident.incident_id).toBe(first.body.incident.incident_id);
    const refused = await reader.post('/incidents', incident, idem('plain-answer-1'));
    expect(refused.status).toBe(403);
  });
});

describe('rolling a key', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Roll Estate' });
  });
  afterAll(() => server.stop());

  it('makes a key with the same name and scopes; the old one answers until expires_in_hours, then 401', async () => {
    const made = await org.live.post('/api-keys', { name: 'Gate A', scopes: ['access_codes:validate', 'logs:read'] });
    const rolled = await org.live.post(`/api-keys/${made.body.api_key.key_id}/roll`, { expires_in_hours: 2 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(rolled.body.api_key).toMatchObject({ name: 'Gate A', scopes: ['access_codes:validate', 'logs:read'], expires_at: null, revoked_at: null });
    expect(rolled.body.api_key.key_id).not.toBe(made.body.api_key.key_id);
    const old = server.client(made.body.secret);
    const fresh = server.client(rolled.body.secret);
    const expiresAt = new Date(server.clock.now().getTime() + 2 * HOUR).toISOString();
    const listed = (await org.live.get('/api-keys?limit=100')).body.results.find((k: { key_id: string }) => k.key_id === made.body.api_key.key_id);
    expect(listed.expires_at).toBe(expiresAt);
    expect((await old.get('/access-logs')).status).toBe(200);
    expect((await fresh.get('/access-logs')).status).toBe(200);
    server.clock.advance(2 * HOUR);
    const expired = await old.get('/access-logs');
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
    expect((await fresh.get('/access-logs')).status).toBe(200);
    // An expired key cannot be rolled again.
    expect((await org.live.post(`/api-keys/${made.body.api_key.key_id}/roll`, {})).status).toBe(409);
  });

  it('needs the right to grant each of its scopes, as creating it does', async () => {
    const made = await org.live.post('/api-keys', { name: 'Dispatch', scopes: ['incidents:write'] });
    const adminOnly = await org.keyWith(['admin']);
    const refused = await adminOnly.post(`/api-keys/${made.body.api_key.key_id}/roll`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('This API key cannot grant the incidents:write scope it does not hold');
    // Nothing changed: the key has no end.
    const listed = (await org.live.get('/api-keys?limit=100')).body.results.find((k: { key_id: string }) => k.key_id === made.body.api_key.key_id);
    expect(listed.expires_at).toBeNull();
  });

  it('a revoked key is a 409, another organization\'s a 404, and expires_in_hours over 168 a 400 naming it', async () => {
    const made = await org.live.post('/api-keys', { name: 'Old', scopes: ['logs:read'] });
    expect((await org.live.post(`/api-keys/${made.body.api_key.key_id}/roll`, { expires_in_hours: 169 })).body.message).toMatch(/expires_in_hours/);
    await org.live.delete(`/api-keys/${made.body.api_key.key_id}`);
    expect((await org.live.post(`/api-keys/${made.body.api_key.key_id}/roll`, {})).status).toBe(409);
    const other = await server.createOrganization({ name: 'Other Estate' });
    expect((await other.live.post(`/api-keys/${made.body.api_key.key_id}/roll`, {})).status).toBe(404);
  });

  it("a kiosk whose key was rolled still replays its outbox: the answer comes back once, counted once", async () => {
    const code = await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Delivery', max_uses: 5 });
    expect(code.status).toBe(201);
    const gate = await org.live.post('/api-keys', { name: 'Gate B kiosk', scopes: ['access_codes:validate', 'access_codes:read', 'incidents:write', 'logs:read'] });
    const kiosk = server.client(gate.body.secret);
    const scan = { code: code.body.access_code.code, entry_point: 'Gate B' };
    const first = await kiosk.post('/access-codes/validate', scan, idem('kiosk-op-0001'));
    expect(first.body.valid).toBe(true);
    const rolled = await org.live.post(`/api-keys/${gate.body.api_key.key_id}/roll`, { expires_in_hours: 0 });
    expect((await kiosk.get('/access-logs')).status).toBe(401);
    const replay = await server.client(rolled.body.secret).post('/access-codes/validate', scan, idem('kiosk-op-0001'));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await org.live.get(`/access-codes/${code.body.access_code.code_id}`)).body.access_code.use_count).toBe(1);
  });
});

describe('replays are authorized by site (issue #46)', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Two Estates' });
  });
  afterAll(() => server.stop());

  it("a kiosk of one site whose key was rolled still replays its outbox, and no other site's key replays it", async () => {
    const siteOf = async (name: string) => (await org.live.post('/sites', { name, entry_points: ['Gate B'] })).body.site.site_id as string;
    const [a, b] = [await siteOf('Admiralty Estate'), await siteOf('Banana Island Estate')];
    const gateKey = async (siteId: string) => org.live.post('/api-keys', { name: `Gate of ${siteId}`, scopes: ['access_codes:validate', 'access_codes:write', 'logs:read'], site_ids: [siteId] });
    const gateB = await gateKey(b);
    const kioskB = server.client(gateB.body.secret);
    const walkIn = { visitor_name: 'Ngozi Eze', visitor_phone: '+2348030000002', entry_point: 'Gate B' };
    const first = await kioskB.post('/access-logs', walkIn, idem('kiosk-b-op-0001'));
    expect(first.status).toBe(201);
    expect(first.body.access_log.site_id).toBe(b);
    // Rolled, it keeps its site and replays its own answer.
    const rolled = await org.live.post(`/api-keys/${gateB.body.api_key.key_id}/roll`, { expires_in_hours: 0 });
    expect(rolled.body.api_key.site_ids).toEqual([b]);
    const replay = await server.client(rolled.body.secret).post('/access-logs', walkIn, idem('kiosk-b-op-0001'));
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // Another site's kiosk presenting the same key and body gets neither the visitor nor a visit of its own.
    const kioskA = server.client((await gateKey(a)).body.secret);
    const stranger = await kioskA.post('/access-logs', walkIn, idem('kiosk-b-op-0001'));
    expect(stranger.status).toBe(409);
    expect(stranger.body.message).toMatch(/^Idempotency-Key was used by a caller who reaches sites you do not/);
    expect(JSON.stringify(stranger.body)).not.toContain('Ngozi');
    expect((await kioskA.get('/access-logs')).body.totalResults).toBe(0);
  });
});
