import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinConsole, type JoinedPerson } from '../support/console.ts';
import { expectErrorBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

const GATE_SCOPES = ['access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'incidents:read', 'incidents:write'];

/**
 * A list's filter travels with its page: the server filters before paging, so what matches on
 * page two is found, and `totalResults` counts the matches (the console's pager agrees with its
 * rows). Keys by status and exact scopes, webhook endpoints by status, people by role.
 */
describe('list filters apply before paging', () => {
  let server: TestServer;
  let org: TestOrganization;
  let owner: JoinedPerson;
  const made: { gateKeyId?: string; revokedKeyId?: string; disabledEndpointId?: string; developerId?: string } = {};

  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
    owner = await joinConsole(server, org.organizationId, 'owner');
    // The ones a filter must find are made first: newest-first lists put them past page one.
    const gate = await org.live.post('/api-keys', { name: 'Gate: North', scopes: [...GATE_SCOPES].reverse() });
    made.gateKeyId = gate.body.api_key.key_id;
    server.clock.advance(1000);
    const doomed = await org.live.post('/api-keys', { name: 'Old backend', scopes: ['incidents:read'] });
    made.revokedKeyId = doomed.body.api_key.key_id;
    expect((await org.live.delete(`/api-keys/${made.revokedKeyId}`)).status).toBe(200);
    server.clock.advance(1000);
    // Sandbox endpoints on loopback, subscribed to an event this test never causes: nothing is sent anywhere.
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/retired', events: ['incident.resolved'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    made.disabledEndpointId = endpoint.body.webhook_endpoint.endpoint_id;
    expect((await org.sandbox.patch(`/webhook-endpoints/${made.disabledEndpointId}`, { status: 'disabled' })).status).toBe(200);
    server.clock.advance(1000);
    made.developerId = (await joinConsole(server, org.organizationId, 'developer')).personId;
    for (let i = 0; i < 22; i++) {
      server.clock.advance(1000);
      await org.live.post('/api-keys', { name: `Backend ${i}`, scopes: ['incidents:read', 'incidents:write'] });
      await org.sandbox.post('/webhook-endpoints', { url: `http://127.0.0.1:9/hook-${i}`, events: ['incident.resolved'] });
      await joinConsole(server, org.organizationId, 'viewer');
    }
  }, 120_000);
  afterAll(() => server.stop());

  const ids = (body: { results: Record<string, string>[] }, field: string) => body.results.map((item) => item[field]);

  it('keys: what matches is past page one unfiltered, and on page one filtered, with totalResults counting matches only', async () => {
    const unfiltered = await org.live.get('/api-keys?limit=20');
    expect(unfiltered.body.totalResults).toBeGreaterThan(20);
    expect(ids(unfiltered.body, 'key_id')).not.toContain(made.revokedKeyId);
    expect(ids(unfiltered.body, 'key_id')).not.toContain(made.gateKeyId);

    const revoked = await org.live.get('/api-keys?status=revoked&limit=20');
    expect(ids(revoked.body, 'key_id')).toEqual([made.revokedKeyId]);
    expect(revoked.body.totalResults).toBe(1);

    // Exactly the gate's scopes, in any order: the backends (a subset) and the owner key (a superset) are not gates.
    const gates = await org.live.get(`/api-keys?status=active&scopes=${GATE_SCOPES.join(',')}`);
    expect(ids(gates.body, 'key_id')).toEqual([made.gateKeyId]);
    expect(gates.body.totalResults).toBe(1);

    const active = await org.live.get('/api-keys?status=active&limit=100');
    expect(ids(active.body, 'key_id')).not.toContain(made.revokedKeyId);
    expect(active.body.totalResults).toBe(unfiltered.body.totalResults - 1);
  });

  it('a rolled key past its grace is expired, neither active nor revoked', async () => {
    const rolled = await org.live.post('/api-keys', { name: 'Rolled', scopes: ['logs:read'] });
    const id = rolled.body.api_key.key_id;
    expect((await org.live.post(`/api-keys/${id}/roll`, { expires_in_hours: 1 })).status).toBe(201);
    server.clock.advance(2 * 3_600_000);
    expect(ids((await org.live.get('/api-keys?status=expired&limit=100')).body, 'key_id')).toEqual([id]);
    expect(ids((await org.live.get('/api-keys?status=active&limit=100')).body, 'key_id')).not.toContain(id);
    expect(ids((await org.live.get('/api-keys?status=revoked&limit=100')).body, 'key_id')).not.toContain(id);
  });

  it('webhook endpoints by status', async () => {
    expect(ids((await org.sandbox.get('/webhook-endpoints?limit=20')).body, 'endpoint_id')).not.toContain(made.disabledEndpointId);
    const disabled = await org.sandbox.get('/webhook-endpoints?status=disabled&limit=20');
    expect(ids(disabled.body, 'endpoint_id')).toEqual([made.disabledEndpointId]);
    expect(disabled.body.totalResults).toBe(1);
    expect((await org.sandbox.get('/webhook-endpoints?status=enabled&limit=100')).body.totalResults).toBe(22);
  });

  it('people by role', async () => {
    expect(ids((await owner.browser.get('/console/people?limit=20')).body, 'person_id')).not.toContain(made.developerId);
    const developers = await owner.browser.get('/console/people?role=developer&limit=20');
    expect(ids(developers.body, 'person_id')).toEqual([made.developerId]);
    expect(developers.body.totalResults).toBe(1);
    expect((await owner.browser.get('/console/people?role=viewer&limit=20')).body.totalResults).toBe(22);
  });

  it('an unknown filter value is a 400 naming the field', async () => {
    expectErrorBody((await org.live.get('/api-keys?status=lost')).body, 400, expect.stringMatching(/^status: /));
    expectErrorBody((await org.live.get('/api-keys?scopes=incidents:read,launch:missiles')).body, 400, 'scopes: must be scopes separated by commas');
    expectErrorBody((await org.sandbox.get('/webhook-endpoints?status=paused')).body, 400, expect.stringMatching(/^status: /));
    expectErrorBody((await owner.browser.get('/console/people?role=emperor')).body, 400, expect.stringMatching(/^role: /));
  });
});
