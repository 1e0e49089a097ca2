import { get as httpGet } from 'node:http';
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

  it('serves the OpenAPI 3.1 document and the reference page, rendered from it', async () => {
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
    const html = page.body as string;
    // Every operation of the document is on the page, each with its own anchor, in the contents too.
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.body.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        operations += 1;
        expect(html, `${method} ${path}`).toContain(`id="op-${operation.operationId}"`);
        expect(html, `${method} ${path}`).toContain(`href="#op-${operation.operationId}"`);
      }
    }
    expect(operations).toBeGreaterThan(80);
    // Every named schema has its section, so each link to one leads somewhere.
    for (const name of Object.keys(doc.body.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
    for (const [, target] of html.matchAll(/href="#(schema-[^"]+)"/g)) expect(html).toContain(`id="${target}"`);
    // The fields of a body, with what is required.
    expect(html).toMatch(/<code>subject<\/code> <span class="required">required<\/span>/);
  });

  it('opens on a first request with this host\'s address, and keeps the protocol and the data citations below the operations', async () => {
    const html = (await server.client().get('/docs')).body as string;
    const firstRequest = html.indexOf('id="first-request"');
    const firstOperation = html.indexOf('class="operation"');
    const citations = html.indexOf('UCDP');
    expect(firstRequest).toBeGreaterThan(0);
    expect(firstRequest).toBeLessThan(firstOperation);
    expect(citations).toBeGreaterThan(firstOperation);
    expect(html.indexOf('<strong>Authentication</strong>')).toBeGreaterThan(firstOperation);
    expect(html).toContain(`BASE=${server.baseUrl}`);
    // The Host header is shown as text, never as markup.
    const hostile = await new Promise<string>((resolve, reject) => {
      const request = httpGet(`${server.baseUrl}/docs`, { headers: { host: 'evil.example"><script>x</script>' } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      });
      request.on('error', reject);
    });
    expect(hostile).toContain('BASE=http://evil.example&quot;&gt;&lt;script&gt;');
    expect(hostile).not.toContain('<script>');
  });

  it('the page runs no script and loads only its stylesheet: a CSP that allows nothing else, nosniff, never framed', async () => {
    const res = await fetch(`${server.baseUrl}/docs`);
    const html = await res.text();
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(html).not.toMatch(/<script|\son[a-z]+=|style="/i);
    const loaded = [...html.matchAll(/(?:href|src)="(docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(loaded).toEqual(['docs/assets/reference.css']);
    const css = await fetch(`${server.baseUrl}/${loaded[0]}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    // Nothing else of the old Swagger UI, or anything, is served under the assets.
    for (const file of ['swagger-ui-bundle.js', 'index.html', 'reference.js', '']) {
      const other = await server.client().get(`/docs/assets/${file}`);
      expect(other.status, file).toBe(404);
    }
  });

  it('/docs/ with a trailing slash leads to the reference page', async () => {
    for (const base of [server.baseUrl, `${server.baseUrl}/api/v1`]) {
      const bare = await fetch(`${base}/docs/`, { redirect: 'manual' });
      expect(bare.status).toBe(301);
      expect(new URL(bare.headers.get('location')!, `${base}/docs/`).href).toBe(`${base}/docs`);
      const followed = await fetch(`${base}/docs/`);
      expect(followed.status).toBe(200);
      expect(await followed.text()).toContain('id="first-request"');
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
