/** Mean Earth radius (km), as in the haversine formula's usual statement. */
const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: Point, b: Point): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLng = (b.longitude - a.longitude) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A latitude/longitude box that contains every point within `radiusKm` of `center` (for a SQL prefilter). */
export function boundingBox(center: Point, radiusKm: number): { minLat: number; maxLat: number; minLng: number; maxLng: number } {
  const dLat = radiusKm / (EARTH_RADIUS_KM * RAD);
  const cos = Math.cos(center.latitude * RAD);
  const dLng = cos < 1e-9 ? 180 : Math.min(180, radiusKm / (EARTH_RADIUS_KM * RAD * cos));
  return {
    minLat: Math.max(-90, center.latitude - dLat),
    maxLat: Math.min(90, center.latitude + dLat),
    minLng: center.longitude - dLng,
    maxLng: center.longitude + dLng,
  };
}

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
