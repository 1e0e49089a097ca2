import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../shared/schemas/api-keys.ts';
import { newKeySecret } from '../../server/auth/secrets.ts';
import { createApiKey, revokeApiKey } from '../../server/auth/service.ts';
import { changeOrganization } from '../../server/organizations/service.ts';
import {
  incidentBody,
  startTestServer,
  type ApiClient,
  type ApiResponse,
  type TestOrganization,
  type TestServer,
} from '../support/server.ts';
import { openStream } from '../support/event-stream.ts';

/**
 * Every authenticated route against every way a caller can be turned away, in the contract's
 * order: 401 (missing, malformed, unknown or revoked key) → 402 (plan `none` or suspended) →
 * 403 (scope missing, the message names it) → 429; and 404 for another organization's or the
 * other environment's resource. A rejected call must also leave no trace.
 */

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ENTERPRISE_LIMIT = 1000;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Call {
  path: string;
  body?: unknown;
  /** A server-sent event stream: only its head is read, then it is closed. */
  stream?: boolean;
}

interface KeyRef {
  keyId: string;
  client: ApiClient;
}

interface RouteSpec {
  label: string;
  method: Method;
  scope: Scope;
  /** Scopes the route needs beside its own (a roll call shows visitors' phones: logs:read too). */
  alsoNeeds?: Scope[];
  /** Other scopes that open the route as well (the event stream: any read scope); a key "lacking the scope" lacks these too. */
  alsoOpenedBy?: Scope[];
  okStatus: number;
  /** A call org A may make successfully; creates the resource it needs. */
  success(): Promise<Call>;
  /** What the success answer must show besides its status. */
  checkSuccess(res: ApiResponse): void;
  /** The call the rejected cases send: at an existing live resource of org A. */
  target(): Call;
  /** Org A's view of what `target` could change: equal before and after a rejected call. */
  snapshot(): Promise<unknown>;
  /** The same operation on a resource of org B (sent with org A's live key). */
  foreign?: () => Call;
  /** The same operation on org A's sandbox resource (sent with org A's live key). */
  otherEnvironment?: () => Call;
  /** The same operation on org A's live resource (sent with org A's sandbox key). */
  liveFromSandbox?: () => Call;
}

/** A request the matrix sends: a client (its key) or a raw Authorization header. */
interface Caller {
  client?: ApiClient;
  authorization?: string;
}

interface RejectionCase {
  title: string;
  status: 401 | 402 | 403 | 429;
  /** Builds the caller; may spend the key's rate limit first. */
  caller(route: RouteSpec): Promise<Caller>;
  check?(res: ApiResponse, route: RouteSpec): void;
}

let server: TestServer;
let a: TestOrganization;
let b: TestOrganization;
let planNone: TestOrganization;
let suspended: TestOrganization;
let tight: TestOrganization;
let incidentA: string;
let incidentASandbox: string;
let incidentB: string;
let targetKeyA: KeyRef;
let keyB: KeyRef;
let sandboxKeyA: KeyRef;
let revokedViaApi: ApiClient;
let revokedInSuspended: ApiClient;
let revokedInPlanNone: ApiClient;
let kioskA: string;
let kioskASandbox: string;
let kioskB: string;
let rollCallA: { id: string; logId: string };
let rollCallASandbox: { id: string; logId: string };
let rollCallB: { id: string; logId: string };

let kioskSerial = 0;
const newKioskId = () => `kiosk_01JD7ZK3Q0C7W5N2Y8S4X${String(++kioskSerial).padStart(5, '0')}`;
const heartbeat = (overrides: Record<string, unknown> = {}) => ({
  entry_point: 'Gate A',
  app_version: '0.1.0',
  queued_operations: 0,
  oldest_queued_at: null,
  last_sync_at: null,
  needs_attention: 0,
  clock: '2026-11-22T10:00:00.000Z',
  ...overrides,
});

async function newKiosk(client: ApiClient): Promise<string> {
  const kioskId = newKioskId();
  const res = await client.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body: heartbeat() });
  expect(res.status).toBe(200);
  return kioskId;
}

async function kioskState(client: ApiClient, kioskId: string) {
  const res = await client.get(`/kiosks/${kioskId}`);
  expect(res.status).toBe(200);
  const { name, status, app_version } = res.body.kiosk;
  return { name, status: status === 'retired' ? 'retired' : 'in service', app_version };
}

/** A roll call with one visitor on it. */
async function newRollCall(client: ApiClient): Promise<{ id: string; logId: string }> {
  const visit = await client.post('/access-logs', { visitor_name: 'Ada Obi', visitor_phone: '+2348012345678' });
  expect(visit.status).toBe(201);
  const res = await client.post('/roll-calls', {});
  expect(res.status).toBe(201);
  return { id: res.body.roll_call.roll_call_id, logId: visit.body.access_log.log_id };
}

async function rollCallTicks(client: ApiClient, rollCallId: string): Promise<number> {
  const res = await client.get(`/roll-calls/${rollCallId}`);
  expect(res.status).toBe(200);
  return res.body.roll_call.accounted_for;
}

async function makeKey(org: TestOrganization, scopes: Scope[], environment: 'live' | 'sandbox' = 'live'): Promise<KeyRef> {
  const created = await createApiKey(server.running.database.db, server.clock, {
    organizationId: org.organizationId,
    environment,
    name: `matrix ${scopes.join(' ')}`,
    scopes,
    maker: { type: 'operator' },
  });
  return { keyId: created.api_key.key_id, client: server.client(created.secret) };
}

async function revokedKeyOf(org: TestOrganization): Promise<ApiClient> {
  const key = await makeKey(org, [...SCOPES]);
  await revokeApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live' }, key.keyId);
  return key.client;
}

async function newIncident(client: ApiClient): Promise<string> {
  const res = await client.post('/incidents', incidentBody());
  expect(res.status).toBe(201);
  return res.body.incident.incident_id as string;
}

async function send(caller: Caller, method: Method, call: Call): Promise<ApiResponse> {
  const client = caller.client ?? server.client();
  const headers: Record<string, string> = caller.authorization === undefined ? {} : { authorization: caller.authorization };
  if (call.stream) {
    const authorization = headers.authorization ?? (client.key === undefined ? undefined : `Bearer ${client.key}`);
    const opened = await openStream(server.baseUrl + call.path, authorization === undefined ? {} : { authorization });
    opened.close();
    return { status: opened.status, headers: opened.headers, body: opened.body };
  }
  return client.request(method, call.path, { body: call.body, headers });
}

function expectError(res: ApiResponse, status: number): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { code: status, message: expect.any(String) } });
  expect((res.body.message as string).trim()).not.toBe('');
}

function expectRateHeaders(res: ApiResponse, limit: number): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  const remaining = res.headers.get('x-ratelimit-remaining');
  expect(remaining).toMatch(/^\d+$/);
  expect(Number(remaining)).toBeLessThanOrEqual(limit);
  expect(res.headers.get('x-ratelimit-reset')).toMatch(ISO_MS_UTC);
}

/** The scopes a key gets when it must lack exactly the route's one. */
function allBut(scope: Scope): Scope[] {
  return SCOPES.filter((other) => other !== scope);
}

/** The scopes a key gets when it must lack every scope that opens the route. */
function lacking(route: RouteSpec): Scope[] {
  return allBut(route.scope).filter((other) => !route.alsoOpenedBy?.includes(other));
}

/** Spends one request of `client`'s window on a route its scopes allow. */
async function spendOne(client: ApiClient, scopes: readonly Scope[]): Promise<void> {
  const path = scopes.includes('incidents:read') ? '/incidents' : '/api-keys';
  expect(scopes.includes('incidents:read') || scopes.includes('admin')).toBe(true);
  const res = await client.get(path);
  expect(res.status).toBe(200);
}

async function incidentState(client: ApiClient, incidentId: string) {
  const res = await client.get(`/incidents/${incidentId}`);
  expect(res.status).toBe(200);
  const incident = res.body.incident;
  return { status: incident.status, version: incident.version, timeline: incident.timeline.length };
}

async function stillAuthenticates(key: KeyRef): Promise<number> {
  return (await key.client.get('/incidents?limit=1')).status;
}

const incidentSnapshot = () => incidentState(a.live, incidentA);

const ROUTES: RouteSpec[] = [
  {
    label: 'POST /incidents',
    method: 'POST',
    scope: 'incidents:write',
    okStatus: 201,
    success: async () => ({ path: '/incidents', body: incidentBody() }),
    checkSuccess: (res) => expect(res.body.incident.status).toBe('dispatching'),
    // Not an SOS: an SOS is never refused for budget (test/api/rate-limit.test.ts), so the 429 case needs another category.
    target: () => ({ path: '/incidents', body: incidentBody({ category: 'medical', description: 'must never be stored' }) }),
    snapshot: async () => (await a.live.get('/incidents?limit=1')).body.totalResults,
  },
  {
    label: 'GET /incidents',
    method: 'GET',
    scope: 'incidents:read',
    okStatus: 200,
    success: async () => ({ path: '/incidents' }),
    checkSuccess: (res) => expect(Array.isArray(res.body.results)).toBe(true),
    target: () => ({ path: '/incidents' }),
    snapshot: async () => null,
  },
  {
    label: 'GET /incidents/{incidentId}',
    method: 'GET',
    scope: 'incidents:read',
    okStatus: 200,
    success: async () => ({ path: `/incidents/${incidentA}` }),
    checkSuccess: (res) => expect(res.body.incident.incident_id).toBe(incidentA),
    target: () => ({ path: `/incidents/${incidentA}` }),
    snapshot: async () => null,
    foreign: () => ({ path: `/incidents/${incidentB}` }),
    otherEnvironment: () => ({ path: `/incidents/${incidentASandbox}` }),
    liveFromSandbox: () => ({ path: `/incidents/${incidentA}` }),
  },
  {
    label: 'POST /incidents/{incidentId}/cancel',
    method: 'POST',
    scope: 'incidents:write',
    okStatus: 200,
    success: async () => ({ path: `/incidents/${await newIncident(a.live)}/cancel`, body: { reason: 'false alarm' } }),
    checkSuccess: (res) => expect(res.body.incident.status).toBe('cancelled'),
    target: () => ({ path: `/incidents/${incidentA}/cancel`, body: { reason: 'must never cancel' } }),
    snapshot: incidentSnapshot,
    foreign: () => ({ path: `/incidents/${incidentB}/cancel`, body: {} }),
    otherEnvironment: () => ({ path: `/incidents/${incidentASandbox}/cancel`, body: {} }),
    liveFromSandbox: () => ({ path: `/incidents/${incidentA}/cancel`, body: {} }),
  },
  {
    label: 'POST /incidents/{incidentId}/notes',
    method: 'POST',
    scope: 'incidents:write',
    okStatus: 200,
    success: async () => ({ path: `/incidents/${await newIncident(a.live)}/notes`, body: { message: 'Gate 3 reports all clear' } }),
    checkSuccess: (res) => expect(res.body.incident.timeline.at(-1)).toMatchObject({ event: 'note', message: 'Gate 3 reports all clear' }),
    target: () => ({ path: `/incidents/${incidentA}/notes`, body: { message: 'must never be noted' } }),
    snapshot: incidentSnapshot,
    foreign: () => ({ path: `/incidents/${incidentB}/notes`, body: { message: 'cross-tenant note' } }),
    otherEnvironment: () => ({ path: `/incidents/${incidentASandbox}/notes`, body: { message: 'cross-environment note' } }),
    liveFromSandbox: () => ({ path: `/incidents/${incidentA}/notes`, body: { message: 'cross-environment note' } }),
  },
  {
    label: 'POST /api-keys',
    method: 'POST',
    scope: 'admin',
    okStatus: 201,
    // A key holding only `admin` may grant only `admin`.
    success: async () => ({ path: '/api-keys', body: { name: 'made by the matrix', scopes: ['admin'] } }),
    checkSuccess: (res) => expect(res.body.secret).toMatch(/^svc_live_/),
    target: () => ({ path: '/api-keys', body: { name: 'must never exist', scopes: ['incidents:read'] } }),
    snapshot: async () => (await a.live.get('/api-keys?limit=1')).body.totalResults,
  },
  {
    label: 'GET /api-keys',
    method: 'GET',
    scope: 'admin',
    okStatus: 200,
    success: async () => ({ path: '/api-keys' }),
    checkSuccess: (res) => expect(res.body.totalResults).toBeGreaterThan(0),
    target: () => ({ path: '/api-keys' }),
    snapshot: async () => null,
  },
  {
    label: 'DELETE /api-keys/{keyId}',
    method: 'DELETE',
    scope: 'admin',
    okStatus: 200,
    success: async () => ({ path: `/api-keys/${(await makeKey(a, ['incidents:read'])).keyId}` }),
    checkSuccess: (res) => expect(res.body.api_key.revoked_at).toMatch(ISO_MS_UTC),
    target: () => ({ path: `/api-keys/${targetKeyA.keyId}` }),
    snapshot: () => stillAuthenticates(targetKeyA),
    foreign: () => ({ path: `/api-keys/${keyB.keyId}` }),
    otherEnvironment: () => ({ path: `/api-keys/${sandboxKeyA.keyId}` }),
    liveFromSandbox: () => ({ path: `/api-keys/${targetKeyA.keyId}` }),
  },
  // The event stream opens with any read scope; only its head is read.
  {
    label: 'GET /events/stream',
    method: 'GET',
    scope: 'incidents:read',
    alsoOpenedBy: ['access_codes:read', 'logs:read'],
    okStatus: 200,
    success: async () => ({ path: '/events/stream', stream: true }),
    checkSuccess: (res) => expect(res.headers.get('content-type')).toBe('text/event-stream'),
    target: () => ({ path: '/events/stream', stream: true }),
    snapshot: async () => null,
  },
  // Threat intelligence: one data set for everyone, so there is no foreign resource; the guard's order still holds.
  ...(
    [
      ['GET /safety/score', '/safety/score?latitude=9.0765&longitude=7.3986', 'score'],
      ['GET /safety/route', '/safety/route?from_lat=6.5244&from_lng=3.3792&to_lat=9.0765&to_lng=7.3986', 'route_safety_score'],
      ['GET /danger-zones/analytics', '/danger-zones/analytics?latitude=9.0765&longitude=7.3986', 'analytics'],
      ['GET /danger-zones/heatmap', '/danger-zones/heatmap?bounds=4,2.6,14,14.7', 'heatmap'],
      ['GET /danger-zones', '/danger-zones', 'results'],
      ['GET /threat/coverage', '/threat/coverage', 'countries'],
    ] as const
  ).map(
    ([label, path, field]): RouteSpec => ({
      label,
      method: 'GET',
      scope: 'analytics:read',
      okStatus: 200,
      success: async () => ({ path }),
      checkSuccess: (res) => expect(res.body).toHaveProperty(field),
      target: () => ({ path }),
      snapshot: async () => null,
    }),
  ),
  // Gate kiosks (issue #28). A heartbeat under another organization's kiosk id makes a kiosk of the
  // caller's own (test/api/kiosks.test.ts), so it has no foreign case.
  {
    label: 'PUT /kiosks/{kioskId}/heartbeat',
    method: 'PUT',
    scope: 'access_codes:validate',
    okStatus: 200,
    success: async () => ({ path: `/kiosks/${newKioskId()}/heartbeat`, body: heartbeat() }),
    checkSuccess: (res) => expect(res.body.kiosk.status).toBe('online'),
    target: () => ({ path: `/kiosks/${kioskA}/heartbeat`, body: heartbeat({ app_version: 'never-recorded' }) }),
    snapshot: () => kioskState(a.live, kioskA),
  },
  {
    label: 'GET /kiosks',
    method: 'GET',
    scope: 'logs:read',
    okStatus: 200,
    success: async () => ({ path: '/kiosks' }),
    checkSuccess: (res) => expect(res.body.totalResults).toBeGreaterThan(0),
    target: () => ({ path: '/kiosks' }),
    snapshot: async () => null,
  },
  {
    label: 'GET /kiosks/{kioskId}',
    method: 'GET',
    scope: 'logs:read',
    okStatus: 200,
    success: async () => ({ path: `/kiosks/${kioskA}` }),
    checkSuccess: (res) => expect(res.body.kiosk.kiosk_id).toBe(kioskA),
    target: () => ({ path: `/kiosks/${kioskA}` }),
    snapshot: async () => null,
    foreign: () => ({ path: `/kiosks/${kioskB}` }),
    otherEnvironment: () => ({ path: `/kiosks/${kioskASandbox}` }),
    liveFromSandbox: () => ({ path: `/kiosks/${kioskA}` }),
  },
  {
    label: 'PATCH /kiosks/{kioskId}',
    method: 'PATCH',
    scope: 'access_codes:write',
    okStatus: 200,
    success: async () => ({ path: `/kiosks/${await newKiosk(a.live)}`, body: { name: 'North gate' } }),
    checkSuccess: (res) => expect(res.body.kiosk.name).toBe('North gate'),
    target: () => ({ path: `/kiosks/${kioskA}`, body: { name: 'must never be named' } }),
    snapshot: () => kioskState(a.live, kioskA),
    foreign: () => ({ path: `/kiosks/${kioskB}`, body: { name: 'cross-tenant' } }),
    otherEnvironment: () => ({ path: `/kiosks/${kioskASandbox}`, body: { name: 'cross-environment' } }),
    liveFromSandbox: () => ({ path: `/kiosks/${kioskA}`, body: { name: 'cross-environment' } }),
  },
  {
    label: 'DELETE /kiosks/{kioskId}',
    method: 'DELETE',
    scope: 'access_codes:write',
    okStatus: 200,
    success: async () => ({ path: `/kiosks/${await newKiosk(a.live)}` }),
    checkSuccess: (res) => expect(res.body.kiosk.status).toBe('retired'),
    target: () => ({ path: `/kiosks/${kioskA}` }),
    snapshot: () => kioskState(a.live, kioskA),
    foreign: () => ({ path: `/kiosks/${kioskB}` }),
    otherEnvironment: () => ({ path: `/kiosks/${kioskASandbox}` }),
    liveFromSandbox: () => ({ path: `/kiosks/${kioskA}` }),
  },
  // Roll calls: writing needs access_codes:write and logs:read (the list shows visitors' phones).
  {
    label: 'POST /roll-calls',
    method: 'POST',
    scope: 'access_codes:write',
    alsoNeeds: ['logs:read'],
    okStatus: 201,
    success: async () => ({ path: '/roll-calls', body: {} }),
    checkSuccess: (res) => expect(res.body.roll_call.roll_call_id).toMatch(/^rcl_/),
    target: () => ({ path: '/roll-calls', body: {} }),
    snapshot: async () => (await a.live.get('/roll-calls?limit=1')).body.totalResults,
  },
  {
    label: 'GET /roll-calls',
    method: 'GET',
    scope: 'logs:read',
    okStatus: 200,
    success: async () => ({ path: '/roll-calls' }),
    checkSuccess: (res) => expect(res.body.totalResults).toBeGreaterThan(0),
    target: () => ({ path: '/roll-calls' }),
    snapshot: async () => null,
  },
  {
    label: 'GET /roll-calls/{rollCallId}',
    method: 'GET',
    scope: 'logs:read',
    okStatus: 200,
    success: async () => ({ path: `/roll-calls/${rollCallA.id}` }),
    checkSuccess: (res) => expect(res.body.roll_call.entries).toHaveLength(1),
    target: () => ({ path: `/roll-calls/${rollCallA.id}` }),
    snapshot: async () => null,
    foreign: () => ({ path: `/roll-calls/${rollCallB.id}` }),
    otherEnvironment: () => ({ path: `/roll-calls/${rollCallASandbox.id}` }),
    liveFromSandbox: () => ({ path: `/roll-calls/${rollCallA.id}` }),
  },
  {
    label: 'PATCH /roll-calls/{rollCallId}/entries/{logId}',
    method: 'PATCH',
    scope: 'access_codes:write',
    alsoNeeds: ['logs:read'],
    okStatus: 200,
    success: async () => {
      const fresh = await newRollCall(a.live);
      return { path: `/roll-calls/${fresh.id}/entries/${fresh.logId}`, body: { accounted_for: true } };
    },
    checkSuccess: (res) => expect(res.body.entry.accounted_for).toBe(true),
    target: () => ({ path: `/roll-calls/${rollCallA.id}/entries/${rollCallA.logId}`, body: { accounted_for: true } }),
    snapshot: () => rollCallTicks(a.live, rollCallA.id),
    foreign: () => ({ path: `/roll-calls/${rollCallB.id}/entries/${rollCallB.logId}`, body: { accounted_for: true } }),
    otherEnvironment: () => ({ path: `/roll-calls/${rollCallASandbox.id}/entries/${rollCallASandbox.logId}`, body: { accounted_for: true } }),
    liveFromSandbox: () => ({ path: `/roll-calls/${rollCallA.id}/entries/${rollCallA.logId}`, body: { accounted_for: true } }),
  },
];

const REJECTIONS: RejectionCase[] = [
  // 401: who is calling cannot be established.
  { title: 'without an Authorization header', status: 401, caller: async () => ({}) },
  { title: 'with the malformed header "Bearer abc"', status: 401, caller: async () => ({ authorization: 'Bearer abc' }) },
  { title: 'with the malformed header "Basic x"', status: 401, caller: async () => ({ authorization: 'Basic x' }) },
  {
    title: 'with the malformed header "Bearer svc_live_short"',
    status: 401,
    caller: async () => ({ authorization: 'Bearer svc_live_short' }),
  },
  { title: 'with a bare "Bearer" and no key', status: 401, caller: async () => ({ authorization: 'Bearer' }) },
  { title: 'with a real owner key sent without a scheme', status: 401, caller: async () => ({ authorization: a.keys.live }) },
  {
    title: 'with a real owner key under the Basic scheme',
    status: 401,
    caller: async () => ({ authorization: `Basic ${a.keys.live}` }),
  },
  {
    title: 'with a real owner key followed by junk',
    status: 401,
    caller: async () => ({ authorization: `Bearer ${a.keys.live} extra` }),
  },
  {
    title: 'with a well-formed live key that was never issued',
    status: 401,
    caller: async () => ({ authorization: `Bearer ${newKeySecret('live')}` }),
  },
  {
    title: 'with a well-formed sandbox key that was never issued',
    status: 401,
    caller: async () => ({ authorization: `Bearer ${newKeySecret('sandbox')}` }),
  },
  { title: 'with a key revoked through DELETE /api-keys', status: 401, caller: async () => ({ client: revokedViaApi }) },
  // 401 comes before 402.
  { title: 'with a revoked key of a suspended organization', status: 401, caller: async () => ({ client: revokedInSuspended }) },
  { title: 'with a revoked key of an organization on plan none', status: 401, caller: async () => ({ client: revokedInPlanNone }) },
  // 402: the organization may not use the API.
  { title: 'with the owner key of an organization on plan none', status: 402, caller: async () => ({ client: planNone.live }) },
  { title: 'with the owner key of a suspended organization', status: 402, caller: async () => ({ client: suspended.live }) },
  // 402 comes before 403.
  {
    title: 'with a key lacking the scope in a suspended organization',
    status: 402,
    caller: async (route) => ({ client: await suspended.keyWith(lacking(route)) }),
  },
  {
    title: 'with a key lacking the scope in an organization on plan none',
    status: 402,
    caller: async (route) => ({ client: await planNone.keyWith(lacking(route)) }),
  },
  // 403: the key may not do this.
  {
    title: 'with a key holding every scope but the route one',
    status: 403,
    caller: async (route) => ({ client: await a.keyWith(lacking(route)) }),
    check: (res, route) => {
      expect(res.body.message).toContain(route.scope);
      expectRateHeaders(res, ENTERPRISE_LIMIT);
    },
  },
  {
    title: 'with a sandbox key lacking the scope',
    status: 403,
    caller: async (route) => ({ client: await a.keyWith(lacking(route), 'sandbox') }),
    check: (res, route) => expect(res.body.message).toContain(route.scope),
  },
  // 403 comes before 429.
  {
    title: 'with a key lacking the scope that is already over its rate limit',
    status: 403,
    caller: async (route) => {
      const scopes = lacking(route);
      const client = await tight.keyWith(scopes);
      await spendOne(client, scopes);
      return { client };
    },
    check: (res, route) => {
      expect(res.body.message).toContain(route.scope);
      expectRateHeaders(res, 1);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    },
  },
  // 429: everything else is right, the window is full.
  {
    title: 'with a key holding the scope that is over its rate limit',
    status: 429,
    caller: async () => {
      const client = await tight.keyWith([...SCOPES]);
      await spendOne(client, SCOPES);
      return { client };
    },
    check: (res) => {
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expectRateHeaders(res, 1);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    },
  },
];

function rejectionTitle(route: RouteSpec, rejection: RejectionCase): string {
  const title = rejection.title.replaceAll('the scope', route.scope).replace('the route one', route.scope);
  const naming = rejection.status === 403 ? ' naming the scope' : '';
  return `${route.label} ${title} answers ${rejection.status}${naming}`;
}

beforeAll(async () => {
  server = await startTestServer();
  const db = server.running.database.db;
  [a, b, planNone, suspended, tight] = [
    await server.createOrganization({ name: 'Alpha Estate' }),
    await server.createOrganization({ name: 'Bravo Estate' }),
    await server.createOrganization({ name: 'Nil Plan Estate', plan: 'none' }),
    await server.createOrganization({ name: 'Suspended Estate' }),
    await server.createOrganization({ name: 'Tight Estate' }),
  ];
  incidentA = await newIncident(a.live);
  incidentASandbox = await newIncident(a.sandbox);
  incidentB = await newIncident(b.live);
  targetKeyA = await makeKey(a, ['incidents:read']);
  keyB = await makeKey(b, ['incidents:read']);
  sandboxKeyA = await makeKey(a, ['incidents:read'], 'sandbox');
  [kioskA, kioskASandbox, kioskB] = [await newKiosk(a.live), await newKiosk(a.sandbox), await newKiosk(b.live)];
  [rollCallA, rollCallASandbox, rollCallB] = [await newRollCall(a.live), await newRollCall(a.sandbox), await newRollCall(b.live)];

  // A key revoked the way a partner does it: DELETE /api-keys/{keyId} with an admin key.
  const created = await a.live.post('/api-keys', { name: 'soon revoked', scopes: [...SCOPES] });
  expect(created.status).toBe(201);
  revokedViaApi = server.client(created.body.secret);
  expect((await revokedViaApi.get('/incidents')).status).toBe(200);
  const revoked = await a.live.delete(`/api-keys/${created.body.api_key.key_id}`);
  expect(revoked.status).toBe(200);
  expect(revoked.body.api_key.revoked_at).toMatch(ISO_MS_UTC);

  // The suspended organization worked until it was suspended: its 402 is the suspension.
  expect((await suspended.live.get('/incidents')).status).toBe(200);
  revokedInSuspended = await revokedKeyOf(suspended);
  revokedInPlanNone = await revokedKeyOf(planNone);
  expect(await changeOrganization(db, server.clock, suspended.organizationId, { suspended: true })).toMatchObject({
    subscription_status: 'suspended',
  });
  expect(await changeOrganization(db, server.clock, tight.organizationId, { rateLimitPerMinute: 1 })).toMatchObject({
    rate_limit_per_minute: 1,
  });
});

afterAll(() => server?.stop());

// Every test starts with empty rate windows (only the tight organization's are meant to fill).
beforeEach(() => server.clock.advance(61_000));

describe.each(ROUTES.map((route) => [route.label, route] as const))('%s', (_label, route) => {
  it(`${route.label} with a key holding only ${[route.scope, ...(route.alsoNeeds ?? [])].join(' and ')} answers ${route.okStatus} with the rate-limit headers`, async () => {
    const client = await a.keyWith([route.scope, ...(route.alsoNeeds ?? [])]);
    const res = await send({ client }, route.method, await route.success());
    expect(res.status, JSON.stringify(res.body)).toBe(route.okStatus);
    route.checkSuccess(res);
    expectRateHeaders(res, ENTERPRISE_LIMIT);
    // A fresh key's first request: one counted, and the window resets a minute after it.
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(ENTERPRISE_LIMIT - 1));
    expect(res.headers.get('x-ratelimit-reset')).toBe(new Date(server.clock.now().getTime() + 60_000).toISOString());
  });

  it.each(REJECTIONS.map((rejection) => [rejectionTitle(route, rejection), rejection] as const))('%s', async (_name, rejection) => {
    const caller = await rejection.caller(route);
    const before = await route.snapshot();
    const res = await send(caller, route.method, route.target());
    expectError(res, rejection.status);
    rejection.check?.(res, route);
    expect(await route.snapshot()).toEqual(before);
  });

  const crossTenant = [
    { name: `${route.label} for another organization's resource answers 404`, call: route.foreign, sandbox: false },
    {
      name: `${route.label} with a live key for a sandbox resource of the same organization answers 404`,
      call: route.otherEnvironment,
      sandbox: false,
    },
    {
      name: `${route.label} with a sandbox key for a live resource of the same organization answers 404`,
      call: route.liveFromSandbox,
      sandbox: true,
    },
  ].filter((c): c is { name: string; call: () => Call; sandbox: boolean } => c.call !== undefined);

  if (crossTenant.length) {
    it.each(crossTenant.map((c) => [c.name, c] as const))('%s', async (_name, { call, sandbox }) => {
      const res = await send({ client: sandbox ? a.sandbox : a.live }, route.method, call());
      expectError(res, 404);
      // Nothing of the other tenant changed.
      expect(await incidentState(b.live, incidentB)).toEqual({ status: 'dispatching', version: expect.any(Number), timeline: 2 });
      expect(await incidentState(a.sandbox, incidentASandbox)).toMatchObject({ status: 'dispatching', timeline: 2 });
      expect(await stillAuthenticates(keyB)).toBe(200);
      expect(await stillAuthenticates(sandboxKeyA)).toBe(200);
      expect(await stillAuthenticates(targetKeyA)).toBe(200);
    });
  }
});

describe('no rejected call left a trace', () => {
  it("org A's target incident was never cancelled or noted by a rejected call", async () => {
    // The success cases use fresh incidents; incident A was only ever the target of rejected calls.
    const res = await a.live.get(`/incidents/${incidentA}`);
    expect(res.status).toBe(200);
    expect(res.body.incident.status).toBe('dispatching');
    expect(res.body.incident.timeline.map((entry: { event: string }) => entry.event)).toEqual(['created', 'dispatched']);
  });

  it('no key named "must never exist" and no incident described "must never be stored" was created', async () => {
    const keys = await a.live.get('/api-keys?limit=100');
    expect(keys.status).toBe(200);
    expect(keys.body.totalResults).toBeLessThanOrEqual(100);
    expect(keys.body.results.map((key: { name: string }) => key.name)).not.toContain('must never exist');
    const incidents = await a.live.get('/incidents?limit=100');
    expect(incidents.status).toBe(200);
    expect(incidents.body.totalResults).toBeLessThanOrEqual(100);
    expect(incidents.body.results.map((incident: { description: string | null }) => incident.description)).not.toContain(
      'must never be stored',
    );
  });

  it('lists show only the caller organization and environment', async () => {
    const incidents = await a.live.get('/incidents?limit=100');
    const ids = incidents.body.results.map((incident: { incident_id: string }) => incident.incident_id);
    expect(ids).toContain(incidentA);
    expect(ids).not.toContain(incidentB);
    expect(ids).not.toContain(incidentASandbox);
    const keys = await a.live.get('/api-keys?limit=100');
    const keyIds = keys.body.results.map((key: { key_id: string }) => key.key_id);
    expect(keyIds).toContain(targetKeyA.keyId);
    expect(keyIds).not.toContain(keyB.keyId);
    expect(keyIds).not.toContain(sandboxKeyA.keyId);
  });
});
