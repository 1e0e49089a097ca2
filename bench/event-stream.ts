/**
 * Section `event-stream`: fan-out of GET /events/stream across two hosts on one PostgreSQL
 * database. Host B holds BENCH_STREAM_N open streams (default 1,000) of the tenant being written
 * to; SOS incidents are written on host A (another server process). Reported:
 *
 *   1. delay: from sending POST /incidents to A until its `incident.created` frame has reached
 *      every stream on B, per stream (p50, p90, p99, max over SOS × streams); BENCH_STREAM_SOS
 *      SOS (default 50), one every BENCH_STREAM_SPACING_MS (200), after 5 discarded. Aim: p99 < 1 s.
 *   2. memory: host B's resident set (VmRSS) with the streams open minus before, divided by N.
 *   3. the write path: POST /incidents on A under autocannon (BENCH_CONNECTIONS, BENCH_DURATION_S)
 *      without streams and with the N streams open and receiving every event, side by side with a
 *      bare Express "hello" server measured in the same block. Aim: with ≥ 0.9 × without.
 *
 * The streams are plain HTTP requests from this process; their frames are parsed in phase 1
 * and only counted in phase 3 (so this process's parsing does not load the machine twice).
 * PostgreSQL only (SQLite is one host). Environment: BENCH_STREAM_N, BENCH_STREAM_SOS,
 * BENCH_STREAM_SPACING_MS, BENCH_POSTGRES_ADMIN_URL, BENCH_CONNECTIONS, BENCH_DURATION_S, BENCH_WARMUP_S.
 */
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import { INCIDENT_BODY } from './http-api.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase } from './lib/databases.ts';
import { measure, type LoadMeasurement } from './lib/load.ts';
import { intFromEnv, sleep } from './lib/settings.ts';
import { fmt, percentile } from './lib/stats.ts';
import type { AimCheck, BenchSection, ResultRow, SectionContext } from './lib/section.ts';

interface ServeReady {
  baseUrl: string;
  liveKey: string;
  pid: number;
}

const WARMUP_SOS = 5;
const DELAY_AIM_MS = 1000;
const WRITE_AIM = 0.9;

/** Resident set of a process, in kB (Linux /proc). */
function rssKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0);
}

/** CPU time (user + system) a process has used so far, in µs (Linux /proc; 100 ticks a second). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A load run, and host A's CPU per answered request over it (barely moved by what else runs on the machine). */
async function measureWrites(target: Parameters<typeof measure>[0], pid: number, context: SectionContext): Promise<{ measurement: LoadMeasurement; cpuPerRequestUs: number }> {
  if (context.load.warmupS > 0) await measure(target, { ...context.load, durationS: context.load.warmupS, warmupS: 0 });
  const before = cpuUs(pid);
  const measurement = await measure(target, { ...context.load, warmupS: 0 });
  return { measurement, cpuPerRequestUs: measurement.requestsTotal ? (cpuUs(pid) - before) / measurement.requestsTotal : 0 };
}

/** N open streams, each noting when each incident's `incident.created` frame arrived. */
class Streams {
  readonly arrivals = new Map<string, number[]>();
  parsing = true;
  frames = 0;
  private readonly requests: ClientRequest[] = [];
  private readonly agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  private waiters: (() => void)[] = [];

  /** `count` streams, spread over `keys` in turn (a key may hold STREAM_MAX_PER_KEY streams on a host). */
  async open(url: string, keys: readonly string[], count: number, log: (line: string) => void): Promise<void> {
    const batch = 100;
    for (let i = 0; i < count; i += batch) {
      await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => this.openOne(url, keys[(i + j) % keys.length]!)));
      if ((i + batch) % 500 === 0) log(`[event-stream] ${Math.min(i + batch, count)} streams open`);
    }
  }

  private openOne(url: string, key: string): Promise<void> {
    return new Promise((opened, failed) => {
      const req = httpRequest(url, { agent: this.agent, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return failed(new Error(`GET /events/stream: ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        let first = true;
        res.on('data', (chunk: string) => {
          const at = performance.now();
          if (first) {
            first = false;
            opened();
          }
          if (!this.parsing) {
            this.frames += chunk.split('\n\n').length - 1;
            return;
          }
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /"incident_id":"(inc_[0-9A-Za-z]+)"/.exec(frame)?.[1];
            if (!id || !frame.includes('event: incident.created')) continue;
            const list = this.arrivals.get(id) ?? [];
            list.push(at);
            this.arrivals.set(id, list);
            for (const wake of this.waiters.splice(0)) wake();
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', failed);
      req.end();
      this.requests.push(req);
    });
  }

  /** Resolves once `incidentId` reached `count` streams, or after `timeoutMs`. */
  async waitFor(incidentId: string, count: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while ((this.arrivals.get(incidentId)?.length ?? 0) < count) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await Promise.race([new Promise<void>((wake) => this.waiters.push(wake)), sleep(Math.min(left, 200))]);
    }
    return true;
  }

  close(): void {
    for (const req of this.requests) req.destroy();
    this.agent.destroy();
  }
}

/** Streams each reader key holds: the server's default ceiling per key (STREAM_MAX_PER_KEY). */
const STREAMS_PER_KEY = 20;

/** Keys that read incidents and visitors, made through the API with the owner's key, to spread the streams over. */
async function readerKeys(baseUrl: string, ownerKey: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${baseUrl}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `stream reader ${i}`, scopes: ['incidents:read', 'logs:read'] }),
    });
    if (response.status !== 201) throw new Error(`making a reader key: ${response.status} ${await response.text()}`);
    keys.push(((await response.json()) as { secret: string }).secret);
  }
  return keys;
}

async function postIncident(baseUrl: string, key: string): Promise<{ incidentId: string; sentAt: number }> {
  const sentAt = performance.now();
  const res = await fetch(`${baseUrl}/incidents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(INCIDENT_BODY),
  });
  const body = (await res.json()) as { incident?: { incident_id: string } };
  if (res.status !== 201 || !body.incident) throw new Error(`POST /incidents: ${res.status}`);
  return { incidentId: body.incident.incident_id, sentAt };
}

export const eventStreamSection: BenchSection = {
  name: 'event-stream',
  description: 'GET /events/stream: N streams on host B, SOS written on host A (PostgreSQL): delay to every stream, memory per stream, the write path with and without the streams',
  async run(context: SectionContext) {
    const n = intFromEnv('BENCH_STREAM_N', 1000, 1);
    const sos = intFromEnv('BENCH_STREAM_SOS', 50, 1);
    const spacingMs = intFromEnv('BENCH_STREAM_SPACING_MS', 200, 0);
    const notes: string[] = [];
    const rows: ResultRow[] = [];
    const aims: AimCheck[] = [];
    const database = await createEngineDatabase('postgres', (line) => notes.push(line), 'event-stream');
    if (!database) return { name: 'event-stream', rows, aims, notes };
    const children: BenchChild<unknown>[] = [];
    const streams = new Streams();
    try {
      const hello = await startChild<{ url: string }>('hello server', { script: 'bench/hello-server.ts' });
      children.push(hello);
      const hostA = await startChild<ServeReady>('tsaro host A', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url } });
      children.push(hostA);
      const hostB = await startChild<ServeReady>('tsaro host B', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url, BENCH_SERVE_ORGANIZATION: '0' } });
      children.push(hostB);
      const key = hostA.ready.liveKey;
      const readers = await readerKeys(hostA.ready.baseUrl, key, Math.ceil(n / STREAMS_PER_KEY));
      const write = { url: `${hostA.ready.baseUrl}/incidents`, method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(INCIDENT_BODY) };

      context.log('[event-stream] write path without streams, beside the bare server');
      const bare = await measure({ url: hello.ready.url }, context.load);
      await hello.stop();
      const without = await measureWrites(write, hostA.ready.pid, context);

      await sleep(1000);
      const rssBefore = rssKb(hostB.ready.pid);
      // The tenant's streams, filtered to a type nobody writes here: open, the sequencer and B's feed at work, nothing to deliver.
      context.log(`[event-stream] opening ${n} streams on host B (visitor.arrived only: nothing to deliver)`);
      const idle = new Streams();
      let idleWrites: Awaited<ReturnType<typeof measureWrites>>;
      let rssAfter: number;
      try {
        await idle.open(`${hostB.ready.baseUrl}/events/stream?types=visitor.arrived`, readers, n, context.log);
        await sleep(2000);
        rssAfter = rssKb(hostB.ready.pid);
        context.log('[event-stream] write path with the streams open, receiving nothing');
        idleWrites = await measureWrites(write, hostA.ready.pid, context);
      } finally {
        idle.close();
      }

      await sleep(1000);
      context.log(`[event-stream] opening ${n} streams on host B (incident.created)`);
      await streams.open(`${hostB.ready.baseUrl}/events/stream?types=incident.created`, readers, n, context.log);
      await sleep(1000);
      context.log(`[event-stream] ${WARMUP_SOS} + ${sos} SOS on host A, ${spacingMs} ms apart`);
      const delays: number[] = [];
      let missing = 0;
      for (let i = 0; i < WARMUP_SOS + sos; i++) {
        const { incidentId, sentAt } = await postIncident(hostA.ready.baseUrl, key);
        if (!(await streams.waitFor(incidentId, n, 10_000))) missing += n - (streams.arrivals.get(incidentId)?.length ?? 0);
        if (i >= WARMUP_SOS) for (const at of streams.arrivals.get(incidentId) ?? []) delays.push(at - sentAt);
        streams.arrivals.delete(incidentId);
        await sleep(spacingMs);
      }
      delays.sort((a, b) => a - b);

      context.log('[event-stream] write path with the streams open, each receiving every SOS');
      streams.parsing = false;
      const withStreams = await measureWrites(write, hostA.ready.pid, context);
      // Again without, after: the machine's drift between the runs shows as the difference of the two "without".
      streams.close();
      await sleep(1000);
      context.log('[event-stream] write path without streams again');
      const withoutAfter = await measureWrites(write, hostA.ready.pid, context);

      const ratio = (m: LoadMeasurement) => (bare.requestsPerSecond > 0 ? m.requestsPerSecond / bare.requestsPerSecond : 0);
      rows.push({ target: 'bare express hello', engine: 'none', measurement: bare });
      rows.push({ target: 'POST /incidents on A, no streams', engine: 'postgres', measurement: without.measurement, ratioToBare: ratio(without.measurement) });
      rows.push({ target: `POST /incidents on A, ${fmt(n)} streams on B, none receiving`, engine: 'postgres', measurement: idleWrites.measurement, ratioToBare: ratio(idleWrites.measurement) });
      rows.push({ target: `POST /incidents on A, ${fmt(n)} streams on B, each receiving every SOS`, engine: 'postgres', measurement: withStreams.measurement, ratioToBare: ratio(withStreams.measurement) });
      rows.push({ target: 'POST /incidents on A, no streams (again)', engine: 'postgres', measurement: withoutAfter.measurement, ratioToBare: ratio(withoutAfter.measurement) });
      const p = (q: number) => percentile(delays, q);
      const withoutRps = (without.measurement.requestsPerSecond + withoutAfter.measurement.requestsPerSecond) / 2;
      const writeRatio = withoutRps > 0 ? withStreams.measurement.requestsPerSecond / withoutRps : 0;
      const idleRatio = withoutRps > 0 ? idleWrites.measurement.requestsPerSecond / withoutRps : 0;
      const withoutCpu = (without.cpuPerRequestUs + withoutAfter.cpuPerRequestUs) / 2;
      const cpuRatio = withStreams.cpuPerRequestUs > 0 ? withoutCpu / withStreams.cpuPerRequestUs : 0;
      const perStreamKb = (rssAfter - rssBefore) / n;
      aims.push({ aim: `SOS on A → every stream on B, p99 < ${DELAY_AIM_MS} ms`, engine: 'postgres', actual: `${fmt(p(99))} ms`, met: p(99) < DELAY_AIM_MS && missing === 0 });
      aims.push({ aim: `write path with ${fmt(n)} streams open (none receiving) ≥ ${WRITE_AIM} × without`, engine: 'postgres', actual: `${idleRatio.toFixed(2)} ×`, met: idleRatio >= WRITE_AIM });
      aims.push({ aim: `write path with ${fmt(n)} streams each receiving every SOS ≥ ${WRITE_AIM} × without (req/s, machine-wide)`, engine: 'postgres', actual: `${writeRatio.toFixed(2)} ×`, met: writeRatio >= WRITE_AIM });
      aims.push({ aim: `host A's CPU per POST with ${fmt(n)} streams ≤ 1 / ${WRITE_AIM} × without`, engine: 'postgres', actual: `${cpuRatio.toFixed(2)} ×`, met: cpuRatio >= WRITE_AIM });
      notes.push(
        `${fmt(n)} streams on host B: ${fmt(rssAfter - rssBefore)} kB more resident memory (${perStreamKb.toFixed(1)} kB a stream); ` +
          `${fmt(streams.frames)} frames reached them during the loaded write run.`,
        `Host A's CPU per POST /incidents: ${fmt(without.cpuPerRequestUs)} µs without streams, ${fmt(idleWrites.cpuPerRequestUs)} µs with ${fmt(n)} receiving nothing, ${fmt(withStreams.cpuPerRequestUs)} µs with them receiving every SOS, ${fmt(withoutAfter.cpuPerRequestUs)} µs without again. ` +
          'Req/s with the streams also pays for the fan-out (host B writing every SOS to every stream, this process reading it) on the same cores; CPU per request on A is the write path alone.',
        'The delay is from sending POST /incidents to host A until the frame is read by each stream on host B: the commit, ' +
          'the sequencer (every 100 ms on a host with streams), its NOTIFY, one read by B\'s feed, and the fan-out to every stream.',
      );
      return {
        name: 'event-stream',
        rows,
        aims,
        notes,
        tables: [
          {
            title: `Delay from POST /incidents on A to the frame on each of ${fmt(n)} streams on B (${fmt(sos)} SOS, ms)`,
            header: ['streams', 'SOS', 'p50', 'p90', 'p99', 'max', 'missing', 'kB a stream'],
            rows: [[fmt(n), fmt(sos), fmt(p(50)), fmt(p(90)), fmt(p(99)), fmt(delays.at(-1) ?? 0), fmt(missing), perStreamKb.toFixed(1)]],
          },
        ],
        data: { n, sos, delays: { p50: p(50), p90: p(90), p99: p(99), max: delays.at(-1) ?? 0 }, missing, rssBeforeKb: rssBefore, rssAfterKb: rssAfter, perStreamKb, writeRatio, idleRatio, cpuRatio },
      };
    } finally {
      streams.close();
      for (const child of children.reverse()) await child.stop();
      await database.drop().catch((err: unknown) => context.log(`[event-stream] could not drop the database: ${String(err)}`));
    }
  },
};
