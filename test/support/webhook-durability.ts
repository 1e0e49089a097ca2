import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../shared/webhooks.ts';
import { systemClock } from '../../server/clock.ts';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { createOrganization } from '../../server/organizations/service.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { incidentBody, type ApiClient } from './server.ts';
import { TEST_SECRETS_KEY } from './secrets.ts';

/**
 * "The event row is written in the same transaction as the change it reports; a delivery
 * survives a restart": the real server (`server/main.ts`, as `npm start` runs it) is killed with
 * SIGKILL between the change and a successful delivery, started again on the same database, and
 * a real receiver on loopback gets the event exactly once. On PostgreSQL, two hosts deliver the
 * same queue at once and no event reaches the receiver twice.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Things to undo after each test, newest first: children, receivers, handles, databases. */
export const cleanups: (() => Promise<unknown>)[] = [];

/** Call once at the top of a test file: undoes each test's children, receivers, handles and databases. */
export function undoAfterEachTest(): void {
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export interface Arrival {
  eventId: string;
  eventType: string;
  rawBody: string;
  signature: string;
  /** The status the receiver answered; `held` while it keeps the request open; `aborted` when the sender went away first. */
  outcome: number | 'held' | 'aborted';
}

/** A webhook receiver on loopback: `ok` answers 200 at once; `hold` reads the request and never answers. */
export class Receiver {
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

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown hook runs, nothing is flushed; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** `node --import tsx server/main.ts` (what `npm start` runs) on port 0; resolves with the base URL it logs. The shipped threat data is not loaded: it only slows the start here. */
export async function startServerProcess(databaseUrl: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, DEMO: '0', THREAT_SEED: '0', LOG_LEVEL: 'info', REDIS_URL: '', SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_ALLOW_PRIVATE: '1' },
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
    // A bound, not a timing: a loaded CI machine (every project's workers at once) has taken over 20 s.
    const timer = setTimeout(() => reject(new Error(`server did not log "listening" within 60 s; stderr: ${stderr}`)), 60_000);
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
export function openOwnHandle(url: string): OpenedDatabase {
  const handle = openDatabase(url);
  cleanups.push(() => handle.close());
  return handle;
}

export async function ownDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

/** An organization made directly in the database (as `tsaro org create` does); its sandbox owner key. */
export async function sandboxKey(handle: OpenedDatabase): Promise<string> {
  const created = await createOrganization(handle.db, systemClock, { name: 'Durable Estate', plan: 'enterprise' });
  return created.keys.sandbox.secret;
}

export async function createEndpoint(client: ApiClient, url: string): Promise<{ endpointId: string; secret: string }> {
  const res = await client.post('/webhook-endpoints', { url, events: ['incident.created'] });
  expect(res.status).toBe(201);
  return { endpointId: res.body.webhook_endpoint.endpoint_id, secret: res.body.secret };
}

/** POST /incidents, then the id of the incident.created event written with it. */
export async function createIncident(client: ApiClient): Promise<{ incidentId: string; eventId: string }> {
  const created = await client.post('/incidents', incidentBody());
  expect(created.status).toBe(201);
  const incidentId: string = created.body.incident.incident_id;
  const events = await client.get(`/events?type=incident.created&resource_id=${incidentId}`);
  expect(events.status).toBe(200);
  expect(events.body.results).toHaveLength(1);
  return { incidentId, eventId: events.body.results[0].id };
}

export const jobsOf = (handle: OpenedDatabase, eventId: string) =>
  handle.db.selectFrom('webhook_jobs').selectAll().where('event_id', '=', eventId).execute();
export const deliveriesOf = (handle: OpenedDatabase, eventId: string) =>
  handle.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('attempt').execute();

/** What the receiver got with 200 is the event written with the change, signed with the endpoint's secret. */
export async function expectTheEvent(arrival: Arrival, expected: { eventId: string; incidentId: string; secret: string }) {
  const body = JSON.parse(arrival.rawBody) as { id: string; type: string; data: { incident_id?: string; incident?: { incident_id: string } } };
  expect(body.id).toBe(expected.eventId);
  expect(body.type).toBe('incident.created');
  expect(arrival.eventType).toBe('incident.created');
  expect(body.data.incident_id ?? body.data.incident?.incident_id).toBe(expected.incidentId);
  expect(await verifyWebhookSignature(arrival.rawBody, arrival.signature, expected.secret)).toBe(true);
}
