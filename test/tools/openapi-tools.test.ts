import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { exampleRequests, type Made } from './example-requests.ts';

/**
 * The OpenAPI document in the tools partners use, all from the npm registry: Redocly's
 * recommended lint, Prism as a mock server and as a validating proxy in front of the real server.
 * (openapi-typescript: clients/typescript, its types checked by `npm run typecheck` and the
 * staleness test in client.test.ts.)
 */
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const DOCUMENT = join(ROOT, '.tmp', 'openapi-tools', 'openapi.json');
const run = promisify(execFile);

interface Prism {
  url: string;
  child: ChildProcess;
  log: () => string;
}

/**
 * Bounds, not timings. Prism is a Node CLI that reads and resolves the whole document (330 kB)
 * before it listens: about 6 s at load 9 on these 2 cores, and well past the 20 s default test
 * timeout at load 14 once the mock's forty-odd requests are added. A Prism that never listens
 * still fails, naming itself and what it printed.
 */
const PRISM_START_BOUND_MS = 90_000;
const TOOL_TEST_BOUND_MS = 180_000;

/** `prism mock|proxy ...` on a free port; resolves once it listens. */
async function startPrism(args: string[]): Promise<Prism> {
  const port = await freePort();
  const child = spawn(BIN('prism'), [...args, '--port', String(port), '--host', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((ready, fail) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Prism is listening')) ready();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => fail(new Error(`prism exited with ${code}:\n${output}`)));
      timer = setTimeout(() => fail(new Error(`prism did not listen within ${PRISM_START_BOUND_MS / 1000} s:\n${output}`)), PRISM_START_BOUND_MS);
    });
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGTERM');
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { url: `http://127.0.0.1:${port}`, child, log: () => output };
}

async function stopPrism(prism: Prism | undefined) {
  if (!prism || prism.child.exitCode !== null) return;
  await new Promise<void>((done) => {
    prism.child.once('exit', () => done());
    prism.child.kill('SIGTERM');
  });
}

describe('the OpenAPI document in partners\' tools', { timeout: TOOL_TEST_BOUND_MS }, () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Tools Estate' });
    // The document exactly as the server serves it.
    const served = await fetch(`${server.baseUrl}/openapi.json`);
    expect(served.status).toBe(200);
    mkdirSync(join(ROOT, '.tmp', 'openapi-tools'), { recursive: true });
    writeFileSync(DOCUMENT, JSON.stringify(await served.json(), null, 2));
  }, TOOL_TEST_BOUND_MS);
  afterAll(() => server?.stop());

  it('passes Redocly\'s recommended lint with no error and no warning', async () => {
    const { stdout } = await run(BIN('redocly'), ['lint', DOCUMENT, '--format=json'], { cwd: ROOT }).catch((error) => error);
    const report = JSON.parse(stdout);
    const problems = report.problems.map((p: any) => `${p.ruleId} ${p.severity}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("the staff and responder documents (issue #47) pass the same lint with no error and no warning", async () => {
    for (const api of ['staff', 'responder']) {
      const served = await fetch(`${server.baseUrl.replace('/v1/external', `/v1/${api}`)}/openapi.json`);
      expect(served.status).toBe(200);
      const file = join(ROOT, '.tmp', 'openapi-tools', `${api}-openapi.json`);
      writeFileSync(file, JSON.stringify(await served.json(), null, 2));
      const { stdout } = await run(BIN('redocly'), ['lint', file, '--format=json'], { cwd: ROOT }).catch((error) => error);
      const report = JSON.parse(stdout);
      expect(report.problems.map((p: any) => `${api}: ${p.ruleId} ${p.severity}: ${p.message} at ${p.location?.[0]?.pointer}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    }
  });

  const send = (base: string, request: ReturnType<ReturnType<typeof exampleRequests>[number]>, key: string) =>
    fetch(base + request.path, {
      method: request.method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(request.body !== undefined && { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });

  it('Prism as a mock server accepts every example request of the README and the reference', async () => {
    const prism = await startPrism(['mock', DOCUMENT]);
    try {
      const made: Made = {
        incidentId: 'inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB',
        cancelledIncidentId: 'inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AC',
        codeId: 'code_01JD7ZK3Q0C7W5N2Y8S4V6X9AD',
        code: 'DEMO-7K2P',
        spareCodeId: 'code_01JD7ZK3Q0C7W5N2Y8S4V6X9AG',
        logId: 'log_01JD7ZK3Q0C7W5N2Y8S4V6X9AE',
        endpointId: 'whe_01JD7ZK3Q0C7W5N2Y8S4V6X9AF',
        webhookUrl: 'https://partner.example.ng/tsaro/events',
      };
      for (const make of exampleRequests()) {
        const request = make(made);
        // Prefer picks which documented answer the mock gives (create incident documents 201 and 200).
        const response = await send(prism.url, { ...request, headers: { ...request.headers, prefer: `code=${request.status}` } }, 'svc_test_' + 'a'.repeat(32));
        const text = await response.text();
        // Prism answers 422 when a request breaks the document, and names the breach in sl-violations.
        expect(response.headers.get('sl-violations'), `${request.name}: ${text}`).toBeNull();
        expect(response.status, `${request.name}: ${text}`).toBe(request.status);
      }
    } finally {
      await stopPrism(prism);
    }
  });

  it('Prism as a validating proxy in front of the real server finds no request or response that breaks the document', async () => {
    const prism = await startPrism(['proxy', DOCUMENT, server.baseUrl, '--errors']);
    try {
      const made = { webhookUrl: 'http://127.0.0.1:9/tsaro/events' } as Made;
      let sent = 0;
      for (const make of exampleRequests()) {
        const request = make(made);
        // Prism matches paths as the document lists them and forwards them under the upstream's base.
        const response = await send(prism.url, request, org.keys.sandbox);
        const text = await response.text();
        expect(response.headers.get('sl-violations'), `${request.name}: ${text}`).toBeNull();
        expect(response.status, `${request.name}: ${text}\n${prism.log().slice(-2000)}`).toBe(request.status);
        if (request.keep) request.keep(JSON.parse(text), made);
        sent++;
      }
      expect(sent).toBeGreaterThanOrEqual(30);
      // The same proxy refuses what the document forbids: the check can fail.
      const threeNumbers = await send(prism.url, { name: 'bad', method: 'POST', path: '/incidents', status: 422, body: { category: 'sos', severity: 'critical', subject: { name: 'A' }, location: { coordinates: [3.3, 6.5, 1] } } }, org.keys.sandbox);
      expect(threeNumbers.status).toBe(422);
    } finally {
      await stopPrism(prism);
    }
  });

  it('the proxy checks answers too: against a document that says score is a string, the real answer is flagged', async () => {
    const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
    document.components.schemas.SafetyScore.properties.score = { type: 'string' };
    const doctored = join(ROOT, '.tmp', 'openapi-tools', 'doctored.json');
    writeFileSync(doctored, JSON.stringify(document));
    const prism = await startPrism(['proxy', doctored, server.baseUrl, '--errors']);
    try {
      const response = await send(prism.url, { name: 'score', method: 'GET', path: '/safety/score?latitude=6.45&longitude=3.39', status: 200 }, org.keys.sandbox);
      const text = await response.text();
      expect(response.status, text).toBe(500);
      expect(text).toContain('score');
    } finally {
      await stopPrism(prism);
    }
  });
});
