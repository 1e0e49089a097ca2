import { KioskCallError, type KioskHandlers } from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import type { Every } from '../link/every.ts';
import type { SyncLoop } from '../link/sync.ts';
import { countPendingOperations } from '../outbox/store.ts';
import { forgetServer, movesElsewhere, MOVED_WITH_PENDING, writeFingerprints } from './server-change.ts';
import { writeStoredSetup } from './settings.ts';
import { checkSettings, configureResult, setupStatus, toSettings } from './setup.ts';

/**
 * Set-up's part of the handler map: what the kiosk is set up with, and the first-run setup,
 * which checks the settings against the server, forgets another server's cache, and hands the
 * link its new settings.
 */
export function setupHandlers(
  ctx: Pick<CoreContext, 'db' | 'link' | 'secrets' | 'timings' | 'verifier' | 'nowIso'>,
  { fetch, sync, coverage }: { fetch: typeof globalThis.fetch; sync: SyncLoop; coverage: Every },
): Pick<KioskHandlers, 'setupStatus' | 'configure'> {
  const { db } = ctx;
  return {
    setupStatus: async () => setupStatus(ctx.link),

    configure: async (input) => {
      if (ctx.link.source === 'environment') {
        throw new KioskCallError(409, 'This kiosk is set up by its environment (KIOSK_* variables); change them there');
      }
      const next = toSettings(input);
      const checks = await checkSettings(next, fetch, ctx.timings.requestTimeoutMs);
      if (checks.some((check) => !check.ok)) return configureResult(false, checks, ctx.link);
      const elsewhere = movesElsewhere(db, ctx.link.settings, next);
      if (elsewhere && countPendingOperations(db) > 0) throw new KioskCallError(409, MOVED_WITH_PENDING);
      db.transaction(() => {
        if (elsewhere) forgetServer(db, ctx.nowIso());
        writeStoredSetup(db, ctx.secrets, next);
        writeFingerprints(db, next);
      })();
      if (elsewhere) {
        ctx.verifier.setKeys([]);
        sync.cachedCodes = 0;
      }
      ctx.link.source = 'setup';
      ctx.link.net = { online: true, lastContactAt: ctx.nowIso(), problem: null };
      ctx.link.use(next);
      sync.kick();
      void coverage.runSoon();
      return configureResult(true, checks, ctx.link);
    },

  };
}
