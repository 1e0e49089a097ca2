import { metresBetween, type AppState, type LocationState } from './state.ts';

/** A heartbeat goes out at least this often while on duty... */
export const BEAT_EVERY_MS = 60_000;
/** ...and whenever the phone has moved this far since the last one. */
export const BEAT_MOVED_M = 100;
/** A fix older than this is shown as stale. */
export const STALE_AFTER_MS = 120_000;

type Point = { latitude: number; longitude: number };

/**
 * Whether the phone owes the server a heartbeat now: none sent yet, availability changed (on or
 * off duty, busy with an incident or free again), or, while available or working an incident
 * (`working`: the control room follows the responder's position and ETA, the server's
 * `incident.responder_location`), with a fix, a minute gone or 100 m moved since the last one.
 * Off duty or without a fix, only a change of availability counts.
 */
export function beatDue(last: AppState['lastBeat'], available: boolean, position: Point | null, now: number, working = false): boolean {
  if (!last || last.available !== available) return true;
  if ((!available && !working) || !position) return false;
  return metresBetween(last, position) > BEAT_MOVED_M || now - last.at > BEAT_EVERY_MS;
}

/** The duty screen's line about the phone's location, and whether it is a problem to fix; `heard`: the server has answered the phone's latest beat of this availability. */
export function locationLine(onDuty: boolean, location: LocationState, now: number, heard = true): { text: string; problem: boolean } {
  if (!onDuty) return { text: 'Off duty: you are not offered incidents and your location is not sent.', problem: false };
  if (location.problem === 'denied')
    return { text: 'Location is denied. Allow location for this site in the browser settings: until then, once your last fix is 5 minutes old, you are not offered incidents.', problem: true };
  if (location.problem === 'unsupported') return { text: 'This browser cannot share your location: once your last known place is 5 minutes old, you are not offered incidents.', problem: true };
  if (!location.position) return { text: location.problem ? 'No location fix yet: move to open sky.' : 'Finding your location…', problem: Boolean(location.problem) };
  const age = now - location.position.at;
  if (age > STALE_AFTER_MS) return { text: `Location is stale: last fix ${Math.round(age / 60_000)} min ago.`, problem: true };
  // Only once the server has answered the beat: until then nobody can offer this phone an incident.
  if (!heard) return { text: 'Sending your location… you are offered incidents once it is through.', problem: false };
  return { text: `Location sent (±${Math.round(location.position.accuracy)} m).`, problem: false };
}

/** Whether the server has heard the phone's current availability (on duty and free, or not): its last beat is of it and was answered. */
export function beatHeard(state: Pick<AppState, 'lastBeat' | 'onDuty' | 'work'>): boolean {
  const beat = state.lastBeat;
  return Boolean(beat && beat.available === (state.onDuty && !state.work) && beat.heard !== false);
}
