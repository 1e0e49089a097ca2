import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder, deactivateResponder, ResponderInputError } from '../../server/responders/service.ts';
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
    // Every responder route in it, and nothing else: test/api/openapi-routes.test.ts.
    const partner = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as any;
    expect(Object.keys(partner.paths).some((path) => path.includes('offers'))).toBe(false);
  });

  it('a new responder is checked by the shared schema; the error names the field in the schema\'s words', async () => {
    const add = (overrides: Record<string, unknown>) =>
      addResponder(server.running.database.db, server.clock, { name: 'Bola Ade', phone: '+2348030000099', latitude: 6.5, longitude: 3.3, environment: 'live', ...overrides } as any);
    await expect(add({ latitude: 91 })).rejects.toMatchObject({ field: 'latitude', message: 'latitude: a latitude from -90 to 90' });
    await expect(add({ longitude: Number('east') })).rejects.toMatchObject({ field: 'longitude' });
    await expect(add({ phone: 'call me' })).rejects.toMatchObject({ field: 'phone', message: 'phone: a phone number, e.g. +2348030000000' });
    await expect(add({ name: '   ' })).rejects.toBeInstanceOf(ResponderInputError);
    expect((await add({ name: '  Bola Ade  ' })).responder.name).toBe('Bola Ade');
  });

  it('a responder deactivated during a long poll gets its 401 at once, not at the end of the wait', async () => {
    const { responder, token } = await addResponder(server.running.database.db, server.clock, {
      name: 'Kemi Adeyemi',
      phone: '+2348030000012',
      latitude: 6.5,
      longitude: 3.3,
      environment: 'live',
    });
    const polling = call('/offers?wait=30', token);
    await new Promise((done) => setTimeout(done, 300));
    await deactivateResponder(server.running.database.db, server.clock, responder.responder_id);
    const answer = await polling;
    expect(answer.status).toBe(401);
    expect(answer.body.message).toContain('deactivated');
  });

  it('serves the responder app at /responder/ on the same origin: page, manifest and service worker revalidated, assets kept', async () => {
    const { ensureResponderAppBuilt } = await import('../../responder-app/build.ts');
    await ensureResponderAppBuilt();
    const origin = new URL(server.baseUrl).origin;
    const bare = await fetch(`${origin}/responder`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/responder/');
    const page = await fetch(`${origin}/responder/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).toContain('<link rel="manifest" href="/responder/manifest.webmanifest"');
    const manifest = (await (await fetch(`${origin}/responder/manifest.webmanifest`)).json()) as any;
    expect(manifest).toMatchObject({ start_url: '/responder/', scope: '/responder/', display: 'standalone' });
    const worker = await fetch(`${origin}/responder/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('service-worker-allowed')).toBe('/responder/');
    const script = /src="(\/responder\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(origin + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${origin}/responder/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: 404, message: expect.any(String) });
  });

  it('answers /responder/ with a policy that runs no inline script, frames nowhere and leaks no referrer, and its page holds no inline script', async () => {
    const { ensureResponderAppBuilt } = await import('../../responder-app/build.ts');
    await ensureResponderAppBuilt();
    const origin = new URL(server.baseUrl).origin;
    for (const path of ['/responder/', '/responder/sw.js', '/responder/nope.js']) {
      const res = await fetch(origin + path);
      const policy = (res.headers.get('content-security-policy') ?? '').split(';').map((directive) => directive.trim());
      expect(policy, path).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]));
      expect(policy.join(' '), path).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    const html = await (await fetch(`${origin}/responder/`)).text();
    // Every script is a file of this origin: an inline one would be refused by the policy.
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/src="\/responder\//);
      expect(body!.trim()).toBe('');
    }
  });
});
