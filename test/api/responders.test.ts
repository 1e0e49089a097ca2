import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder, deactivateResponder } from '../../server/responders/service.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('responder API (/v1/responder)', () => {
  let server: TestServer;
  let responderBase: string;
  beforeAll(async () => {
    server = await startTestServer();
    responderBase = server.baseUrl.replace('/v1/external', '/v1/responder');
  });
  afterAll(() => server.stop());

  const call = async (path: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(responderBase + path, {
      method: init.method ?? 'GET',
      headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('a responder sees itself with its own token, and nothing else gets in', async () => {
    const { responder, token } = await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Okafor',
      phone: '+2348030000009',
      latitude: 6.45,
      longitude: 3.4,
      environment: 'live',
    });
    expect(token).toMatch(/^rtk_[0-9A-Za-z]{40}$/);
    const me = await call('/me', token);
    expect(me.status).toBe(200);
    expect(me.body.responder).toEqual({
      responder_id: responder.responder_id,
      name: 'Emeka Okafor',
      phone: '+2348030000009',
      environment: 'live',
      status: 'active',
      available: true,
      location: { latitude: 6.45, longitude: 3.4 },
      location_at: '2026-11-22T10:00:00.000Z',
      created_at: '2026-11-22T10:00:00.000Z',
    });
    expect((await call('/me', undefined)).status).toBe(401);
    expect((await call('/me', 'rtk_' + 'x'.repeat(40))).status).toBe(401);
    const partnerKey = (await server.createOrganization()).keys.live;
    expect((await call('/me', partnerKey)).body).toEqual({ code: 401, message: expect.stringContaining('responder token') });
  });

  it('the heartbeat reports availability and location', async () => {
    const { token } = await addResponder(server.running.database.db, server.clock, {
      name: 'Aisha Bello',
      phone: '+2348030000010',
      latitude: 9.07,
      longitude: 7.39,
      environment: 'live',
    });
    server.clock.advance(60_000);
    const beat = await call('/availability', token, { method: 'PUT', body: { available: false, latitude: 9.08, longitude: 7.41 } });
    server.clock.set('2026-11-22T10:00:00.000Z');
    expect(beat.status).toBe(200);
    expect(beat.body.responder).toMatchObject({ available: false, location: { latitude: 9.08, longitude: 7.41 }, location_at: '2026-11-22T10:01:00.000Z' });
    const bad = await call('/availability', token, { method: 'PUT', body: { available: true, latitude: 91, longitude: 7 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('latitude');
  });

  it('a deactivated responder is locked out', async () => {
    const { responder, token } = await addResponder(server.running.database.db, server.clock, {
      name: 'Tunde Bakare',
      phone: '+2348030000011',
      latitude: 6.5,
      longitude: 3.3,
      environment: 'sandbox',
    });
    const after = await deactivateResponder(server.running.database.db, server.clock, responder.responder_id);
    expect(after).toMatchObject({ status: 'deactivated', available: false });
    expect((await call('/me', token)).status).toBe(401);
  });

  it('publishes its own OpenAPI document, apart from the partner API', async () => {
    const res = await fetch(`${responderBase}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.info.title).toBe('Tsaro responder API');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/me', '/availability', '/offers', '/offers/{offerId}/accept', '/offers/{offerId}/decline', '/assignments', '/incidents/{incidentId}/status', '/incidents/{incidentId}/resolve']),
    );
    const partner = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as any;
    expect(Object.keys(partner.paths).some((path) => path.includes('offers'))).toBe(false);
  });
});
