import type { KioskHandlers } from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import { dismissAttention } from './store.ts';

/** The outbox's part of the gate's handler map: the guard dismisses what needed attention. */
export function outboxHandlers(deps: Pick<CoreContext, 'db' | 'nowIso'>): Pick<KioskHandlers, 'dismissAttention'> {
  return {
    dismissAttention: async (input) => ({ dismissed: dismissAttention(deps.db, input.attentionId, deps.nowIso()) }),
  };
}
