import type { Logger } from 'pino';
import type { Engine } from '../db/database.ts';
import { inTransaction, type Db, type TextMessageRow } from '../db/schema.ts';
import { passCeilings } from './ceilings.ts';
import { deliveryReportUrl, noteOnIncident, type TextingDeps } from './service.ts';
import { claimDueMessages, finishMessageAttempt, forgetLink, markHandedOver } from './store.ts';
import { bodyToSend } from './secret-links.ts';

/** Seconds before each retry of a hand-over the gateway did not take: about 45 minutes in all, then failed. */
export const TEXT_RETRY_SECONDS = [5, 15, 30, 60, 120, 300, 600, 1200] as const;
/** A claimed message is this host's for this long: far longer than one hand-over's timeout. */
const LEASE_MS = 60_000;
const BATCH = 20;

export interface TextWorkerDeps extends TextingDeps {
  db: Db;
  engine: Engine;
  logger: Logger;
}

export interface TextWorker {
  /** Hands every due message the ceilings let go to the gateway once; answers how many were attempted. */
  runOnce(): Promise<number>;
  /** Polls every `intervalMs`, and at once after `wake()`. */
  start(intervalMs: number): void;
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The text outbox's sender, on every host: due messages are claimed with a lease (SKIP LOCKED on
 * PostgreSQL), so each is handed to the gateway by one host at a time, once the hourly ceilings
 * let it go (ceilings.ts). A hand-over the gateway
 * took is never repeated; one it did not is retried on TEXT_RETRY_SECONDS, then failed. If a host
 * dies between the gateway's answer and recording it, the lease runs out and the message is
 * handed over again: delivery to the gateway is at least once, as the issue decided.
 */
export function createTextWorker(deps: TextWorkerDeps): TextWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  async function attempt(row: TextMessageRow): Promise<void> {
    const gateway = deps.gateway!;
    const token = deps.secretBox.open(row.dlr_token_sealed);
    const answer = await gateway.send({ messageId: row.message_id, to: row.phone, body: bodyToSend(deps.secretBox, row), deliveryReportUrl: deliveryReportUrl(deps.publicUrl, row, token) });
    const at = deps.clock.now();
    const attempts = Number(row.attempts) + 1;
    // Each outcome and its timeline entry commit together.
    if (answer.accepted) {
      await inTransaction(deps.db, async (trx) => {
        await markHandedOver(trx, row.message_id, { attempts, sent_at: at.toISOString(), updated_at: at.toISOString() });
        await forgetLink(trx, row.message_id);
        await noteOnIncident(trx, deps, row, 'sms_sent');
      });
      return;
    }
    const wait = TEXT_RETRY_SECONDS[attempts - 1];
    if (wait === undefined) {
      await inTransaction(deps.db, async (trx) => {
        await finishMessageAttempt(trx, row.message_id, { status: 'failed', attempts, failed_at: at.toISOString(), updated_at: at.toISOString(), last_error: answer.detail });
        await forgetLink(trx, row.message_id);
        await noteOnIncident(trx, deps, row, 'sms_failed', answer.detail);
      });
      return;
    }
    deps.logger.warn({ messageId: row.message_id, attempts, detail: answer.detail }, 'text message not taken by the gateway; retrying');
    await finishMessageAttempt(deps.db, row.message_id, {
      attempts,
      next_attempt_at: new Date(at.getTime() + wait * 1000).toISOString(),
      updated_at: at.toISOString(),
      last_error: answer.detail,
    });
  }

  async function pass(): Promise<number> {
    if (!deps.gateway) return 0;
    let attempted = 0;
    for (;;) {
      const now = deps.clock.now();
      const due = await claimDueMessages(deps.db, deps.engine, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString(), BATCH);
      // Held, merged or waiting for its turn: not handed over (ceilings.ts).
      const going = await passCeilings(deps.db, deps, due);
      for (const row of going) {
        try {
          await attempt(row);
        } catch (err) {
          // The lease runs out and the message is tried again; nothing is lost.
          deps.logger.error({ err, messageId: row.message_id }, 'text message attempt failed to be recorded');
        }
      }
      attempted += going.length;
      if (due.length < BATCH || stopped) return attempted;
    }
  }

  function runOnce(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = pass().finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void runOnce().catch((err: unknown) => deps.logger.error({ err }, 'text message pass failed'));
      }
    });
    return running;
  }

  return {
    runOnce,
    start(intervalMs) {
      if (!deps.gateway) return;
      timer = setInterval(() => void runOnce().catch((err: unknown) => deps.logger.error({ err }, 'text message pass failed')), intervalMs);
      timer.unref();
    },
    wake() {
      if (!stopped && deps.gateway) void runOnce().catch((err: unknown) => deps.logger.error({ err }, 'text message pass failed'));
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
