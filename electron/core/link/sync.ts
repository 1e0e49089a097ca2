import type { SyncReport } from '../../../shared/kiosk/calls.ts';
import { countCachedCodes } from '../caches/codes.ts';
import { pullCodeFeed, refreshPassKeys } from '../caches/refresh.ts';
import { Forbidden, okOrStop, SyncStopped } from './sync-stop.ts';
import type { CoreContext } from '../context.ts';
import type { CoverageDeps } from './coverage.ts';
import { Every } from './every.ts';
import { ADMIN_KEY_PROBLEM, checkKeyNotAdmin } from './admin-key.ts';
import { applyAnswer, giveUp } from '../outbox/answers.ts';
import { attemptOperation, type Attempt, type SendDeps } from '../outbox/operations.ts';
import { countPendingOperations, operationById, pendingOperations, type OutboxRow } from '../outbox/store.ts';
import { REPLAY_BATCH, replayBatch, type BatchOutcome, type ReplayDeps } from '../outbox/replay-batch.ts';
import { refreshPanicIncidents, sendPendingPanicReports, sendPendingPanics, type PanicDeps } from '../panic/panic.ts';
import type { HeartbeatDeps } from './heartbeat.ts';
import type { ServerAnswer } from './server-api.ts';
import { KIOSK_RETENTION_DAYS, pruneKioskJournal } from '../outbox/retention.ts';
import { readSetting, writeSetting } from '../settings-store.ts';
import { replaceServerVisitors } from '../gate/visits-store.ts';
import { cacheBehindSite, cacheFollowsSite } from '../caches/site.ts';
import { DAY_MS } from '../../../shared/time.ts';


/** The sync loop runs every room's part of a sync: what each of those reads, and the clock's correction. */
export type SyncDeps = Pick<CoreContext, 'appVersion' | 'learnServerTime' | 'localNowMs' | 'logError' | 'verifier'> &
  PanicDeps &
  CoverageDeps &
  HeartbeatDeps &
  ReplayDeps &
  SendDeps;
export { ADMIN_KEY_PROBLEM };

/**
 * The wait after the n-th failure in a row: exponential from the base, capped, with "equal
 * jitter" (half fixed, half random) so kiosks coming back together spread out; never less than
 * the server's Retry-After.
 */
export function backoffDelayMs(
  failures: number,
  timings: Pick<CoreContext['timings'], 'backoffBaseMs' | 'backoffMaxMs'>,
  random: number,
  retryAfterMs: number | null,
): number {
  const ceiling = Math.min(timings.backoffMaxMs, timings.backoffBaseMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.max(ceiling / 2 + random * (ceiling / 2), retryAfterMs ?? 0);
}

/**
 * The sync loop: one run at a time; a run sends unsent SOS presses first, then brings the pass
 * keys and the code feed up to date, replays the outbox in order, and refreshes the current
 * visitors. After a failure it waits with exponential backoff and jitter (honouring Retry-After);
 * the health endpoint says when the link is back.
 */
export class SyncLoop {
  private running: Promise<SyncReport> | null = null;
  private queued: Promise<SyncReport> | null = null;
  private failures = 0;
  private nextRun: NodeJS.Timeout | null = null;
  private stopped = true;
  /** While the link is down, a bare health check every `offlineProbeMs` (probeLink). */
  private readonly probe: Every;
  /** Operations in the next replay batch: halved after a batch the server could not answer, doubled back after one it did. */
  private batchSize = REPLAY_BATCH;
  nextAttemptAt: string | null = null;
  /** Kept here rather than counted on every status call: the screens poll status every second. */
  cachedCodes: number;

  constructor(
    private readonly ctx: SyncDeps,
    private readonly random: () => number = Math.random,
    /** A sync got through after failures: the heartbeat goes at once, so the server hears the kiosk as soon as the link is back. */
    private readonly onLinkBack: () => void = () => undefined,
  ) {
    this.cachedCodes = countCachedCodes(ctx.db);
    this.probe = new Every('link probe', ctx.timings.offlineProbeMs, () => this.probeLink(), ctx.logError);
  }

  get syncing(): boolean {
    return this.running !== null;
  }

  get lastSyncAt(): string | null {
    return readSetting(this.ctx.db, 'last_sync_at') ?? null;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.probe.start();
    this.schedule(0);
  }

  /** Stops its timers; answers once the sync under way, if any, has finished (or after `graceMs`). */
  async stop(graceMs = 3_000): Promise<void> {
    this.stopped = true;
    void this.probe.stop();
    if (this.nextRun) clearTimeout(this.nextRun);
    this.nextRun = null;
    const running = Promise.resolve(this.queued ?? this.running);
    await Promise.race([running.then(() => undefined, () => undefined), new Promise((done) => setTimeout(done, graceMs).unref())]);
  }

  // Elapsed real time, not the kiosk's clock: a test's hand-moved clock must not silence the nudge.
  private lastNudge = -Infinity;

  /**
   * When the link is down, a guard at the screen is a good reason to look again (at most every
   * few seconds, a bare health check), rather than wait out the backoff: the screen shows
   * "online" soon after the link returns. A server that answers but fails keeps its backoff.
   */
  nudgeWhenOffline(): void {
    const now = performance.now();
    if (this.ctx.link.net.online === false && now - this.lastNudge > 3_000) {
      this.lastNudge = now;
      this.kick();
    }
  }

  /** A sync as soon as possible, without waiting for it. */
  kick(): void {
    if (this.stopped) return;
    if (!this.running) this.schedule(0);
  }

  /** Runs a sync now; if one is running, waits for it and runs one more (shared by every caller meanwhile). */
  syncNow(): Promise<SyncReport> {
    if (!this.running) return this.run();
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.run();
    });
    return this.queued;
  }

  /**
   * While the server cannot be reached the backoff grows to half a minute; a bare health check
   * every second sees it answer again, and the sync (SOS first, then the whole queue) starts at
   * once. A server that answers but fails (5xx, 429) keeps its backoff.
   */
  private async probeLink(): Promise<void> {
    const ctx = this.ctx;
    if (this.stopped || this.running || !ctx.link.api || ctx.link.net.online !== false) return;
    try {
      const health = await ctx.link.api.health(Math.min(ctx.timings.healthTimeoutMs, ctx.timings.offlineProbeMs * 2));
      if (health.ok && !this.stopped && !this.running) {
        this.failures = 0;
        this.schedule(0);
      }
    } catch {
      // Still down: the next probe looks again.
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.nextRun) clearTimeout(this.nextRun);
    this.nextAttemptAt = new Date(this.ctx.clock.now().getTime() + delayMs).toISOString();
    this.nextRun = setTimeout(() => {
      this.nextRun = null;
      this.syncNow().catch((error: unknown) => this.ctx.logError(error));
    }, delayMs);
    this.nextRun.unref();
  }

  private run(): Promise<SyncReport> {
    const run = this.runOnce().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private async runOnce(): Promise<SyncReport> {
    const ctx = this.ctx;
    const report: SyncReport = { online: false, sent: 0, refused: 0, pendingOperations: 0, codesUpdated: 0, error: null };
    let retryAfterMs: number | null = null;
    try {
      if (!ctx.link.api) throw new SyncStopped('This kiosk is not set up yet', null);
      const sentAt = ctx.localNowMs();
      const health = await ctx.link.api.health(ctx.timings.healthTimeoutMs);
      ctx.link.noteContact(health.ok);
      if (!health.ok) throw new SyncStopped('The server cannot be reached', null);
      if (health.serverTime) ctx.learnServerTime(health.serverTime, sentAt, ctx.localNowMs());
      report.online = true;
      // SOS first, ahead of everything queued (even with a key refused below: a life first), then the guard's word on it.
      await sendPendingPanics(ctx);
      await sendPendingPanicReports(ctx);
      await this.refuseAdminKey();
      // A key without access_codes:validate may still send walk-ins and checkouts: the outbox
      // goes on, and the problem is shown (and the sync counted as failed) at the end.
      let forbidden: Forbidden | null = null;
      // A new site (or a cache from before codes carried their site): the codes again, from the start.
      if (cacheFollowsSite(ctx)) this.cachedCodes = countCachedCodes(ctx.db);
      try {
        await refreshPassKeys(ctx);
        report.codesUpdated = await pullCodeFeed(ctx);
      } catch (error) {
        if (!(error instanceof Forbidden)) throw error;
        forbidden = error;
      }
      if (report.codesUpdated > 0) this.cachedCodes = countCachedCodes(ctx.db);
      const drained = await this.drainOutbox();
      report.sent = drained.sent;
      report.refused = drained.refused;
      await this.refreshVisitors();
      await refreshPanicIncidents(ctx);
      if (forbidden) {
        ctx.link.net.problem = forbidden.problem;
        throw forbidden;
      }
      ctx.link.net.problem = null;
      this.pruneDaily();
      writeSetting(ctx.db, 'last_sync_at', ctx.nowIso());
      if (this.failures > 0) this.onLinkBack();
      this.failures = 0;
    } catch (error) {
      // Whatever went wrong, the loop goes on: a bug here must not stop the kiosk's sync for good.
      if (error instanceof SyncStopped) {
        report.error = error.message;
        retryAfterMs = error.retryAfterMs;
      } else {
        ctx.logError(error);
        report.error = `The sync failed: ${(error as Error)?.message ?? String(error)}`;
      }
      this.failures++;
    } finally {
      // Whatever happens here (even the database failing to answer), the next run is scheduled.
      try {
        report.pendingOperations = countPendingOperations(ctx.db);
        report.online = ctx.link.net.online === true;
      } catch (error) {
        ctx.logError(error);
        report.error ??= `The sync failed: ${(error as Error)?.message ?? String(error)}`;
        this.failures++;
      } finally {
        // A heartbeat answered in this run may have named a new site: its codes at once.
        this.schedule(report.error ? this.backoffMs(retryAfterMs) : cacheBehindSite(ctx) ? 0 : ctx.timings.syncIntervalMs);
      }
    }
    return report;
  }

  /**
   * An admin key at a gate lets anyone there manage the organization: the setup screen refuses
   * one, and so does the sync when KIOSK_API_KEY gives one. Nothing but an SOS is sent with it,
   * nor with a key not yet proven otherwise (no answer to the check: the run stops here).
   */
  private async refuseAdminKey(): Promise<void> {
    const ctx = this.ctx;
    const verdict = await checkKeyNotAdmin(ctx, ctx.timings.requestTimeoutMs);
    if (verdict.maySend) return;
    if (verdict.admin) throw new SyncStopped(ADMIN_KEY_PROBLEM, null);
    const answer = verdict.answer;
    if (answer.kind === 'blocked') okOrStop(ctx, answer);
    throw new SyncStopped(`Could not check that this kiosk's key cannot manage the organization: ${answer.message}`, answer.kind === 'unavailable' ? answer.retryAfterMs : null);
  }

  private backoffMs(retryAfterMs: number | null): number {
    return backoffDelayMs(this.failures, this.ctx.timings, this.random(), retryAfterMs);
  }

  /** At most once a day, after a sync that went through. */
  private pruneDaily(): void {
    const now = this.ctx.clock.now().getTime();
    const last = Number(readSetting(this.ctx.db, 'pruned_at_ms') ?? 0);
    if (now - last < DAY_MS) return;
    pruneKioskJournal(this.ctx.db, new Date(now - KIOSK_RETENTION_DAYS * DAY_MS).toISOString());
    writeSetting(this.ctx.db, 'pruned_at_ms', String(now));
  }

  /**
   * Replays the outbox in the order things happened, in batches (`POST /kiosk/replay`), or one
   * operation at a time to a server without that route (404, for the rest of the run) or for a
   * batch it will not take as a whole. A checkout waits for its check-in (or names it, in a
   * batch); an operation the server refuses for good goes to the needs-attention list and the
   * replay goes on; no answer stops the replay, to be resumed from the same operation.
   */
  private async drainOutbox(): Promise<{ sent: number; refused: number }> {
    const ctx = this.ctx;
    const total = { sent: 0, refused: 0 };
    let batches = true;
    let stopWith: ServerAnswer | null = null;
    const add = (done: { sent: number; refused: number }) => {
      total.sent += done.sent;
      total.refused += done.refused;
    };
    // Two batches out at once: the kiosk commits one batch's answers while the server works on
    // the next. A checkout in the second naming a check-in in the first is resolved by the
    // server once the first is applied (424, and the next pass, if it came first).
    const window: Array<{ listed: OutboxRow[]; outcome: Promise<BatchOutcome> }> = [];
    const settle = async (entry: (typeof window)[number]): Promise<void> => {
      const outcome = await entry.outcome;
      if (outcome.kind === 'answered') {
        this.batchSize = Math.min(REPLAY_BATCH, this.batchSize * 2);
        add(outcome);
        stopWith ??= outcome.stop;
      } else if (outcome.kind === 'failed') {
        // A server too slow for the batch (a timeout, the writer held too long): smaller next time.
        if (outcome.answer.kind === 'unavailable') this.batchSize = Math.max(1, Math.floor(this.batchSize / 2));
        stopWith ??= outcome.answer;
      } else {
        if (outcome.answer.status === 404) batches = false;
        if (!stopWith) add(await this.sendOneByOne(entry.listed));
      }
    };
    try {
      for (let progressed = true; progressed && !stopWith; ) {
        const before = total.sent + total.refused;
        // One pass over the queue: list the next operations (none once stopped), send them, settle in order.
        for (let afterSeq = 0; ; ) {
          const listed = stopWith ? [] : pendingOperations(ctx.db, afterSeq, batches ? this.batchSize : REPLAY_BATCH);
          if (listed.length === 0) {
            const head = window.shift();
            if (!head) break;
            await settle(head);
            continue;
          }
          afterSeq = listed.at(-1)!.seq;
          if (!batches) {
            while (window.length > 0) await settle(window.shift()!);
            if (!stopWith) add(await this.sendOneByOne(listed));
            continue;
          }
          const outcome = replayBatch(ctx, listed);
          outcome.catch(() => undefined); // awaited in order below; never an unhandled rejection meanwhile
          window.push({ listed, outcome });
          if (window.length >= 2) await settle(window.shift()!);
        }
        progressed = total.sent + total.refused > before;
      }
    } finally {
      // A stop (or a throw) with a batch still out: its answers are committed when they come.
      for (const entry of window) await entry.outcome.catch(() => undefined);
    }
    if (stopWith) okOrStop(ctx, stopWith);
    return total;
  }

  /** The replay one request per operation: servers before `POST /kiosk/replay`. */
  private async sendOneByOne(listed: OutboxRow[]): Promise<{ sent: number; refused: number }> {
    const ctx = this.ctx;
    let sent = 0;
    let refused = 0;
    for (const { op_id: opId } of listed) {
      if (ctx.link.inFlight.has(opId)) continue;
      // The batch may be stale: an inline send may have settled this one since it was read.
      const op = operationById(ctx.db, opId);
      if (op?.state !== 'pending') continue;
      const outcome = await ctx.link.whileInFlight(op.op_id, async (): Promise<Attempt | 'refused' | 'sent'> => {
        const attempt = await attemptOperation(ctx, op);
        if (!attempt.sent) {
          if (attempt.why === 'unsendable') {
            giveUp(ctx, op, 'its check-in never reached the server');
            return 'refused';
          }
          return attempt;
        }
        const answer = attempt.answer;
        if (answer.kind === 'ok' || answer.kind === 'refused') {
          applyAnswer(ctx, op, answer);
          return answer.kind === 'ok' ? 'sent' : 'refused';
        }
        // A heartbeat the key may not send must not stop the replay of what follows it.
        if (op.kind === 'heartbeat' && answer.kind === 'blocked') {
          applyAnswer(ctx, op, { kind: 'refused', status: answer.status, message: answer.message });
          return 'refused';
        }
        return attempt;
      });
      if (op.kind === 'heartbeat' && typeof outcome === 'string') continue; // the kiosk's report, not counted
      if (outcome === 'sent') sent++;
      else if (outcome === 'refused') refused++;
      else if (outcome.sent) okOrStop(ctx, outcome.answer);
    }
    return { sent, refused };
  }

  private async refreshVisitors(): Promise<void> {
    const ctx = this.ctx;
    const requestedAt = ctx.nowIso();
    const answer = await ctx.link.api!.call('get', '/access-logs/current-visitors', { timeoutMs: ctx.timings.requestTimeoutMs });
    // A key without logs:read still syncs everything else; the list is then this kiosk's own.
    if (answer.kind === 'blocked' && answer.status === 403) return;
    replaceServerVisitors(ctx.db, okOrStop(ctx, answer).visitors, ctx.nowIso(), requestedAt);
  }
}
