import type { Duty, DutyStatus } from '../../shared/schemas/duty.ts';
import type { DutyResponderRow, InHandRow } from './store.ts';

/**
 * A responder's status and since when (issue #47), worked out from what the network records:
 * out of service (with its reason) first, then the incident in their hands (`on_scene` since
 * arriving; `en_route` from accepting until arriving), an offer open to them (since the oldest),
 * then on duty (`available`) or not (`off_duty`), since they last went on or off duty. Pure.
 */
export function dutyOf(responder: DutyResponderRow, inHand: InHandRow | undefined, offeredSince: string | undefined): Duty {
  const at = (status: DutyStatus, since: string | null | undefined, reason: string | null = null): Duty => ({ duty_status: status, status_since: since ?? null, out_of_service_reason: reason });
  if (responder.out_of_service_reason) return at('out_of_service', responder.out_of_service_at, responder.out_of_service_reason);
  if (inHand?.status === 'on_scene') return at('on_scene', inHand.on_scene_at ?? inHand.assigned_at);
  if (inHand) return at('en_route', inHand.assigned_at);
  if (offeredSince) return at('offered', offeredSince);
  return at(Number(responder.available) === 1 ? 'available' : 'off_duty', responder.duty_since ?? responder.created_at);
}

/** The hour (0 to 23) at `date` in `timeZone`. */
export function hourIn(date: Date, timeZone: string): number {
  return Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(date)) % 24;
}

/** Whether a shift from `start` to `end` (an end before the start: overnight) covers `hour`. */
export function shiftCovers(shift: { start_hour: number; end_hour: number }, hour: number): boolean {
  const start = Number(shift.start_hour);
  const end = Number(shift.end_hour);
  return start < end ? hour >= start && hour < end : hour >= start || hour < end;
}

/** "35 min", "2 h 5 min": an age for people. */
export function ageWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}
