import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawTo } from '../support/raw-http.ts';
import { startTestServer, type TestServer, expectErrorBody } from '../support/server.ts';

describe('health, reference document and unknown routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('health answers ok with the api version and a millisecond UTC timestamp, without a key', async () => {
    const res = await server.client().get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', api_version: 'v1', timestamp: '2026-11-22T10:00:00.000Z', checks: { database: 'ok' } });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('health refuses what every route refuses, in the error shape its document lists', async () => {
    const nul = await server.client().get('/health?probe=%00');
    expect(nul.status).toBe(400);
    expectErrorBody(nul.body, 400, expect.stringContaining('NUL'));
    // fetch sends no body with a GET; a raw socket does.
    const withText = await sendRawTo(server.running.port, 'GET /v1/external/health HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nping');
    expect(withText.status).toBe(400);
    expect(JSON.parse(withText.body)).toEqual({ code: 400, message: expect.stringContaining('Content-Type') });
    const documented = (await server.client().get('/openapi.json')).body.paths['/health'].get.responses;
    expect(documented['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
  });

  it('health answers 503 degraded when the database does not answer', async () => {
    const other = await startTestServer();
    await other.running.database.close();
    const res = await other.client().get('/health');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('degraded');
    expect(res.body.checks.database).toBe('down');
    await other.database.drop();
  });

  it('the OpenAPI document describes the health checks and that an SOS is never refused for the budget', async () => {
    const doc = (await server.client().get('/openapi.json')).body;
    const health = doc.components.schemas.Health;
    expect(health.properties.checks.properties.database.enum).toEqual(['ok', 'down']);
    expect(health.properties.checks.properties.redis.enum).toEqual(['ok', 'down']);
    expect(doc.paths['/health'].get.responses['200'].description).toContain('degraded');
    const createIncident = doc.paths['/incidents'].post;
    expect(createIncident.responses['429'].description).toContain('Never answered to an SOS');
    expect(createIncident.responses['429'].headers['Retry-After']).toBeDefined();
    expect(doc.paths['/access-codes/validate'].post.description).toContain('never refused by this guard');
  });

  it('the same routes answer under the /api/v1 alias', async () => {
    const res = await server.client().get('/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });

  it('an unknown route is a 404 in the error shape', async () => {
    const res = await server.client().get('/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: expect.stringContaining('/no-such-thing') });
  });

  it('every response carries a request id, and a sane incoming one is kept', async () => {
    const fresh = await server.client().get('/health');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const kept = await server.client().get('/health', { headers: { 'x-request-id': 'gate-3.req-17' } });
    expect(kept.headers.get('x-request-id')).toBe('gate-3.req-17');
    const replaced = await server.client().get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('serves the OpenAPI 3.1 document and the reference page from installed packages', async () => {
    const doc = await server.client().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    // That it lists every route served, and serves every route it lists: test/api/openapi-routes.test.ts.
    expect(doc.body.components.schemas.Incident.properties.status).toBeDefined();
    expect(doc.body.paths['/access-codes/validate'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ValidateAccessCodeRequest',
    );
    expect(doc.body.components.schemas.AccessCode.properties.qr_payload).toBeDefined();
    const page = await server.client().get('/docs');
    expect(page.status).toBe(200);
    expect(page.body).toContain('swagger-ui-bundle.js');
    const asset = await fetch(`${server.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });

  it('serves only the files the reference page loads, not the rest of the Swagger UI package', async () => {
    const page = (await server.client().get('/docs')).body as string;
    const loaded = [...page.matchAll(/(?:href|src)="(docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(loaded.length).toBeGreaterThanOrEqual(3);
    for (const path of loaded) expect((await fetch(`${server.baseUrl}/${path}`)).status, path).toBe(200);
    // The package's stock page (which would load its own petstore example), OAuth page, initializer and maps.
    for (const file of ['index.html', 'oauth2-redirect.html', 'swagger-initializer.js', 'swagger-ui-bundle.js.map', 'package.json', '']) {
      const res = await server.client().get(`/docs/assets/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.body).toEqual({ code: 404, message: expect.any(String) });
    }
  });

  it('/docs/ with a trailing slash leads to the reference page', async () => {
    for (const base of [server.baseUrl, `${server.baseUrl}/api/v1`]) {
      const bare = await fetch(`${base}/docs/`, { redirect: 'manual' });
      expect(bare.status).toBe(301);
      expect(new URL(bare.headers.get('location')!, `${base}/docs/`).href).toBe(`${base}/docs`);
      const followed = await fetch(`${base}/docs/`);
      expect(followed.status).toBe(200);
      expect(await followed.text()).toContain('swagger-ui-bundle.js');
    }
  });

  it("the reference opens on the API, and Try it out leaves a list's date filters empty", async () => {
    const document = (await server.client().get('/openapi.json')).body;
    const description: string = document.info.description;
    expect(description.indexOf('**Authentication**')).toBeLessThan(description.indexOf('UCDP'));
    expect(description.slice(0, 300)).not.toContain('UCDP');
    const dateParameters = Object.values<any>(document.paths)
      .flatMap((item) => Object.values<any>(item).flatMap((operation) => operation.parameters ?? []))
      .filter((parameter) => parameter.name === 'from_date' || parameter.name === 'to_date');
    expect(dateParameters.length).toBeGreaterThan(4);
    for (const parameter of dateParameters) expect([parameter.example, parameter.schema.example, parameter.schema.examples]).toEqual([undefined, undefined, undefined]);
  });
});
