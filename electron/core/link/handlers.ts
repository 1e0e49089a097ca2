import type { KioskHandlers } from '../../../shared/kiosk/calls.ts';
import type { SyncLoop } from './sync.ts';

/** The link's part of the gate's handler map: a sync on the guard's demand. */
export function linkHandlers(sync: SyncLoop): Pick<KioskHandlers, 'syncNow'> {
  return {
    syncNow: async () => sync.syncNow(),
  };
}
