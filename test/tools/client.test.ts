import { createTsaroClient, retryAfterSeconds, verifyWebhookSignature, type TsaroClient } from '@tsaro/client';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTypes, SCHEMA_FILE } from '../../clients/typescript/scripts/generate-types.ts';
import { generateResponderTypes, RESPONDER_SCHEMA_FILE } from '../../responder-app/generate-types.ts';
import { generateStaffTypes, STAFF_SCHEMA_FILE } from '../../console/generate-staff-types.ts';
import { expectErrorBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/** The TypeScript client (clients/typescript) against the real server. */
describe('@tsaro/client', () => {
  let server: TestServer;
  let org: TestOrganization;
  const servers: Server[] = [];
  beforeAll(async () => {
    server = await startTestServer({ deliverWebhooks: false });
    org = await server.createOrganization({ name: 'Client Estate' });
  });
  afterAll(async () => {
    for (const s of servers) await new Promise<void>((done) => s.close(() => done()));
    await server.stop();
  });

  const listen = async (handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => handler(req, body, res));
    });
    servers.push(s);
    await new Promise<void>((ready) => s.listen(0, '127.0.0.1', () => ready()));
    return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  };

  const incident = {
    category: 'medical' as const,
    severity: 'high' as const,
    subject: { name: 'Ada Obi', phone: '+2348012345678' },
    location: { coordinates: [3.3792, 6.5244] },
  };

  it('the checked-in types are what openapi-typescript makes of the current document (run `npm run client:types`)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8') === (await generateTypes()), 'clients/typescript/src/schema.ts is stale: npm run client:types').toBe(true);
  });

  it("the responder app's checked-in types are what openapi-typescript makes of the responder API's document (run `npm run client:types`)", async () => {
    expect(readFileSync(RESPONDER_SCHEMA_FILE, 'utf8') === (await generateResponderTypes()), 'responder-app/src/schema.ts is stale: npm run client:types').toBe(true);
    expect(readFileSync(STAFF_SCHEMA_FILE, 'utf8') === (await generateStaffTypes()), 'console/src/operations/schema.ts is stale: npm run client:types').toBe(true);
  });

  it('typed calls: numbers for numbers in the threat queries, and the answer typed from the document', async () => {
    const tsaro = createTsaroClient({ baseUrl: server.baseUrl, apiKey: org.keys.live });
    const { data, error } = await tsaro.GET('/safety/score', { params: { query: { latitude: 6.4541, longitude: 3.3947, radius_km: 2 } } });
    expect(error).toBeUndefined();
    const score: number = data!.score;
    expect(score).toBeGreaterThanOrEqual(0);
    expect(data!.location).toEqual({ latitude: 6.4541, longitude: 3.3947 });

    // The generated types say number because the document does: it types these query parameters
    // as numbers, and the server refuses what is not one, naming the field.
    const document = (await server.client().get('/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string; schema: { type: string } }[] } }>;
    };
    const typeOf = (path: string, name: string) => document.paths[path]!.get.parameters.find((param) => param.name === name)?.schema.type;
    expect(typeOf('/safety/score', 'latitude')).toBe('number');
    expect(typeOf('/safety/score', 'radius_km')).toBe('number');
    expect(typeOf('/incidents', 'limit')).toBe('integer');
    const refused = await tsaro.GET('/safety/score', { params: { query: { latitude: 'north' as unknown as number, longitude: 3.3947 } } });
    expect(refused.response.status).toBe(400);
    expectErrorBody(refused.error, 400, expect.stringContaining('latitude'));
  });

  /** Never called: `npm run typecheck` fails here if the generated types take strings for these numbers again. */
  const stringsRefusedByTheTypes = async (tsaro: TsaroClient) => {
    // @ts-expect-error latitude is a number, not a string
    await tsaro.GET('/safety/score', { params: { query: { latitude: '6.4541', longitude: 3.3947 } } });
    // @ts-expect-error limit is a number
    await tsaro.GET('/incidents', { params: { query: { limit: '5' } } });
  };
  void stringsRefusedByTheTypes;

  it('every write carries an Idempotency-Key: a retried create with the same key is the same incident, a new call is a new one', async () => {
    const keys: string[] = [];
    const fixed = createTsaroClient({ baseUrl: server.baseUrl, apiKey: org.keys.sandbox, idempotencyKey: () => 'client-test-fixed-key' });
    const first = await fixed.POST('/incidents', { body: incident });
    const again = await fixed.POST('/incidents', { body: incident });
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.incident.incident_id).toBe(first.data!.incident.incident_id);

    const seen = await listen((req, _body, res) => {
      keys.push(String(req.headers['idempotency-key']));
      res.writeHead(204).end();
    });
    const watched = createTsaroClient({ baseUrl: seen, apiKey: org.keys.sandbox });
    await watched.POST('/incidents', { body: incident });
    await watched.PATCH('/access-logs/{logId}/checkout', { params: { path: { logId: 'log_x' } }, body: {} });
    await watched.DELETE('/access-codes/{codeId}', { params: { path: { codeId: 'code_x' } } });
    await watched.GET('/incidents');
    expect(keys).toHaveLength(4);
    expect(keys.slice(0, 3).every((key) => /^[0-9a-f-]{36}$/.test(key))).toBe(true);
    expect(new Set(keys.slice(0, 3)).size).toBe(3);
    expect(keys[3]).toBe('undefined');
  });

  it('a 429 is retried after Retry-After with the same key, and the write is applied once', async () => {
    const starter = await server.createOrganization({ name: 'Starter Estate', plan: 'starter' });
    for (let i = 0; i < 60; i++) expect((await starter.live.get('/incidents?limit=1')).status).toBe(200);
    const waits: number[] = [];
    const tsaro = createTsaroClient({
      baseUrl: server.baseUrl,
      apiKey: starter.keys.live,
      sleep: async (ms) => {
        waits.push(ms);
        server.clock.advance(ms);
      },
    });
    const created = await tsaro.POST('/incidents', { body: { ...incident, subject: { name: 'Once Only' } } });
    expect(created.response.status).toBe(201);
    expect(waits).toEqual([60_000]);
    const listed = await starter.live.get('/incidents?limit=100');
    expect(listed.body.results.filter((i: any) => i.subject.name === 'Once Only')).toHaveLength(1);
  });

  it('a 503 from a load balancer is retried after its Retry-After; past maxRetries the 503 is returned', async () => {
    let refusals = 1;
    const balancer = await listen((req, body, res) => {
      if (refusals-- > 0) return void res.writeHead(503, { 'retry-after': '2', 'content-type': 'application/json' }).end('{"code":503,"message":"no backend"}');
      const upstream = new URL(server.baseUrl);
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: `/v1/external${req.url!.replace(/^\/v1\/external/, '')}`, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      forward.end(body);
    });
    const waits: number[] = [];
    const tsaro = createTsaroClient({ baseUrl: `${balancer}/v1/external`, apiKey: org.keys.live, sleep: async (ms) => void waits.push(ms) });
    const { data, response } = await tsaro.GET('/incidents', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(data!.limit).toBe(1);
    expect(waits).toEqual([2000]);

    refusals = 10;
    const impatient = createTsaroClient({ baseUrl: `${balancer}/v1/external`, apiKey: org.keys.live, maxRetries: 2, sleep: async () => {} });
    const refused = await impatient.GET('/incidents');
    expect(refused.response.status).toBe(503);
    expect(refused.error).toEqual({ code: 503, message: 'no backend' });
    expect(refusals).toBe(7);
  });

  it('Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds(new Date(Date.parse('2026-11-22T10:00:10Z')).toUTCString(), Date.parse('2026-11-22T10:00:00Z'))).toBe(10);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });

  it('paginate walks every page of a list and yields typed items', async () => {
    const estate = await server.createOrganization({ name: 'Paging Estate' });
    const tsaro: TsaroClient = createTsaroClient({ baseUrl: server.baseUrl, apiKey: estate.keys.live });
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { data } = await tsaro.POST('/access-codes', { body: { visitor_name: `Visitor ${i}`, visitor_phone: `+23480300000${i}0` } });
      made.push(data!.access_code.code_id);
    }
    const seen: string[] = [];
    for await (const code of tsaro.paginate('/access-codes', { limit: 3, status: 'active' })) seen.push(code.code_id);
    expect(seen.sort()).toEqual(made.sort());
    const none: unknown[] = [];
    for await (const log of tsaro.paginate('/access-logs', { status: 'checked_out' })) none.push(log);
    expect(none).toEqual([]);
  });

  it('verifies the signature of a real delivery, and refuses a changed body, another secret or an old timestamp', async () => {
    const deliveries: Array<{ body: string; signature: string }> = [];
    const receiver = await listen((req, body, res) => {
      deliveries.push({ body, signature: String(req.headers['svc-signature']) });
      res.writeHead(200).end();
    });
    const tsaro = createTsaroClient({ baseUrl: server.baseUrl, apiKey: org.keys.sandbox });
    const endpoint = await tsaro.POST('/webhook-endpoints', { body: { url: `${receiver}/hooks`, events: ['incident.*'] } });
    expect(endpoint.response.status).toBe(201);
    const secret = endpoint.data!.secret;
    await tsaro.POST('/incidents', { body: incident });
    await server.running.deliverWebhooks();
    expect(deliveries.length).toBeGreaterThan(0);
    const { body, signature } = deliveries[0]!;
    const sentAt = Number(/t=(\d+)/.exec(signature)![1]);
    expect(await verifyWebhookSignature(body, signature, secret, { now: sentAt + 10 })).toBe(true);
    expect(await verifyWebhookSignature(body.replace('"incident', '"Incident'), signature, secret, { now: sentAt })).toBe(false);
    expect(await verifyWebhookSignature(body, signature, 'whsec_other', { now: sentAt })).toBe(false);
    expect(await verifyWebhookSignature(body, signature, secret, { now: sentAt + 301 })).toBe(false);
    expect(await verifyWebhookSignature(body, signature, secret, { now: sentAt + 301, toleranceSeconds: 600 })).toBe(true);
    expect(await verifyWebhookSignature(body, undefined, secret)).toBe(false);
  });
});
