import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { joinConsole, type JoinedPerson } from '../support/console.ts';
import { checkProperty } from '../support/property.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { joinStaff, staffBase, type JoinedStaff } from '../support/staff.ts';

/**
 * Issue #46's last Done-when: hostile input over every operation, on both engines, never a 5xx.
 * Every operation of the three OpenAPI documents (the partner API with the console's routes, the
 * responder API, the staff API) is sent hostile path ids, query strings and bodies by the caller
 * its realm expects (an owner's live key, an owner's console session, a responder's token, a
 * network admin's staff session), so the input reaches the handlers rather than stopping at the
 * door. Whatever arrives: no 5xx, and every 4xx is the reference's error shape with `code` equal
 * to the status. test/api/hostile-input.test.ts goes deeper on a few operations, where the
 * exact answer is knowable.
 */

const RUNS_PER_OPERATION = 20;
/** A request still open after this is a held stream or a long poll: its status line already said what it is. */
const HEADERS_WITHIN_MS = 8_000;

type Realm = 'partner' | 'console' | 'responder' | 'staff' | 'public';
interface Operation {
  realm: Realm;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProperties: string[] | null;
}
interface Answer {
  status: number;
  contentType: string;
  body: unknown;
}

/** Strings an attacker tries: control and invisible characters, encodings, injections, sizes, JSON words. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '..',
    '../../etc/passwd',
    '%',
    '%zz',
    '%E0%A4%A',
    '\u0001',
    '\u202e',
    ' ',
    '__proto__',
    'constructor',
    "' OR 1=1 --",
    '"; DROP TABLE visits; --',
    '<script>alert(1)</script>',
    '9'.repeat(40),
    '-1',
    '0',
    '1e309',
    'NaN',
    'Infinity',
    'null',
    'true',
    '[]',
    '{}',
    '2026-02-30T25:61:00Z',
    '+99999-01-01T00:00:00Z',
    'a'.repeat(5_000),
  ),
);
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  hostileText,
  fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, true, false, null, [], {}),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

/** A path id: percent-encoded as a client would, or raw percent garbage as an attacker would. */
const hostileId = fc.oneof(
  { weight: 3, arbitrary: hostileText.filter((text) => text.length > 0).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '%00', '%2e%2e', '%2F', '%u0041') },
);

function hostileRequest(operation: Operation) {
  const query = fc.oneof(
    fc.constant(''),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...(operation.queryParams.length ? operation.queryParams : ['q'])), hostileText), hostileText), {
        minLength: 1,
        maxLength: 4,
      })
      .map((pairs) => new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, value])).toString()),
    fc.constantFrom('page=%zz', 'limit=1&limit=2', '%=%', 'cursor=' + 'A'.repeat(3_000), 'from_date[]=1', 'a[b][c]=1'),
  );
  const body =
    operation.bodyProperties === null
      ? fc.constant<{ raw: string } | undefined>(undefined)
      : fc.oneof(
          fc.anything({ maxDepth: 3 }).map((value) => ({ raw: JSON.stringify(value) ?? 'undefined' })),
          fc
            .dictionary(fc.constantFrom(...(operation.bodyProperties.length ? operation.bodyProperties : ['x'])), hostileJson, { maxKeys: 6 })
            .map((value) => ({ raw: JSON.stringify(value) })),
          fc.constantFrom('{', '{"a":', 'null', '[]', '"text"', '{"__proto__":{"x":1}}', '\ufeff{}', '{"a":"\\ud800"}').map((raw) => ({ raw })),
        );
  return fc.record({ ids: fc.array(hostileId, { minLength: operation.pathParams.length, maxLength: operation.pathParams.length }), query, body });
}

function operationsOf(document: any, realm: (operation: any) => Realm): Operation[] {
  const refOf = (schema: any): any => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema);
  return Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => {
        const parameters: any[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
        const schema = refOf(operation.requestBody?.content?.['application/json']?.schema);
        return {
          realm: realm(operation),
          method: method.toUpperCase(),
          path,
          pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
          queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name as string),
          bodyProperties: operation.requestBody ? Object.keys(refOf(schema)?.properties ?? {}) : null,
        };
      }),
  );
}

describe('hostile input over every operation of every document (issue #46)', () => {
  let server: TestServer;
  let org: TestOrganization;
  let owner: JoinedPerson;
  let staff: JoinedStaff;
  let responderToken: string;
  const operations: Operation[] = [];
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Hostile Operations Estate' });
    owner = await joinConsole(server, org.organizationId, 'owner');
    staff = await joinStaff(server, 'network_admin');
    ({ token: responderToken } = await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Okafor',
      phone: '+2348030000099',
      latitude: 6.45,
      longitude: 3.4,
      environment: 'live',
    }));
    const partner = (await org.live.get('/openapi.json')).body;
    const responder = await (await fetch(server.baseUrl.replace('/v1/external', '/v1/responder') + '/openapi.json')).json();
    const staffDocument = await (await fetch(staffBase(server) + '/openapi.json')).json();
    operations.push(
      ...operationsOf(partner, (operation) => (operation.tags?.includes('Console') ? 'console' : operation.security?.length === 0 ? 'public' : 'partner')),
      ...operationsOf(responder, (operation) => (operation.security?.length === 0 ? 'public' : 'responder')),
      ...operationsOf(staffDocument, () => 'staff'),
    );
  }, 120_000);
  afterAll(() => server?.stop());

  /** The realm's base address and the headers its caller sends. */
  function callerOf(realm: Realm): { base: string; headers: Record<string, string> } {
    const origin = new URL(server.baseUrl).origin;
    switch (realm) {
      case 'partner':
        return { base: server.baseUrl, headers: { authorization: `Bearer ${org.keys.live}` } };
      case 'public':
        return { base: server.baseUrl, headers: {} };
      case 'responder':
        return { base: server.baseUrl.replace('/v1/external', '/v1/responder'), headers: { authorization: `Bearer ${responderToken}` } };
      case 'console':
      case 'staff': {
        const browser = realm === 'console' ? owner.browser : staff.browser;
        return {
          base: browser.baseUrl,
          headers: { origin, 'tsaro-environment': 'live', ...(browser.cookie && { cookie: browser.cookie }), ...(browser.csrf && { 'x-csrf-token': browser.csrf }) },
        };
      }
    }
  }

  async function send(operation: Operation, path: string, query: string, body: { raw: string } | undefined): Promise<Answer> {
    const { base, headers } = callerOf(operation.realm);
    const url = `${base}${path}${query ? `?${query}` : ''}`;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), HEADERS_WITHIN_MS);
    try {
      const response = await fetch(url, {
        method: operation.method,
        headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
        body: body?.raw,
        redirect: 'manual',
        signal: abort.signal,
      });
      clearTimeout(timer);
      const contentType = response.headers.get('content-type') ?? '';
      if (contentType.startsWith('text/event-stream') || contentType.startsWith('image/') || contentType.startsWith('text/csv')) {
        await response.body?.cancel();
        return { status: response.status, contentType, body: undefined };
      }
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // kept as text for the failure message
      }
      return { status: response.status, contentType, body: parsed };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The session of a console or staff caller still works (a hostile sign-out or password change may end it): else join again. */
  async function keepSessions(): Promise<void> {
    const consoleSession = await owner.browser.get('/console/session');
    if (consoleSession.status !== 200 || consoleSession.body?.session?.stage !== 'active') owner = await joinConsole(server, org.organizationId, 'owner');
    const staffSession = await staff.browser.get('/session');
    if (staffSession.status !== 200 || staffSession.body?.session?.stage !== 'active') staff = await joinStaff(server, 'network_admin');
  }

  it('finds the operations of all three documents, each with the caller of its realm', () => {
    const realms = new Set(operations.map((operation) => operation.realm));
    expect([...realms].sort()).toEqual(['console', 'partner', 'public', 'responder', 'staff']);
    expect(operations.length).toBeGreaterThan(150);
    expect(operations).toContainEqual(expect.objectContaining({ realm: 'partner', method: 'POST', path: '/incidents' }));
    expect(operations).toContainEqual(expect.objectContaining({ realm: 'staff', method: 'GET', path: '/incidents/{incidentId}' }));
  });

  it('no operation answers a 5xx, and every 4xx is the error shape with code equal to the status', { timeout: 540_000 }, async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      // Each operation starts with an empty rate window: answers are about the input, not the limits.
      server.clock.advance(61 * 60_000);
      await keepSessions();
      await checkProperty(
        fc.asyncProperty(hostileRequest(operation), async ({ ids, query, body }) => {
          let index = 0;
          const path = operation.path.replace(/\{\w+\}/g, () => ids[index++]!);
          let answer: Answer;
          try {
            answer = await send(operation, path, query, body);
          } catch (error) {
            const held = error instanceof Error && error.name === 'AbortError';
            if (held) return; // a long poll holding its answer is not an error
            throw error;
          }
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const label = `${operation.realm} ${operation.method} ${path}${query ? `?${query.slice(0, 200)}` : ''} body=${body?.raw.slice(0, 200)}`;
          if (answer.status >= 500) failures.push(`${answer.status} ${label}: ${JSON.stringify(answer.body)?.slice(0, 300)}`);
          else if (answer.status >= 400) {
            const shaped = typeof answer.body === 'object' && answer.body !== null && (answer.body as any).code === answer.status && typeof (answer.body as any).message === 'string';
            if (!shaped) failures.push(`${answer.status} not in the error shape (${answer.contentType}) ${label}: ${String(JSON.stringify(answer.body)).slice(0, 300)}`);
          }
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
    }
    expect(failures.slice(0, 30), `${failures.length} answers broke the rule`).toEqual([]);
    // The inputs reached the handlers: most answers are the handlers' own refusals, not the door's.
    const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    const doors = (statuses.get(401) ?? 0) + (statuses.get(403) ?? 0);
    console.info('hostile operations: answers by status', JSON.stringify(Object.fromEntries(statuses)), 'operations', operations.length);
    expect(doors / total, JSON.stringify(Object.fromEntries(statuses))).toBeLessThan(0.2);
  });
});
