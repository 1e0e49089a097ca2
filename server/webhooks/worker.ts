import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { SIGNATURE_HEADER, signatureHeader } from '../../shared/webhooks.ts';
import type { Clock } from '../clock.ts';
import type { Engine } from '../db/database.ts';
import type { Db, WebhookEndpointRow, WebhookJobRow } from '../db/schema.ts';
import { storedEvent } from '../events/service.ts';
import { newId } from '../ids.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { cancelJob, claimDueJobs, findEndpointById, finishAttempt } from './store.ts';
import { nextAttemptAt as scheduleNext } from './retry-schedule.ts';
import { refusedAddress, type TargetPolicy } from './url-policy.ts';

/** A claimed job is this host's for the send timeout twice over plus a margin: never shorter than an attempt. */
const leaseMs = (timeoutMs: number) => Math.max(60_000, 2 * timeoutMs + 10_000);

export interface WebhookWorkerDeps {
  db: Db;
  engine: Engine;
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: sandbox deliveries may reach loopback and private addresses. */
  allowPrivate: boolean;
  /**
   * Tests only, never configuration: live deliveries may reach loopback and private addresses too,
   * so a journey's partner receiver can listen on this machine (StartOptions.liveWebhooksToLoopback).
   */
  liveToLoopback?: boolean;
  /** WEBHOOK_RETRY_SCALE: divides the retry schedule (default 1). */
  retryScale?: number;
  /** Spreads the hourly retries; Math.random unless a test fixes it. */
  random?: () => number;
  batchSize?: number;
}

export interface WebhookWorker {
  /** Sends every due delivery once; answers how many were attempted. */
  runOnce(): Promise<number>;
  /** Polls every `intervalMs`, and at once after `wake()`. */
  start(intervalMs: number): void;
  wake(): void;
  /** Passes run so far, by the poll, wakes and `runOnce` (tests count them). */
  readonly passes: number;
  stop(): Promise<void>;
}

/** A DNS lookup that refuses addresses the policy does not allow: checked on every connection. */
function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const refusal = list.map((entry) => refusedAddress(entry.address, policy)).find(Boolean);
      if (refusal) return callback(Object.assign(new Error(refusal), { code: 'EADDRREFUSED' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export function createWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const policyOf = (environment: string): TargetPolicy =>
    environment === 'live' && deps.liveToLoopback ? { environment: 'sandbox', allowPrivate: true } : { environment, allowPrivate: environment === 'sandbox' && deps.allowPrivate };
  const agents: Record<string, Agent> = {
    live: new Agent({ connect: { lookup: guardedLookup(policyOf('live')) } }),
    sandbox: new Agent({ connect: { lookup: guardedLookup(policyOf('sandbox')) } }),
  };
  const schedule = { scale: deps.retryScale ?? 1, random: deps.random ?? Math.random };
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  let busy = false;
  let pendingWake = false;
  let passes = 0;

  async function send(endpoint: WebhookEndpointRow, body: string, eventId: string, eventType: string) {
    const started = performance.now();
    const url = new URL(endpoint.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never reaches the lookup, so it is checked here.
    const policy = policyOf(endpoint.environment);
    const literalRefusal = isIP(host) ? refusedAddress(host, policy) : undefined;
    if (literalRefusal) return { status: null, error: literalRefusal, durationMs: 0 };
    const now = deps.clock.now();
    const secrets = [deps.secretBox.open(endpoint.secret)];
    if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now.toISOString()) {
      secrets.push(deps.secretBox.open(endpoint.previous_secret));
    }
    try {
      const response = await request(endpoint.url, {
        method: 'POST',
        dispatcher: agents[endpoint.environment] ?? agents.live,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tsaro-Webhooks/1.0',
          [SIGNATURE_HEADER]: await signatureHeader(secrets, Math.floor(now.getTime() / 1000), body),
          'svc-event-id': eventId,
          'svc-event-type': eventType,
        },
        body,
        headersTimeout: deps.timeoutMs,
        bodyTimeout: deps.timeoutMs,
        signal: AbortSignal.timeout(deps.timeoutMs),
      });
      const excerpt = await excerptOf(response.body);
      const durationMs = Math.round(performance.now() - started);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { status, error: null, durationMs, excerpt };
      if (status >= 300 && status < 400) return { status, error: `redirect not followed (${status})`, durationMs, excerpt };
      return { status, error: `receiver answered ${status}`, durationMs, excerpt };
    } catch (err) {
      const durationMs = Math.round(performance.now() - started);
      const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
      const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
      const error = timedOut ? `timeout after ${deps.timeoutMs} ms` : (e.cause?.message ?? e.message ?? String(err));
      return { status: null, error, durationMs };
    }
  }

  async function deliver(job: WebhookJobRow): Promise<void> {
    const endpoint = await findEndpointById(deps.db, job.endpoint_id);
    if (!endpoint || endpoint.deleted_at || endpoint.status !== 'enabled') {
      await cancelJob(deps.db, job.job_id);
      return;
    }
    const event = await storedEvent(deps.db, job.event_id);
    if (!event) throw new Error(`event ${job.event_id} of job ${job.job_id} is missing`);
    // The stored data is already the JSON the envelope carries: no parse and re-serialise.
    const test = Number(event.test) === 1 ? ',"test":true' : '';
    const body = `{"id":${JSON.stringify(event.event_id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.created_at)}${test},"data":${event.data}}`;
    // A secret that no longer opens (SECRETS_KEY changed) is a failed attempt on record, not a silent loop.
    const result = await send(endpoint, body, event.event_id, event.type).catch((err: unknown) => ({
      status: null,
      error: `could not sign: ${err instanceof Error ? err.message : String(err)}`,
      durationMs: 0,
    }));
    const attempt = Number(job.attempts) + 1;
    const succeeded = result.error === null;
    const now = deps.clock.now();
    const nextAttemptAt = succeeded ? null : (scheduleNext(attempt, now, new Date(job.created_at), schedule)?.toISOString() ?? null);
    await finishAttempt(
      deps.db,
      job,
      {
        attempts: attempt,
        state: succeeded ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed',
        ...(nextAttemptAt && { next_attempt_at: nextAttemptAt }),
      },
      {
        delivery_id: newId('whd', now),
        job_id: job.job_id,
        endpoint_id: endpoint.endpoint_id,
        event_id: event.event_id,
        event_type: event.type,
        attempt,
        status: succeeded ? 'succeeded' : 'failed',
        response_status: result.status,
        response_excerpt: 'excerpt' in result ? (result.excerpt ?? null) : null,
        error: result.error,
        duration_ms: result.durationMs,
        attempted_at: now.toISOString(),
        next_attempt_at: nextAttemptAt,
      },
    );
    if (!succeeded) deps.logger.warn({ endpointId: endpoint.endpoint_id, eventId: event.event_id, attempt, error: result.error }, 'webhook delivery failed');
  }

  async function runOnce(): Promise<number> {
    passes++;
    const now = deps.clock.now();
    const jobs = await claimDueJobs(
      deps.db,
      deps.engine,
      now.toISOString(),
      new Date(now.getTime() + leaseMs(deps.timeoutMs)).toISOString(),
      deps.batchSize ?? 50,
    );
    await Promise.all(
      jobs.map((job) => deliver(job).catch((err: unknown) => deps.logger.error({ err, jobId: job.job_id }, 'webhook job failed'))),
    );
    return jobs.length;
  }

  /** One pass at a time; a wake during a pass (or a full batch) asks for another right after. */
  async function pump(): Promise<void> {
    if (busy) {
      pendingWake = true;
      return;
    }
    busy = true;
    try {
      do {
        pendingWake = false;
        const count = await runOnce().catch((err: unknown) => {
          deps.logger.warn({ err }, 'webhook worker pass failed');
          return 0;
        });
        // Anything sent may have scheduled an immediate retry: look again until a pass finds nothing due.
        if (count > 0) pendingWake = true;
      } while (pendingWake && !stopped);
    } finally {
      busy = false;
    }
  }

  const kick = () => {
    if (stopped) return;
    if (busy) pendingWake = true;
    else current = pump();
  };

  return {
    runOnce,
    start(intervalMs) {
      timer = setInterval(kick, intervalMs);
      timer.unref();
      kick(); // what a previous run left due goes out now, not at the first tick
    },
    wake: kick,
    get passes() {
      return passes;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await current;
      await Promise.all(Object.values(agents).map((agent) => agent.close()));
    },
  };
}

/** The answer's first 500 characters, as text (for the delivery log); the rest is read and dropped, 64 KiB at most. */
const EXCERPT_CHARS = 500;
async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let read = 0;
  try {
    for await (const chunk of body) {
      if (keptBytes < EXCERPT_CHARS * 4) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
      read += chunk.length;
      if (read >= 64 * 1024) {
        body.destroy();
        break;
      }
    }
  } catch {
    // a body cut off mid-way: what arrived is the excerpt
  }
  const text = Buffer.concat(kept).toString('utf8').slice(0, EXCERPT_CHARS);
  return text === '' ? null : text;
}
