import { REPLAY_WINDOW_MS } from '../../shared/kiosk/gate-operations.ts';
import { DAY_MS } from '../../shared/time.ts';
import type { Clock } from '../clock.ts';
import { badRequest } from '../http/errors.ts';
/** Kiosk clocks drift; a minute ahead of the server is still "now". */
const CLOCK_SKEW_MS = 60_000;

/** When something happened: now, or the time an offline kiosk says, if within the replay window (shared/kiosk/gate-operations.ts). */
export function happenedAt(clock: Clock, claimed: string | undefined, field: string): Date {
  const now = clock.now();
  if (claimed === undefined) return now;
  const at = new Date(claimed);
  if (at.getTime() > now.getTime() + CLOCK_SKEW_MS) throw badRequest(`${field}: must not be in the future`);
  if (at.getTime() < now.getTime() - REPLAY_WINDOW_MS) throw badRequest(`${field}: must be at most ${REPLAY_WINDOW_MS / DAY_MS} days old`);
  return at.getTime() > now.getTime() ? now : at;
}
