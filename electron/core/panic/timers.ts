import { Every } from '../link/every.ts';
import { hasOpenIncident, refreshPanicIncidents, sendPendingPanicReports, sendPendingPanics, type PanicDeps } from './panic.ts';
import { hasUnsentPanic, hasUnsentPanicReport } from './store.ts';
import { carryPeerPanics, type CarryDeps } from '../peers/carry-sos.ts';
import { unsentPeerPanics } from '../peers/store.ts';

/**
 * The SOS's own timers, whatever the sync's backoff: an unsent press (and the guard's report on
 * it) is tried again every `panicRetryMs`, and a sent one's incident read every `panicPollMs`
 * while it is open, so the guard learns within seconds that nobody accepted. Another gate's SOS
 * heard over the LAN and not yet sent is carried on the same retry.
 */
export function panicTimers(ctx: PanicDeps & CarryDeps & { logError(error: unknown): void }): Every[] {
  return [
    new Every(
      'SOS retry',
      ctx.timings.panicRetryMs,
      async () => {
        if (ctx.link.api && hasUnsentPanic(ctx.db)) await sendPendingPanics(ctx);
        if (ctx.link.api && hasUnsentPanicReport(ctx.db)) await sendPendingPanicReports(ctx);
        // Another gate's SOS that no gate has reported sent: this one carries it if it can (issue #49).
        if (ctx.link.api && unsentPeerPanics(ctx.db, ctx.kioskId).length) await carryPeerPanics(ctx);
      },
      ctx.logError,
    ),
    new Every(
      'SOS incident poll',
      ctx.timings.panicPollMs,
      async () => {
        if (ctx.link.api && hasOpenIncident(ctx)) await refreshPanicIncidents(ctx);
      },
      ctx.logError,
    ),
  ];
}
