import autocannon from 'autocannon';
import { startCpuAccount, type CpuPerRequest } from './cpu.ts';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Bodies sent in turn, one per request (instead of `body`). */
  bodies?: string[];
  /** The process that answers: the measured run then reports CPU per request (`cpu`). */
  serverPid?: number;
}

export interface LoadSettings {
  connections: number;
  durationS: number;
  /** A discarded run right before the measured one (JIT, pools, caches). 0 skips it. */
  warmupS: number;
}

export interface LoadMeasurement {
  requestsPerSecond: number;
  requestsTotal: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Connection errors (timeouts included). */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  durationS: number;
  /** With `serverPid`, on Linux: CPU per request of the server, the database and the load generator. */
  cpu?: CpuPerRequest;
}

function assertLoopback(url: string) {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) {
    throw new Error(`refusing to load a non-loopback address: ${url}`);
  }
}

function fire(target: LoadTarget, connections: number, durationS: number): Promise<autocannon.Result> {
  assertLoopback(target.url);
  const bodies = target.bodies;
  let turn = 0;
  return autocannon({
    ...(bodies && { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[turn++ % bodies.length] }) }] }),
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers,
    body: target.body,
    connections,
    pipelining: 1,
    duration: durationS,
    timeout: 10,
  });
}

/** Several targets at once (one autocannon each, `connections` each): the sum of their rates. */
export async function measureTogether(targets: LoadTarget[], settings: LoadSettings): Promise<LoadMeasurement[]> {
  if (settings.warmupS > 0) await Promise.all(targets.map((t) => fire(t, settings.connections, settings.warmupS)));
  const results = await Promise.all(targets.map((t) => fire(t, settings.connections, settings.durationS)));
  return results.map(toMeasurement);
}

/** Warm-up (discarded), then the measured run, both from this process with autocannon. */
export async function measure(target: LoadTarget, settings: LoadSettings): Promise<LoadMeasurement> {
  if (settings.warmupS > 0) await fire(target, settings.connections, settings.warmupS);
  const account = target.serverPid === undefined ? undefined : startCpuAccount(target.serverPid);
  const measurement = toMeasurement(await fire(target, settings.connections, settings.durationS));
  const cpu = account?.finish(measurement.requestsTotal);
  return cpu ? { ...measurement, cpu } : measurement;
}

function toMeasurement(result: autocannon.Result): LoadMeasurement {
  const statusCodes: Record<string, number> = {};
  const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  for (const [code, { count }] of Object.entries(stats)) statusCodes[code] = count;
  return {
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    durationS: result.duration,
  };
}
