import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_BASE, RESPONDER_API_BASE } from '../../server/app.ts';
import { STAFF_API_BASE } from '../../server/staff-api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** What router 2.3's `listRoutes()` answers (Express 5.3's `app.router`). */
interface RouteInfo {
  path: string | RegExp;
  methods?: string[];
  router?: Listable;
}
interface Listable {
  listRoutes(): RouteInfo[];
}

const join = (base: string, path: string) => (base.replace(/\/$/, '') + (path === '/' ? '' : path)) || '/';

/** Every `METHOD /full/path` the app serves, mounted routers walked to their routes. */
function servedRoutes(router: Listable, base = ''): string[] {
  return router.listRoutes().flatMap(({ path, methods, router: mounted }) => {
    if (typeof path !== 'string') throw new Error(`a route on a RegExp (${String(path)}) cannot be checked against the document`);
    if (mounted) return servedRoutes(mounted, join(base, path));
    // HEAD is Express's own answer to every GET, not a route of ours.
    return (methods ?? []).filter((method) => method !== 'HEAD').map((method) => `${method} ${join(base, path)}`);
  });
}

/** The same form from a document: `GET /incidents/:incidentId` for `paths['/incidents/{incidentId}'].get`. */
function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }, base: string): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${base}${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

/** Served on purpose outside the documents: the documents themselves and the reference page. */
const NOT_OPERATIONS = [
  `GET ${API_BASE}/openapi.json`,
  `GET ${API_BASE}/docs`,
  `GET ${API_BASE}/docs/assets/reference.css`,
  `GET ${RESPONDER_API_BASE}/openapi.json`,
  `GET ${STAFF_API_BASE}/openapi.json`,
];

const under = (base: string) => (route: string) => route.split(' ')[1]!.startsWith(`${base}/`);

describe('every route is in the OpenAPI document, and every documented operation is served', () => {
  let server: TestServer;
  let served: string[];
  beforeAll(async () => {
    server = await startTestServer();
    served = servedRoutes((server.running.app as unknown as { router: Listable }).router);
  });
  afterAll(() => server.stop());

  it('the partner API serves exactly the operations of /openapi.json', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    const canonical = served.filter(under(API_BASE)).filter((route) => !under(`${API_BASE}/api/v1`)(route));
    const apiRoutes = canonical.filter((route) => !NOT_OPERATIONS.includes(route));
    expect(apiRoutes.length).toBeGreaterThan(40);
    expect(new Set(apiRoutes)).toEqual(new Set(documentedRoutes(document, API_BASE)));
  });

  it('every partner write documents the Idempotency-Key header, and every keyed operation names its scope', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        // The console's own routes are for a person's browser, not programs: a session, not a key (test/api/console-people.test.ts).
        if (operation.tags?.includes('Console')) {
          expect(operation.summary, `${method} ${path}`).toBeDefined();
          continue;
        }
        const headers = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name);
        expect({ route: `${method} ${path}`, idempotencyKey: headers.includes('Idempotency-Key') }).toEqual({
          route: `${method} ${path}`,
          idempotencyKey: method !== 'get',
        });
        if (operation.security?.length === 0) continue;
        // One scope, or (the event stream) any of several.
        expect(operation.description, `${method} ${path}`).toMatch(/^(Scope `[a-z_:]+`|Any of the scopes `[a-z_:]+`(, `[a-z_:]+`)+)\./);
      }
    }
  });

  it('a request body the document marks required is a 400 when left out; one it leaves optional may be left out', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    const org = await server.createOrganization();
    const seen = { required: [] as string[], optional: [] as string[] };
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (!operation.requestBody || operation.tags?.includes('Console')) continue;
        const route = `${method.toUpperCase()} ${path}`;
        // Any id will do: ids are plain strings, so the body is what is judged (or the resource is not found).
        const res = await org.live.request(method.toUpperCase(), path.replace(/\{\w+\}/g, 'none_such'));
        if (operation.requestBody.required) {
          seen.required.push(route);
          expect({ route, status: res.status, message: res.body.message }).toEqual({ route, status: 400, message: expect.stringMatching(/^[\w.[\]]+ is required$/) });
        } else {
          seen.optional.push(route);
          expect({ route, status: res.status }).not.toEqual({ route, status: 400 });
        }
      }
    }
    expect(seen.required).toContain('POST /incidents');
    expect(seen.optional).toContain('PATCH /visitor-policies');
  });

  it('lists the kiosk and roll-call operations (issue #28) with their scopes', async () => {
    const document = (await server.client().get('/openapi.json')).body;
    const scopeOf = (path: string, method: string) => /^Scope `([a-z_:]+)`/.exec(document.paths[path]?.[method]?.description ?? '')?.[1];
    expect({
      heartbeat: scopeOf('/kiosks/{kioskId}/heartbeat', 'put'),
      listKiosks: scopeOf('/kiosks', 'get'),
      getKiosk: scopeOf('/kiosks/{kioskId}', 'get'),
      renameKiosk: scopeOf('/kiosks/{kioskId}', 'patch'),
      retireKiosk: scopeOf('/kiosks/{kioskId}', 'delete'),
      createRollCall: scopeOf('/roll-calls', 'post'),
      listRollCalls: scopeOf('/roll-calls', 'get'),
      getRollCall: scopeOf('/roll-calls/{rollCallId}', 'get'),
      markEntry: scopeOf('/roll-calls/{rollCallId}/entries/{logId}', 'patch'),
    }).toEqual({
      heartbeat: 'access_codes:validate',
      listKiosks: 'logs:read',
      getKiosk: 'logs:read',
      renameKiosk: 'access_codes:write',
      retireKiosk: 'access_codes:write',
      createRollCall: 'access_codes:write',
      listRollCalls: 'logs:read',
      getRollCall: 'logs:read',
      markEntry: 'access_codes:write',
    });
    expect(document.paths['/roll-calls'].post.description).toMatch(/logs:read/);
    expect(document.components.schemas.EventType.enum).toEqual(expect.arrayContaining(['kiosk.offline', 'kiosk.online']));
  });

  it('the /api/v1 alias serves the same routes as the canonical paths', () => {
    const alias = served.filter(under(`${API_BASE}/api/v1`)).map((route) => route.replace(`${API_BASE}/api/v1`, API_BASE));
    const canonical = served.filter(under(API_BASE)).filter((route) => !under(`${API_BASE}/api/v1`)(route));
    expect(new Set(alias)).toEqual(new Set(canonical));
  });

  it('the responder API serves exactly the operations of its own /openapi.json', async () => {
    const document = (await (await fetch(`${server.baseUrl.replace(API_BASE, RESPONDER_API_BASE)}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const apiRoutes = served.filter(under(RESPONDER_API_BASE)).filter((route) => !NOT_OPERATIONS.includes(route));
    expect(apiRoutes.length).toBeGreaterThan(7);
    expect(new Set(apiRoutes)).toEqual(new Set(documentedRoutes(document, RESPONDER_API_BASE)));
  });

  it('the staff API serves exactly the operations of its own /openapi.json', async () => {
    const document = (await (await fetch(`${server.baseUrl.replace(API_BASE, STAFF_API_BASE)}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const apiRoutes = served.filter(under(STAFF_API_BASE)).filter((route) => !NOT_OPERATIONS.includes(route));
    expect(apiRoutes.length).toBeGreaterThan(14);
    expect(new Set(apiRoutes)).toEqual(new Set(documentedRoutes(document, STAFF_API_BASE)));
  });

  it("nothing else is served but the responder web app, the console, / sending people to the console, the SMS gateway's delivery reports and the passes sent by text", () => {
    const elsewhere = served.filter((route) => !under(API_BASE)(route) && !under(RESPONDER_API_BASE)(route) && !under(STAFF_API_BASE)(route));
    // The delivery reports are Kannel's to call (docs/operations.md), with a token per text, not a partner's.
    expect(served.filter(under('/v1/hooks'))).toEqual(['GET /v1/hooks/kannel/dlr']);
    // A visitor's phone opens its pass by the token in the link (docs/api.md, "A visitor's pass by text").
    expect(served.filter(under('/p'))).toEqual(['GET /p/:token']);
    const apps = ['/responder', '/console', '/v1/hooks', '/p'];
    expect(elsewhere.filter((route) => !apps.some((app) => under(app)(route) || route.split(' ')[1] === app) && route !== 'GET /')).toEqual([]);
  });
});
