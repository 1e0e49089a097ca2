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

/** Minutes to cover `km` at a city driving speed (25 km/h), at least one. */
export function etaMinutes(km: number, speedKmh = 25): number {
  return Math.max(1, Math.round((km / speedKmh) * 60));
}
