import type { KioskHandlers, KioskStatus } from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import { alarmPhonesOf, untextedPhonesOf } from '../caches/site.ts';
import { countOpenAttention, countPendingOperations, openAttention } from '../outbox/store.ts';
import { activePanicStatus, type PanicDeps } from '../panic/panic.ts';
import { environmentOfKey } from '../setup/settings.ts';
import { readCoverage } from './coverage.ts';
import type { SyncLoop } from './sync.ts';
import { unsentPeerPanics } from '../peers/store.ts';

/**
 * The status every screen polls each second: what the link knows (set up, online, last contact,
 * the sync's progress and problem, the coverage), with the counts of the other rooms (the
 * outbox's queue and attention list, the SOS under way, the codes cached). Reads only.
 */
export function statusHandlers(
  ctx: PanicDeps & Pick<CoreContext, 'guard'>,
  sync: Pick<SyncLoop, 'lastSyncAt' | 'nextAttemptAt' | 'syncing' | 'cachedCodes'>,
  nudge: () => void,
): Pick<KioskHandlers, 'kioskStatus'> {
  const { db, link } = ctx;
  return {
    kioskStatus: async (): Promise<KioskStatus> => {
      nudge();
      return {
        configured: link.settings !== undefined,
        online: link.net.online === true,
        entryPoint: link.settings?.entryPoint ?? null,
        guard: ctx.guard(),
        pendingOperations: countPendingOperations(db),
        lastSyncAt: sync.lastSyncAt,
        lastContactAt: link.net.lastContactAt,
        nextAttemptAt: sync.nextAttemptAt,
        syncing: sync.syncing,
        problem: link.net.problem,
        cachedCodes: sync.cachedCodes,
        attentionCount: countOpenAttention(db),
        attention: openAttention(db, 50),
        activePanic: activePanicStatus(ctx),
        alarmPhones: alarmPhonesOf(ctx, link.settings),
        untextedPhones: untextedPhonesOf(ctx),
        environment: link.settings ? (environmentOfKey(link.settings.apiKey) ?? null) : null,
        coverage: readCoverage(db, link.settings),
        peers: {
          gates: ctx.peers.connected().map((gate) => ({ kioskId: gate.kioskId, ready: gate.ready })),
          unsentSos: unsentPeerPanics(db, ctx.kioskId).map((sos) => ({ gate: sos.gate, pressedAt: sos.pressedAt })),
        },
      };
    },
  };
}
