/** Points along the great circle between two places. */

import { EARTH_RADIUS_KM, greatCircleKm } from '../geo.ts';

const rad = Math.PI / 180;

export interface LatLng {
  lat: number;
  lng: number;
}

/** `count` points evenly spaced along the great circle from `from` to `to`, both ends included. */
export function greatCirclePoints(from: LatLng, to: LatLng, count: number): LatLng[] {
  const [φ1, λ1, φ2, λ2] = [from.lat * rad, from.lng * rad, to.lat * rad, to.lng * rad];
  const δ = greatCircleKm(from.lat, from.lng, to.lat, to.lng) / EARTH_RADIUS_KM;
  return Array.from({ length: count }, (_, i) => {
    const f = count === 1 ? 0 : i / (count - 1);
    if (i === 0) return { ...from };
    if (i === count - 1) return { ...to };
    if (δ < 1e-12) return { ...from };
    const a = Math.sin((1 - f) * δ) / Math.sin(δ);
    const b = Math.sin(f * δ) / Math.sin(δ);
    const x = a * Math.cos(φ1) * Math.cos(λ1) + b * Math.cos(φ2) * Math.cos(λ2);
    const y = a * Math.cos(φ1) * Math.sin(λ1) + b * Math.cos(φ2) * Math.sin(λ2);
    const z = a * Math.sin(φ1) + b * Math.sin(φ2);
    return { lat: Math.atan2(z, Math.hypot(x, y)) / rad, lng: Math.atan2(y, x) / rad };
  });
}
