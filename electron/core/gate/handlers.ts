import type { Guard, KioskHandlers } from '../../../shared/kiosk/calls.ts';
import { writeJsonSetting } from '../settings-store.ts';
import { recentDecisions } from './decisions-store.ts';
import { scan, type ScanDeps } from './scan.ts';
import { checkout, onPremises, walkIn, type VisitDeps } from './visit.ts';

/**
 * The gate's part of the handler map: the guard's shift, scans, walk-ins, check-outs and who is
 * inside. `nudge`: a guard at the screen is a reason to look at a link that was down.
 */
export function gateHandlers(ctx: ScanDeps & VisitDeps, nudge: () => void): Pick<KioskHandlers, 'startShift' | 'scan' | 'walkIn' | 'onPremises' | 'checkout' | 'recentScans'> {
  return {
    startShift: async (input) => {
      const guard: Guard = { name: input.guardName, phone: input.guardPhone ?? null, since: ctx.nowIso() };
      writeJsonSetting(ctx.db, 'guard', guard);
      return guard;
    },
    scan: async (input) => {
      nudge();
      return scan(ctx, input);
    },
    walkIn: async (input) => {
      nudge();
      return walkIn(ctx, input);
    },
    onPremises: async (input) => onPremises(ctx, input),
    checkout: async (input) => {
      nudge();
      return checkout(ctx, input);
    },
    recentScans: async (input) => recentDecisions(ctx.db, input.limit),
  };
}
