import { distanceKm, type Point } from '../geo.ts';

export { boundingBox, distanceKm, type Point } from '../geo.ts';

export interface Candidate extends Point {
  responderId: string;
}

export interface Choice {
  responderId: string;
  distanceKm: number;
}

/**
 * The `count` candidates nearest to `incident` within `radiusKm`, nearest first; ties broken by
 * id so the same data always gives the same choice. Pure: the dispatch engine feeds it the
 * available responders of the incident's environment.
 */
export function chooseNearestResponders(candidates: readonly Candidate[], incident: Point, radiusKm: number, count: number): Choice[] {
  const within: Choice[] = [];
  for (const candidate of candidates) {
    const d = distanceKm(incident, candidate);
    if (d <= radiusKm) within.push({ responderId: candidate.responderId, distanceKm: d });
  }
  within.sort((a, b) => a.distanceKm - b.distanceKm || (a.responderId < b.responderId ? -1 : a.responderId > b.responderId ? 1 : 0));
  return within.slice(0, count);
}

/** DISPATCH_FIX_MAX_AGE_S's default: a position older than five minutes is not a fix to rank by. */
export const DEFAULT_FIX_MAX_AGE_S = 300;

/**
 * Whether a responder's position is fresh enough to rank by (issue #47): a phone's fix ages, and
 * one older than `maxAgeS` is never used; the position typed at `add` counts as a fix at that
 * moment. A responder with no fresh fix is left out of automatic offers until the phone reports.
 */
export function freshFix(locationAt: string | null | undefined, nowMs: number, maxAgeS: number): boolean {
  return Boolean(locationAt) && nowMs - Date.parse(locationAt!) <= maxAgeS * 1000;
}

/** Minutes to cover `km` at a city driving speed (25 km/h), at least one. */
export function etaMinutes(km: number, speedKmh = 25): number {
  return Math.max(1, Math.round((km / speedKmh) * 60));
}
