/**
 * Geometry on the sphere, one definition for the whole server: dispatch distances, threat
 * radius queries, route checkpoints and zones. The radius is the IUGG mean radius, the sphere
 * PostGIS uses for geography with `use_spheroid => false`, so radius counts agree with it.
 */
export const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

/** Great-circle distance in kilometres (haversine), from plain numbers (no object on hot paths). */
export function greatCircleKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Great-circle distance in kilometres between two points. */
export function distanceKm(a: Point, b: Point): number {
  return greatCircleKm(a.latitude, a.longitude, b.latitude, b.longitude);
}

/**
 * A latitude/longitude box that holds every point within `radiusKm` of `center`, with 0.1% to
 * spare for rounding. The longitude half-width is taken at the circle's highest latitude, where
 * a degree of longitude is shortest (taken at the centre, a box misses a sliver east and west).
 */
export function boundingBox(center: Point, radiusKm: number): { minLat: number; maxLat: number; minLng: number; maxLng: number } {
  const dLat = (radiusKm / (EARTH_RADIUS_KM * RAD)) * 1.001;
  const cos = Math.cos(Math.min(90, Math.abs(center.latitude) + dLat) * RAD);
  const dLng = cos < 1e-9 ? 180 : Math.min(180, (radiusKm / (EARTH_RADIUS_KM * RAD * cos)) * 1.001);
  return {
    minLat: Math.max(-90, center.latitude - dLat),
    maxLat: Math.min(90, center.latitude + dLat),
    minLng: center.longitude - dLng,
    maxLng: center.longitude + dLng,
  };
}
