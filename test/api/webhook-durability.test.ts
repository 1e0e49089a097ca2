import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../shared/webhooks.ts';
import { systemClock } from '../../server/clock.ts';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { createOrganization } from '../../server/organizations/service.ts';
import { ManualClock } from '../support/clock.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { ApiClient, incidentBody, startTestServer } from '../support/server.ts';

/**
 * "The event row is written in the same transaction as the change it reports; a delivery
 * survives a restart": the real server (`server/main.ts`, as `npm start` runs it) is killed with
 * SIGKILL between the change and a successful delivery, started again on the same database, and
 * a real receiver on loopback gets the event exactly once. On PostgreSQL, two hosts deliver the
 * same queue at once and no event reaches the receiver twice.
 */

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Things to undo after each test, newest first: children, receivers, handles, databases. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

interface Arrival {
  eventId: string;
  eventType: string;
  rawBody: string;
  signature: string;
  /** The status the receiver answered; `held` while it keeps the request open; `aborted` when the sender went away first. */
  outcome: number | 'held' | 'aborted';
}

/** A webhook receiver on loopback: `ok` answers 200 at once; `hold` reads the request and never answers. */
class Receiver {
  mode: 'ok' | 'hold';
  readonly arrivals: Arrival[] = [];
  private constructor(
    private readonly server: Server,
    mode: 'ok' | 'hold',
    private readonly delayMs: number,
  ) {
    this.mode = mode;
    server.on('request', (req, res) => void this.handle(req, res));
  }

  static async start(options: { mode?: 'ok' | 'hold'; port?: number; delayMs?: number } = {}): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server, options.mode ?? 'ok', options.delayMs ?? 0);
    server.listen(options.port ?? 0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => receiver.close());
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** Arrivals of one event that the receiver answered with 200. */
  accepted(eventId: string): Arrival[] {
    return this.arrivals.filter((arrival) => arrival.eventId === eventId && arrival.outcome === 200);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const arrival: Arrival = {
      eventId: String(req.headers['svc-event-id']),
      eventType: String(req.headers['svc-event-type']),
      rawBody: Buffer.concat(chunks).toString('utf8'),
      signature: String(req.headers[SIGNATURE_HEADER.toLowerCase()]),
      outcome: 'held',
    };
    this.arrivals.push(arrival);
    res.on('close', () => {
      if (arrival.outcome === 'held') arrival.outcome = 'aborted';
    });
    if (this.mode === 'hold') return;
    if (this.delayMs) await sleep(this.delayMs);
    arrival.outcome = 200;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}

/** A port nothing listens on (yet): connections to it are refused at once. */
async function unusedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown hook runs, nothing is flushed; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** `node --import tsx server/main.ts` (what `npm start` runs) on port 0; resolves with the base URL it logs. */
async function startServerProcess(databaseUrl: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, DEMO: '0', LOG_LEVEL: 'info', REDIS_URL: '', SECRETS_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const kill = async () => {
    if (exited()) return;
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
  };
  cleanups.push(kill);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not log "listening" within 20 s; stderr: ${stderr}`)), 20_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (code ${code}, signal ${signal}); stderr: ${stderr}`));
    });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; baseUrl?: string };
        if (entry.msg === 'listening' && entry.baseUrl) {
          clearTimeout(timer);
          resolveUrl(entry.baseUrl);
        }
      } catch {
        // not a log line
      }
    });
  });
  return { baseUrl, child, kill };
}

/** The test's own handle on the database the server processes use (to look at the queue, and to age a lease). */
function openOwnHandle(url: string): OpenedDatabase {
  const handle = openDatabase(url);
  cleanups.push(() => handle.close());
  return handle;
}

async function ownDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

/** An organization made directly in the database (as `tsaro org create` does); its sandbox owner key. */
async function sandboxKey(handle: OpenedDatabase): Promise<string> {
  const created = await createOrganization(handle.db, systemClock, { name: 'Durable Estate', plan: 'enterprise' });
  return created.keys.sandbox.secret;
}

async function createEndpoint(client: ApiClient, url: string): Promise<{ endpointId: string; secret: string }> {
  const res = await client.post('/webhook-endpoints', { url, events: ['incident.created'] });
  expect(res.status).toBe(201);
  return { endpointId: res.body.webhook_endpoint.endpoint_id, secret: res.body.secret };
}

/** POST /incidents, then the id of the incident.created event written with it. */
async function createIncident(client: ApiClient): Promise<{ incidentId: string; eventId: string }> {
  const created = await client.post('/incidents', incidentBody());
  expect(created.status).toBe(201);
  const incidentId: string = created.body.incident.incident_id;
  const events = await client.get(`/events?type=incident.created&resource_id=${incidentId}`);
  expect(events.status).toBe(200);
  expect(events.body.results).toHaveLength(1);
  return { incidentId, eventId: events.body.results[0].id };
}

const jobsOf = (handle: OpenedDatabase, eventId: string) =>
  handle.db.selectFrom('webhook_jobs').selectAll().where('event_id', '=', eventId).execute();
const deliveriesOf = (handle: OpenedDatabase, eventId: string) =>
  handle.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('attempt').execute();

/** What the receiver got with 200 is the event written with the change, signed with the endpoint's secret. */
async function expectTheEvent(arrival: Arrival, expected: { eventId: string; incidentId: string; secret: string }) {
  const body = JSON.parse(arrival.rawBody) as { id: string; type: string; data: { incident_id?: string; incident?: { incident_id: string } } };
  expect(body.id).toBe(expected.eventId);
  expect(body.type).toBe('incident.created');
  expect(arrival.eventType).toBe('incident.created');
  expect(body.data.incident_id ?? body.data.incident?.incident_id).toBe(expected.incidentId);
  expect(await verifyWebhookSignature(arrival.rawBody, arrival.signature, expected.secret)).toBe(true);
}

describe('webhook deliveries survive a crash of the server (SIGKILL, then a restart on the same database)', () => {
  it('killed while the delivery is in flight: after the restart the event arrives once, with its id', { timeout: 60_000 }, async () => {
    const database = await ownDatabase();
    // The receiver takes the first attempt and holds it: the server has claimed the job and is
    // waiting for an answer when it is killed.
    const receiver = await Receiver.start({ mode: 'hold' });
    const first = await startServerProcess(database.url);
    const handle = openOwnHandle(database.url);
    const key = await sandboxKey(handle);
    const { secret } = await createEndpoint(new ApiClient(first.baseUrl, key), receiver.url);
    const { incidentId, eventId } = await createIncident(new ApiClient(first.baseUrl, key));

    await waitFor('the first attempt to reach the receiver', () => receiver.arrivals.length === 1);
    expect(receiver.arrivals[0]!.eventId).toBe(eventId);
    await first.kill();
    await waitFor('the receiver to see the sender go away', () => receiver.arrivals[0]!.outcome === 'aborted');

    // What the crash left: the job, claimed under a 60 s lease by a process that is gone, and no
    // attempt recorded.
    const [job] = await jobsOf(handle, eventId);
    expect(job).toMatchObject({ state: 'pending', attempts: 0 });
    expect(job!.locked_until! > new Date().toISOString()).toBe(true);
    expect(await deliveriesOf(handle, eventId)).toEqual([]);
    // The lease is what keeps two live hosts off one job; here its holder is dead and another
    // host would take the job once it runs out (60 s). The test does not wait a minute: it moves
    // the lease's end into the past, as if that minute had gone by.
    await handle.db.updateTable('webhook_jobs').set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where('job_id', '=', job!.job_id).execute();

    receiver.mode = 'ok';
    const second = await startServerProcess(database.url);
    await waitFor('the delivery after the restart', () => receiver.accepted(eventId).length > 0);
    await sleep(2_500); // two more polls of the worker: a second delivery would show here
    expect(receiver.accepted(eventId)).toHaveLength(1);
    expect(receiver.arrivals.map((arrival) => [arrival.eventId, arrival.outcome])).toEqual([
      [eventId, 'aborted'],
      [eventId, 200],
    ]);
    await expectTheEvent(receiver.accepted(eventId)[0]!, { eventId, incidentId, secret });

    const [after] = await jobsOf(handle, eventId);
    expect(after).toMatchObject({ state: 'succeeded', attempts: 1, locked_until: null });
    const deliveries = await deliveriesOf(handle, eventId);
    expect(deliveries.map((d) => [d.attempt, d.status, d.response_status])).toEqual([[1, 'succeeded', 200]]);
    await second.kill();
  });

  it('killed while the receiver is down: attempts made before the crash count, and the event arrives once after the restart', { timeout: 60_000 }, async () => {
    const database = await ownDatabase();
    const port = await unusedPort();
    const first = await startServerProcess(database.url);
    const handle = openOwnHandle(database.url);
    const key = await sandboxKey(handle);
    const { secret } = await createEndpoint(new ApiClient(first.baseUrl, key), `http://127.0.0.1:${port}/hooks`);
    const { incidentId, eventId } = await createIncident(new ApiClient(first.baseUrl, key));

    await waitFor('a failed attempt (connection refused)', async () => (await deliveriesOf(handle, eventId)).length > 0);
    await first.kill();

    const before = await deliveriesOf(handle, eventId);
    expect(before.every((d) => d.status === 'failed' && d.response_status === null)).toBe(true);
    const [job] = await jobsOf(handle, eventId);
    expect(job!.state).toBe('pending');
    expect(Number(job!.attempts)).toBeGreaterThanOrEqual(1);
    // The next attempt is due at once after a first failure, but 30 s later after a second one
    // (and a lease holds the job for 60 s if the kill hit an attempt in flight). The test does not
    // wait that out: it moves the job's times to now, as if they had passed.
    await handle.db
      .updateTable('webhook_jobs')
      .set({ next_attempt_at: new Date().toISOString(), locked_until: null })
      .where('job_id', '=', job!.job_id)
      .execute();

    const receiver = await Receiver.start({ mode: 'ok', port });
    const second = await startServerProcess(database.url);
    await waitFor('the delivery after the restart', () => receiver.accepted(eventId).length > 0);
    await sleep(2_500);
    expect(receiver.arrivals).toHaveLength(1);
    expect(receiver.accepted(eventId)).toHaveLength(1);
    await expectTheEvent(receiver.arrivals[0]!, { eventId, incidentId, secret });

    const [after] = await jobsOf(handle, eventId);
    expect(after).toMatchObject({ state: 'succeeded', attempts: Number(job!.attempts) + 1 });
    const last = (await deliveriesOf(handle, eventId)).at(-1)!;
    expect(last).toMatchObject({ attempt: Number(job!.attempts) + 1, status: 'succeeded', response_status: 200 });
    await second.kill();
  });
});

describe.skipIf(process.env.TSARO_TEST_DB !== 'postgres')('two hosts delivering one queue (PostgreSQL)', () => {
  it('200 events delivered by two servers at once reach the receiver exactly once each', { timeout: 60_000 }, async () => {
    const database = await ownDatabase();
    const clock = new ManualClock();
    const hostA = await startTestServer({ database, clock, deliverWebhooks: false });
    cleanups.push(() => hostA.stop());
    const hostB = await startTestServer({ database, clock, deliverWebhooks: false });
    cleanups.push(() => hostB.stop());
    // A few milliseconds per answer keeps both hosts' passes in flight together.
    const receiver = await Receiver.start({ mode: 'ok', delayMs: 3 });
    const org = await hostA.createOrganization();
    await createEndpoint(org.sandbox, receiver.url);

    const viaB = new ApiClient(hostB.baseUrl, org.keys.sandbox);
    for (let i = 0; i < 200; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) => ((i + j) % 2 ? viaB : org.sandbox).post('/incidents', incidentBody()));
      for (const res of await Promise.all(batch)) expect(res.status).toBe(201);
    }
    const events = await hostA.running.database.db.selectFrom('events').select('event_id').where('type', '=', 'incident.created').execute();
    expect(events).toHaveLength(200);

    const attempted = { a: 0, b: 0 };
    for (let pass = 0; ; pass++) {
      expect(pass).toBeLessThan(50);
      const [a, b] = await Promise.all([hostA.running.deliverWebhooks(), hostB.running.deliverWebhooks()]);
      attempted.a += a;
      attempted.b += b;
      if (a === 0 && b === 0) break;
    }

    const ids = receiver.arrivals.map((arrival) => arrival.eventId);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(new Set(ids)).toEqual(new Set(events.map((event) => event.event_id)));
    expect(receiver.arrivals.every((arrival) => arrival.outcome === 200)).toBe(true);
    // Both hosts did part of the work, and together no more than the whole.
    expect(attempted.a).toBeGreaterThan(0);
    expect(attempted.b).toBeGreaterThan(0);
    expect(attempted.a + attempted.b).toBe(200);
    const jobs = await hostA.running.database.db.selectFrom('webhook_jobs').select(['state', 'attempts']).execute();
    expect(jobs.every((job) => job.state === 'succeeded' && Number(job.attempts) === 1)).toBe(true);
    const deliveries = await hostA.running.database.db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(deliveries).toHaveLength(200);
  });
});
