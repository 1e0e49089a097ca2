import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { freePort } from '../../support/ports.ts';
import { randomUUID } from 'node:crypto';
import { Agent, fetch } from 'undici';

/**
 * A fresh connection per request: a partner's POST sent on a kept-alive connection the balancer
 * is closing at that moment never reaches it and cannot be safely resent by the HTTP client,
 * which would show here as "no answer" without any fault of the service.
 */
const dispatcher = new Agent({ pipelining: 0 });

/** A webhook receiver on loopback that can go down (its port refuses connections) and come back. */
export class Receiver {
  readonly eventIds = new Set<string>();
  arrivals = 0;
  private server: Server | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<Receiver> {
    const receiver = new Receiver(await freePort());
    await receiver.up();
    return receiver;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = req.headers['svc-event-id'];
        if (typeof id === 'string') this.eventIds.add(id);
        this.arrivals++;
        res.writeHead(200).end();
      });
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
}

export interface Outcome {
  kind: 'incident' | 'code' | 'validation' | 'read';
  status: number;
  /** A non-2xx answer in the `{code, message}` shape (2xx: true). */
  shaped: boolean;
  /** Incidents: the reference the partner gave it (and its Idempotency-Key); codes: the code's id. */
  ref?: string;
  id?: string;
  /** Why there was no answer at all (status 0). */
  detail?: string;
}

export interface LoadResult {
  outcomes: Outcome[];
}

/** At most this many requests a second from the load (its key's budget is 1,000 a minute). */
export const LOAD_PER_SECOND = 14;

type Call = { status: number; body: any; detail?: string };

async function call(url: string, key: string, method: string, body?: unknown, idempotencyKey?: string): Promise<Call> {
  try {
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
      dispatcher,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left as text: it fails the shape check
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    // No answer at all (connection refused or reset, a 30 s timeout): status 0.
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return { status: 0, body: undefined, detail: `${method} ${new URL(url).pathname}: ${e.cause?.code ?? e.cause?.message ?? e.message}` };
  }
}

const shaped = (answer: Call) =>
  (answer.status >= 200 && answer.status < 300) ||
  (typeof answer.body === 'object' && answer.body !== null && answer.body.code === answer.status && typeof answer.body.message === 'string');

/**
 * A bounded mixed load through the balancer, `workers` partners at once until `stop()`:
 * a new incident, a new access code then its validation, and reads. Every answer is kept.
 */
export function driveLoad(baseUrl: string, key: string, workers: number, perSecond = LOAD_PER_SECOND) {
  const outcomes: Outcome[] = [];
  let stopping = false;
  // Bounded: requests are spaced to stay under the enterprise plan's 1,000 a minute per key.
  let nextSlot = Date.now();
  const paced = async (url: string, method: string, body?: unknown, idempotencyKey?: string) => {
    const now = Date.now();
    const wait = nextSlot - now;
    nextSlot = Math.max(now, nextSlot) + 1000 / perSecond;
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    return call(url, key, method, body, idempotencyKey);
  };
  const record = (kind: Outcome['kind'], answer: Call, extra: Partial<Outcome> = {}) =>
    outcomes.push({ kind, status: answer.status, shaped: shaped(answer), ...(answer.detail && { detail: answer.detail }), ...extra });

  async function worker() {
    for (let i = 0; !stopping; i++) {
      const ref = `fault-${randomUUID()}`;
      const incident = await paced(
        `${baseUrl}/incidents`,
        'POST',
        {
          category: 'sos',
          severity: 'high',
          subject: { name: 'Load Test', phone: '+2348012345678', reference: ref },
          location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki' },
        },
        ref,
      );
      record('incident', incident, { ref, id: incident.body?.incident?.incident_id });
      if (i % 2 === 0) {
        const created = await paced(`${baseUrl}/access-codes`, 'POST', { visitor_name: 'Visitor', visitor_phone: '+2348012345679', max_uses: 5 }, randomUUID());
        const code = created.body?.access_code;
        record('code', created, { id: code?.code_id });
        if (code?.code) {
          const validated = await paced(`${baseUrl}/access-codes/validate`, 'POST', { code: code.code, validated_by: 'gate-1' }, randomUUID());
          record('validation', validated, { id: code.code_id });
        }
      }
      record('read', await paced(`${baseUrl}/incidents?limit=5`, 'GET'));
    }
  }

  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    outcomes,
    async stop(): Promise<Outcome[]> {
      stopping = true;
      await running;
      return outcomes;
    },
  };
}

export { call, type Call };
