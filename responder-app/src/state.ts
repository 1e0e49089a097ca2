import type { Offer, Responder, ResponderIncident } from './api.ts';

export interface Position {
  latitude: number;
  longitude: number;
  accuracy: number;
  /** When the phone took the fix (ms since epoch). */
  at: number;
}

/** How far the responder has taken the incident on this phone; the server catches up through the outbox. */
export type Step = 'accepting' | 'assigned' | 'responding' | 'on_scene' | 'resolved';

export interface Work {
  offerId: string;
  incident: ResponderIncident;
  step: Step;
  etaMinutes: number | null;
  /** Set when the server has answered the accept: the incident is this responder's. */
  confirmed: boolean;
}

export interface Notice {
  kind: 'taken' | 'cancelled' | 'stood-down' | 'resolved' | 'refused' | 'signed-out';
  title: string;
  text: string;
}

export interface Sent {
  label: string;
  at: string;
}

/** Everything the app shows, kept in localStorage so a reload opens exactly where it was. */
export interface AppState {
  token: string | null;
  responder: Responder | null;
  onDuty: boolean;
  offer: Offer | null;
  /** Offers this phone declined or saw taken: not shown again. */
  dismissed: string[];
  work: Work | null;
  notice: Notice | null;
  sent: Sent[];
  /**
   * The last heartbeat queued: availability, position, and when; `heard` once the server has
   * answered a beat of this availability (a newer position still on its way keeps it, a change
   * of availability clears it). Missing in state saved by an older app: taken as heard.
   */
  lastBeat: { available: boolean; latitude: number; longitude: number; at: number; heard?: boolean } | null;
}

const KEY = 'tsaro-responder-state';

export const EMPTY: AppState = { token: null, responder: null, onDuty: false, offer: null, dismissed: [], work: null, notice: null, sent: [], lastBeat: null };

export function loadState(): AppState {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? { ...EMPTY, ...(JSON.parse(raw) as Partial<AppState>) } : EMPTY;
  } catch {
    return EMPTY;
  }
}

export function saveState(state: AppState): void {
  localStorage.setItem(KEY, JSON.stringify(state));
}

/** What the phone knows of its own position. */
export interface LocationState {
  position: Position | null;
  /** Why there is no fresh position, in plain words; null when all is well. */
  problem: 'denied' | 'unavailable' | 'unsupported' | null;
}

/** Great-circle distance in metres. */
export function metresBetween(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLng = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

/** Initial bearing from a to b in degrees, 0 = north. */
export function bearingDegrees(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const y = Math.sin((b.longitude - a.longitude) * rad) * Math.cos(b.latitude * rad);
  const x = Math.cos(a.latitude * rad) * Math.sin(b.latitude * rad) - Math.sin(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.cos((b.longitude - a.longitude) * rad);
  return ((Math.atan2(y, x) / rad) + 360) % 360;
}

export function compassPoint(degrees: number): string {
  return ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'][Math.round(degrees / 45) % 8]!;
}
