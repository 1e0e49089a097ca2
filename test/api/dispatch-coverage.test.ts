import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/** Kano, far from Lagos: a gate there has live responders of its own in these tests. */
const KANO_GATE = { latitude: 12.0, longitude: 8.5 };
/** Ikeja, Lagos: no live responder is ever put near it. */
const LONELY_GATE = { latitude: 6.6018, longitude: 3.3515 };

const at = (point: { latitude: number; longitude: number }) => `/dispatch/coverage?latitude=${point.latitude}&longitude=${point.longitude}`;

describe('GET /dispatch/coverage: whether an SOS at a place would reach a responder now', () => {
  let server: TestServer;
  let a: TestOrganization;
  let b: TestOrganization;
  let responderBase: string;
  beforeAll(async () => {
    server = await startTestServer({ config: { DISPATCH_RADIUS_KM: '15' } });
    a = await server.createOrganization();
    b = await server.createOrganization();
    responderBase = server.baseUrl.replace('/v1/external', '/v1/responder');
  });
  afterAll(() => server.stop());

  const responderAt = (kmEast: number, environment: 'live' | 'sandbox' = 'live') =>
    addResponder(server.running.database.db, server.clock, {
      name: `Responder ${kmEast} km`,
      phone: `+23480${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`,
      latitude: KANO_GATE.latitude,
      longitude: KANO_GATE.longitude + kmEast / 108.8,
      environment,
    });
  const setAvailable = async (token: string, available: boolean, point = KANO_GATE) => {
    const res = await fetch(`${responderBase}/availability`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ available, ...point }),
    });
    expect(res.status).toBe(200);
  };

  it('a live place no responder is near is not covered: a count of 0 and no nearest distance', async () => {
    const res = await a.live.get(at(LONELY_GATE));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      coverage: {
        environment: 'live',
        latitude: LONELY_GATE.latitude,
        longitude: LONELY_GATE.longitude,
        covered: false,
        simulated: false,
        responders_within_radius: 0,
        nearest_responder_km: null,
        dispatch_radius_km: 15,
        checked_at: server.clock.now().toISOString(),
      },
    });
  });

  it('counts on-duty responders within the dispatch radius and gives the nearest rounded to the km; off duty they no longer count', async () => {
    const near = await responderAt(3.4);
    await responderAt(9);
    await responderAt(40); // outside 15 km
    let coverage = (await a.live.get(at(KANO_GATE))).body.coverage;
    expect(coverage).toMatchObject({ covered: true, simulated: false, responders_within_radius: 2, nearest_responder_km: 3 });

    await setAvailable(near.token, false);
    coverage = (await a.live.get(at(KANO_GATE))).body.coverage;
    expect(coverage).toMatchObject({ covered: true, responders_within_radius: 1, nearest_responder_km: 9 });
  });

  it('live responders never count for sandbox, nor sandbox ones for live; sandbox says the simulated network covers everywhere', async () => {
    await responderAt(1, 'sandbox');
    const live = (await a.live.get(at(LONELY_GATE))).body.coverage;
    expect(live).toMatchObject({ covered: false, responders_within_radius: 0 });

    const sandbox = await a.sandbox.get(at(LONELY_GATE));
    expect(sandbox.status).toBe(200);
    // Ten simulated responders (server/dispatch/simulated-network.ts); Lagos' is about 9 km from Ikeja.
    expect(sandbox.body.coverage).toMatchObject({ environment: 'sandbox', covered: true, simulated: true, responders_within_radius: 10, nearest_responder_km: 9 });
    // Far from every simulated responder, sandbox still covers: it plays out every incident wherever it is.
    const nowhere = (await a.sandbox.get('/dispatch/coverage?latitude=-33.9&longitude=18.4')).body.coverage;
    expect(nowhere).toMatchObject({ covered: true, simulated: true });
    expect(nowhere.nearest_responder_km).toBeGreaterThan(2000);
  });

  it("the network is the service's, not an organization's: another organization sees the same count and the answer names no responder", async () => {
    const fromA = (await a.live.get(at(KANO_GATE))).body.coverage;
    const fromB = (await b.live.get(at(KANO_GATE))).body.coverage;
    expect(fromB).toEqual(fromA);
    expect(JSON.stringify(fromB)).not.toMatch(/rsp_|Responder|\+234/);
  });

  it('takes incidents:read or incidents:write; any other key is a 403 naming the scope', async () => {
    const reader = await a.keyWith(['incidents:read']);
    const writer = await a.keyWith(['incidents:write']);
    const gateKeyWithoutIncidents = await a.keyWith(['access_codes:validate', 'logs:read']);
    expect((await reader.get(at(KANO_GATE))).status).toBe(200);
    const written = await writer.get(at(KANO_GATE));
    expect(written.status).toBe(200);
    expect(written.body.coverage.responders_within_radius).toBe(1);
    expect(written.headers.get('x-ratelimit-limit')).not.toBeNull();
    const refused = await gateKeyWithoutIncidents.get(at(KANO_GATE));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 403, message: expect.stringContaining('incidents:read') });
    expect((await server.client().get(at(KANO_GATE))).status).toBe(401);
  });

  it('a write-only key is counted once by the rate limit, as any other request', async () => {
    const writer = await a.keyWith(['incidents:write']);
    const first = await writer.get(at(KANO_GATE));
    const second = await writer.get(at(KANO_GATE));
    expect(Number(first.headers.get('x-ratelimit-remaining')) - Number(second.headers.get('x-ratelimit-remaining'))).toBe(1);
  });

  it('a point out of range or not a plain number is a 400 naming the field', async () => {
    const res = await a.live.get('/dispatch/coverage?latitude=91&longitude=3');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('latitude');
    const hex = await a.live.get('/dispatch/coverage?latitude=6&longitude=0x10');
    expect(hex.status).toBe(400);
    expect(hex.body.message).toContain('longitude');
    expect((await a.live.get('/dispatch/coverage?latitude=6')).status).toBe(400);
  });

  it('is in the OpenAPI document with both scopes named', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    const operation = document.paths['/dispatch/coverage'].get;
    expect(operation.operationId).toBe('getDispatchCoverage');
    expect(operation.description).toContain('incidents:read');
    expect(operation.description).toContain('incidents:write');
    expect(document.components.schemas.DispatchCoverage.required).toEqual(
      expect.arrayContaining(['covered', 'simulated', 'responders_within_radius', 'nearest_responder_km']),
    );
  });
});
