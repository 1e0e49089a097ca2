import type { KioskHandlers } from '../../../shared/kiosk/calls.ts';
import type { Every } from '../link/every.ts';
import { panicStatus, type PanicDeps, pressPanic, reportPanic, sendPendingPanicReports, sendPendingPanics } from './panic.ts';

/** The screen gets an answer within the scan budget, whether or not the server has answered by then. */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  await Promise.race([work.catch(() => false), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

/** The panic button's part of the handler map: the press, its status, and the guard's word on it. */
export function panicHandlers(ctx: PanicDeps, coverage: Pick<Every, 'runSoon'>): Pick<KioskHandlers, 'panicPress' | 'panicStatus' | 'panicReport'> {
  const budgetMs = ctx.timings.onlineDecisionTimeoutMs;
  return {
    panicPress: async (input) => {
      const status = pressPanic(ctx, input.pressId);
      // Every press asks again whether anyone covers the gate: the screen must not say "finding
      // the nearest responder" from an answer the server has since changed its mind about.
      void coverage.runSoon();
      if (status.delivery !== 'sending') return status;
      // Straight out, not behind the sync loop.
      await atMost(sendPendingPanics(ctx), budgetMs);
      return panicStatus(ctx, input.pressId)!;
    },
    panicStatus: async (input) => panicStatus(ctx, input.pressId),
    panicReport: async (input) => {
      reportPanic(ctx, input.pressId, input.report);
      // Straight out when the SOS is there already; otherwise it follows the SOS.
      await atMost(sendPendingPanicReports(ctx), budgetMs);
      return panicStatus(ctx, input.pressId)!;
    },
  };
}
