/**
 * Section `webhooks`: from the API call that causes an event to the first delivery attempt at a
 * receiver on loopback, and how many deliveries per second the server sustains. Per engine:
 *
 *   1. one at a time: BENCH_WEBHOOK_PACED POST /incidents (default 200), one every
 *      BENCH_WEBHOOK_SPACING_MS (20), after 20 discarded; latency = the receiver's arrival time of
 *      the incident's incident.created delivery − the time its POST was sent (p50, p99).
 *   2. under load: BENCH_WEBHOOK_BURST POST /incidents (default 2,000) from BENCH_CONNECTIONS
 *      (50) connections at once; deliveries/s = deliveries ÷ (last arrival − first arrival), with
 *      the same latency per incident.
 *   3. backlog after a restart: a server with delivery off (serve.ts,
 *      BENCH_SERVE_DELIVER_WEBHOOKS=0) queues BENCH_WEBHOOK_BURST events, is stopped, and a new
 *      server on the same database delivers them all: the drain rate with no API load.
 *
 * The receiver runs in this process and answers 200 at once; both ends of a latency come from this
 * process's `performance.now()`. The Tsaro server runs in a child (bench/serve.ts) with a sandbox
 * webhook endpoint subscribed to incident.created. The baseline, measured the same way in the same
 * run, is bench/relay-server.ts: a bare Express app that answers 201 and then POSTs the event
 * itself, with nothing stored.
 *
 * Environment: BENCH_ENGINES (default `sqlite,postgres`), BENCH_WEBHOOK_PACED (200),
 * BENCH_WEBHOOK_SPACING_MS (20), BENCH_WEBHOOK_BURST (2000), BENCH_CONNECTIONS,
 * BENCH_POSTGRES_ADMIN_URL, BENCH_LOG_LEVEL / BENCH_LOG_DEST (see serve.ts).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { INCIDENT_BODY } from './http-api.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase, type BenchDatabase } from './lib/databases.ts';
import { enginesWanted, intFromEnv, sleep, type Engine } from './lib/settings.ts';
import type { LoadMeasurement } from './lib/load.ts';
import { percentile } from './lib/stats.ts';
import type { BenchSection, ResultRow, SectionContext } from './lib/section.ts';

const WARMUP_INCIDENTS = 20;
/** Longest wait for the deliveries of one phase before the missing ones are counted as errors. */
const DELIVERY_WAIT_MS = 120_000;

interface ServeReady {
  baseUrl: string;
  sandboxKey: string;
}

interface RelayReady {
  baseUrl: string;
}

/**
 * The webhook receiver: answers 200 at once and keeps, per incident, when its first delivery
 * arrived (when the request's headers were read), in this process's clock.
 */
class Receiver {
  readonly firstArrival = new Map<string, number>();
  duplicates = 0;
  private waiters: (() => void)[] = [];

  private constructor(private readonly server: Server) {
    server.on('request', (req, res) => {
      const arrivedAt = performance.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        let incidentId: string | undefined;
        try {
          incidentId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { incident_id?: string } }).data?.incident_id;
        } catch {
          // not an event: ignored
        }
        if (!incidentId) return;
        if (this.firstArrival.has(incidentId)) this.duplicates += 1;
        else this.firstArrival.set(incidentId, arrivedAt);
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  static async start(): Promise<Receiver> {
    const server = createServer({ keepAliveTimeout: 30_000 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new Receiver(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  reset(): void {
    this.firstArrival.clear();
    this.duplicates = 0;
  }

  /** Resolves once every one of `incidentIds` has arrived, or at the deadline; answers whether all did. */
  async waitFor(incidentIds: Iterable<string>, timeoutMs = DELIVERY_WAIT_MS): Promise<boolean> {
    const ids = [...incidentIds];
    const deadline = performance.now() + timeoutMs;
    while (!ids.every((id) => this.firstArrival.has(id))) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await Promise.race([new Promise<void>((wake) => this.waiters.push(wake)), sleep(Math.min(left, 1_000))]);
    }
    return true;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}

/** The partner's side: POST /incidents over a keep-alive pool, noting when each was sent. */
class IncidentSender {
  private readonly agent: Agent;
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    connections: number,
  ) {
    this.agent = new Agent({ connections });
  }

  async send(): Promise<{ sentAt: number; answeredAt: number; status: number; incidentId?: string }> {
    const sentAt = performance.now();
    try {
      const response = await request(`${this.baseUrl}/incidents`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(INCIDENT_BODY),
      });
      const body = (await response.body.json().catch(() => undefined)) as { incident?: { incident_id?: string } } | undefined;
      return { sentAt, answeredAt: performance.now(), status: response.statusCode, incidentId: body?.incident?.incident_id };
    } catch {
      return { sentAt, answeredAt: performance.now(), status: 0 };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** What one phase sent: the send time of every incident created, and the failures. */
interface Sent {
  sentAt: Map<string, number>;
  non2xx: number;
  errors: number;
  firstSentAt: number;
  lastAnsweredAt: number;
}

function emptySent(): Sent {
  return { sentAt: new Map(), non2xx: 0, errors: 0, firstSentAt: Infinity, lastAnsweredAt: 0 };
}

function note(sent: Sent, result: Awaited<ReturnType<IncidentSender['send']>>) {
  sent.firstSentAt = Math.min(sent.firstSentAt, result.sentAt);
  sent.lastAnsweredAt = Math.max(sent.lastAnsweredAt, result.answeredAt);
  if (result.status === 0) sent.errors += 1;
  else if (result.status !== 201 || !result.incidentId) sent.non2xx += 1;
  else sent.sentAt.set(result.incidentId, result.sentAt);
}

/** `count` POSTs one after the other, started `spacingMs` apart (or at once when the previous took longer). */
async function sendPaced(sender: IncidentSender, count: number, spacingMs: number): Promise<Sent> {
  const sent = emptySent();
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = start + i * spacingMs - performance.now();
    if (wait > 0) await sleep(wait);
    note(sent, await sender.send());
  }
  return sent;
}

/** `count` POSTs from `connections` concurrent senders, as fast as the server answers. */
async function sendBurst(sender: IncidentSender, count: number, connections: number): Promise<Sent> {
  const sent = emptySent();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(connections, count) }, async () => {
      while (next < count) {
        next += 1;
        note(sent, await sender.send());
      }
    }),
  );
  return sent;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A table row's measurement: `requestsPerSecond` carries deliveries/s, the latencies are ms from
 * `startOf(incident)` to its first delivery, errors count deliveries that never arrived.
 */
function toMeasurement(
  receiver: Receiver,
  sent: Sent,
  startOf: (incidentId: string) => number,
): { measurement: LoadMeasurement; missing: number; firstArrival: number; lastArrival: number } {
  const latencies: number[] = [];
  let firstArrival = Infinity;
  let lastArrival = 0;
  let missing = 0;
  for (const [incidentId] of sent.sentAt) {
    const arrivedAt = receiver.firstArrival.get(incidentId);
    if (arrivedAt === undefined) {
      missing += 1;
      continue;
    }
    latencies.push(arrivedAt - startOf(incidentId));
    firstArrival = Math.min(firstArrival, arrivedAt);
    lastArrival = Math.max(lastArrival, arrivedAt);
  }
  latencies.sort((a, b) => a - b);
  const delivered = latencies.length;
  const spanS = (lastArrival - firstArrival) / 1000;
  const mean = delivered ? latencies.reduce((sum, value) => sum + value, 0) / delivered : 0;
  return {
    measurement: {
      requestsPerSecond: delivered > 1 && spanS > 0 ? (delivered - 1) / spanS : 0,
      requestsTotal: delivered,
      latencyMs: {
        p50: round2(percentile(latencies, 50)),
        p90: round2(percentile(latencies, 90)),
        p99: round2(percentile(latencies, 99)),
        max: round2(latencies.at(-1) ?? 0),
        mean: round2(mean),
      },
      errors: missing + sent.errors,
      timeouts: 0,
      non2xx: sent.non2xx,
      statusCodes: {},
      durationS: round2(spanS),
    },
    missing,
    firstArrival,
    lastArrival,
  };
}

interface PhaseSettings {
  paced: number;
  spacingMs: number;
  burst: number;
  connections: number;
}

function settings(context: SectionContext): PhaseSettings {
  return {
    paced: intFromEnv('BENCH_WEBHOOK_PACED', 200, 1),
    spacingMs: intFromEnv('BENCH_WEBHOOK_SPACING_MS', 20, 0),
    burst: intFromEnv('BENCH_WEBHOOK_BURST', 2000, 1),
    connections: context.load.connections,
  };
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** Phases 1 and 2 against one server (Tsaro or the bare relay): two rows and a line of detail. */
async function pacedAndBurst(
  label: string,
  engine: string,
  baseUrl: string,
  key: string,
  receiver: Receiver,
  phase: PhaseSettings,
  context: SectionContext,
): Promise<{ rows: ResultRow[]; notes: string[] }> {
  const sender = new IncidentSender(baseUrl, key, phase.connections);
  try {
    context.log(`[webhooks/${engine}] ${label}: ${WARMUP_INCIDENTS} warm-up incidents`);
    const warm = await sendPaced(sender, WARMUP_INCIDENTS, phase.spacingMs);
    await receiver.waitFor(warm.sentAt.keys(), 30_000);

    context.log(`[webhooks/${engine}] ${label}: ${phase.paced} incidents, one every ${phase.spacingMs} ms`);
    receiver.reset();
    const paced = await sendPaced(sender, phase.paced, phase.spacingMs);
    await receiver.waitFor(paced.sentAt.keys());
    const one = toMeasurement(receiver, paced, (id) => paced.sentAt.get(id)!);

    context.log(`[webhooks/${engine}] ${label}: ${phase.burst} incidents from ${phase.connections} connections`);
    receiver.reset();
    const burst = await sendBurst(sender, phase.burst, phase.connections);
    await receiver.waitFor(burst.sentAt.keys());
    const load = toMeasurement(receiver, burst, (id) => burst.sentAt.get(id)!);
    const duplicates = receiver.duplicates;

    const postsPerS = burst.sentAt.size / ((burst.lastAnsweredAt - burst.firstSentAt) / 1000);
    const lagMs = load.lastArrival - burst.lastAnsweredAt;
    const notes = [
      `${label} (${engine}), under load: ${fmt(burst.sentAt.size)} POSTs answered in ${((burst.lastAnsweredAt - burst.firstSentAt) / 1000).toFixed(2)} s ` +
        `(${fmt(postsPerS)} POST/s); deliveries ${fmt(load.measurement.requestsPerSecond)}/s from first to last arrival; ` +
        `the last delivery came ${fmt(Math.max(0, lagMs))} ms after the last POST was answered` +
        (duplicates ? `; ${duplicates} duplicate deliveries` : '') +
        (load.missing || one.missing ? `; ${one.missing + load.missing} deliveries never arrived` : ''),
    ];
    return {
      rows: [
        { target: `${label}: 1 at a time, ${phase.spacingMs} ms apart`, engine, measurement: one.measurement },
        { target: `${label}: ${fmt(phase.burst)} POSTs, ${phase.connections} conn.`, engine, measurement: load.measurement },
      ],
      notes,
    };
  } finally {
    await sender.close();
  }
}

async function createEndpoint(baseUrl: string, key: string, url: string): Promise<void> {
  const response = await fetch(`${baseUrl}/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['incident.created'] }),
  });
  if (response.status !== 201) throw new Error(`POST /webhook-endpoints: expected 201, got ${response.status}: ${(await response.text()).slice(0, 300)}`);
}

const serveChild = (engine: Engine, database: BenchDatabase, deliver: boolean) =>
  startChild<ServeReady>(`tsaro server (${engine}${deliver ? '' : ', delivery off'})`, {
    script: 'bench/serve.ts',
    env: { DATABASE_URL: database.url, BENCH_SERVE_DELIVER_WEBHOOKS: deliver ? '1' : '0' },
  });

async function engineBlock(
  engine: Engine,
  database: BenchDatabase,
  receiver: Receiver,
  bare: { paced: number; burst: number },
  phase: PhaseSettings,
  context: SectionContext,
): Promise<{ rows: ResultRow[]; notes: string[] }> {
  let server: BenchChild<ServeReady> | undefined;
  try {
    context.log(`[webhooks/${engine}] starting Tsaro server`);
    server = await serveChild(engine, database, true);
    // The organization made by the first server is used throughout: its key outlives restarts.
    const { baseUrl, sandboxKey } = server.ready;
    await createEndpoint(baseUrl, sandboxKey, receiver.url);
    const measured = await pacedAndBurst('Tsaro', engine, baseUrl, sandboxKey, receiver, phase, context);
    const ratio = (rps: number, base: number) => (base > 0 ? rps / base : 0);
    measured.rows[0]!.ratioToBare = ratio(measured.rows[0]!.measurement.requestsPerSecond, bare.paced);
    measured.rows[1]!.ratioToBare = ratio(measured.rows[1]!.measurement.requestsPerSecond, bare.burst);
    await server.stop();

    context.log(`[webhooks/${engine}] queueing ${phase.burst} deliveries with delivery off`);
    server = await serveChild(engine, database, false);
    const sender = new IncidentSender(server.ready.baseUrl, sandboxKey, phase.connections);
    const queued = await sendBurst(sender, phase.burst, phase.connections).finally(() => sender.close());
    await server.stop();

    context.log(`[webhooks/${engine}] a new server drains the backlog`);
    receiver.reset();
    server = await serveChild(engine, database, true);
    const readyAt = performance.now();
    await receiver.waitFor(queued.sentAt.keys());
    const drain = toMeasurement(receiver, queued, () => readyAt);
    measured.rows.push({
      target: `Tsaro: backlog of ${fmt(phase.burst)} after restart`,
      engine,
      measurement: drain.measurement,
      ratioToBare: ratio(drain.measurement.requestsPerSecond, bare.burst),
    });
    measured.notes.push(
      `Tsaro (${engine}), backlog: ${fmt(queued.sentAt.size)} queued deliveries drained at ${fmt(drain.measurement.requestsPerSecond)}/s; ` +
        `the first arrived ${fmt(drain.firstArrival - readyAt)} ms after the new server was ready (the worker polls every second)` +
        (receiver.duplicates ? `; ${receiver.duplicates} duplicate deliveries` : '') +
        (drain.missing ? `; ${drain.missing} never arrived` : ''),
    );
    return measured;
  } finally {
    await server?.stop();
    await database.drop().catch((err: unknown) => context.log(`[webhooks/${engine}] could not drop the database: ${String(err)}`));
  }
}

export const webhooksSection: BenchSection = {
  name: 'webhooks',
  description: 'POST /incidents → first webhook delivery attempt at a local receiver (p50, p99), and deliveries/s, on SQLite and PostgreSQL',
  async run(context) {
    const phase = settings(context);
    const rows: ResultRow[] = [];
    const notes: string[] = [];
    const receiver = await Receiver.start();
    try {
      context.log('[webhooks] bare relay baseline');
      const relay = await startChild<RelayReady>('bare relay server', { script: 'bench/relay-server.ts', env: { RELAY_URL: receiver.url } });
      let bare: { paced: number; burst: number };
      try {
        const measured = await pacedAndBurst('bare relay', '-', relay.ready.baseUrl, 'none', receiver, phase, context);
        rows.push(...measured.rows);
        notes.push(...measured.notes);
        bare = { paced: measured.rows[0]!.measurement.requestsPerSecond, burst: measured.rows[1]!.measurement.requestsPerSecond };
      } finally {
        await relay.stop();
      }

      for (const engine of enginesWanted()) {
        const database = await createEngineDatabase(engine, (line) => {
          context.log(`[webhooks] ${line}`);
          notes.push(line);
        });
        if (!database) continue;
        const measured = await engineBlock(engine, database, receiver, bare, phase, context);
        rows.push(...measured.rows);
        notes.push(...measured.notes);
      }
    } finally {
      await receiver.close();
    }
    notes.push(
      'In this table req/s is deliveries/s (first to last arrival), p50/p99 are ms from sending POST /incidents to the ' +
        'first delivery attempt reaching the receiver (for the backlog: from the new server being ready), errors count ' +
        'deliveries that never arrived, and "x bare" divides deliveries/s by the bare relay\'s in the same mode.',
      'One at a time, deliveries/s is set by the spacing. Under load the API and the delivery worker share the server\'s ' +
        'one event loop: when deliveries/s is below the POST/s, the worker fell behind during the burst, which the ' +
        'latency under load and the delay of the last delivery show; the backlog row is the worker alone.',
    );
    return { name: 'webhooks', rows, aims: [], notes };
  },
};
