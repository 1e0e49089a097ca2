import type { AreaShape } from '../../shared/schemas/duty.ts';
import { EARTH_RADIUS_KM, greatCircleKm, type Point } from '../geo.ts';

/**
 * Where a responder stands against an area a network admin drew (issue #47): inside, or how far
 * outside. Pure. A circle is measured on the sphere; a polygon (at most 100 km across) on a flat
 * projection centred on the point, which is within metres of the sphere at that size.
 */

/** A phone's fix is off by tens of metres: this close outside the edge still counts as inside. */
export const AREA_EDGE_ALLOWANCE_M = 100;

const RAD = Math.PI / 180;
const METRES_PER_DEGREE = EARTH_RADIUS_KM * 1000 * RAD;

/** Metres from the point to the area: 0 inside or on the edge, otherwise the distance to the nearest edge. */
export function metresOutside(shape: AreaShape, point: Point): number {
  if (shape.type === 'Circle') {
    const metres = greatCircleKm(point.latitude, point.longitude, shape.center[1], shape.center[0]) * 1000;
    return Math.max(0, metres - shape.radius_m);
  }
  // Each corner in metres east (x) and north (y) of the point: the point is the origin.
  const cos = Math.cos(point.latitude * RAD);
  const ring = shape.coordinates[0].map(([longitude, latitude]) => [(longitude - point.longitude) * cos * METRES_PER_DEGREE, (latitude - point.latitude) * METRES_PER_DEGREE] as const);
  let inside = false;
  let nearest = Number.POSITIVE_INFINITY;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    // A ray from the origin going east crosses this edge: one more crossing.
    if (yi > 0 !== yj > 0 && 0 < ((xj - xi) * (0 - yi)) / (yj - yi) + xi) inside = !inside;
    nearest = Math.min(nearest, originToSegment(xi, yi, xj, yj));
  }
  return inside ? 0 : nearest;
}

/** Distance from (0, 0) to the segment from (ax, ay) to (bx, by). */
function originToSegment(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/**
 * A function that never answers more than `metresOutside` would: a polygon's distance from its
 * box (on the same flat projection, so a true lower bound); a circle, cheap already, is measured.
 */
function lowerBound(shape: AreaShape): (latitude: number, longitude: number) => number {
  if (shape.type === 'Circle') return (latitude, longitude) => metresOutside(shape, { latitude, longitude });
  const ring = shape.coordinates[0];
  const minLng = Math.min(...ring.map((p) => p[0]));
  const maxLng = Math.max(...ring.map((p) => p[0]));
  const minLat = Math.min(...ring.map((p) => p[1]));
  const maxLat = Math.max(...ring.map((p) => p[1]));
  return (latitude, longitude) => {
    const dx = Math.max(0, minLng - longitude, longitude - maxLng) * Math.cos(latitude * RAD) * METRES_PER_DEGREE;
    const dy = Math.max(0, minLat - latitude, latitude - maxLat) * METRES_PER_DEGREE;
    return Math.hypot(dx, dy);
  };
}

/** Inside the area, allowing for a phone's error at the edge. */
export function covers(shape: AreaShape, point: Point): boolean {
  return metresOutside(shape, point) <= AREA_EDGE_ALLOWANCE_M;
}

/** Where to put the area's label or marker: a circle's centre, a polygon's corners averaged. */
export function areaCentre(shape: AreaShape): Point {
  if (shape.type === 'Circle') return { latitude: shape.center[1], longitude: shape.center[0] };
  const corners = shape.coordinates[0].slice(0, -1);
  const sum = corners.reduce((acc, [longitude, latitude]) => ({ latitude: acc.latitude + latitude, longitude: acc.longitude + longitude }), { latitude: 0, longitude: 0 });
  return { latitude: sum.latitude / corners.length, longitude: sum.longitude / corners.length };
}

/** "350 m", "2.4 km": a distance for people. */
export function distanceWords(metres: number): string {
  return metres < 1000 ? `${Math.round(metres / 10) * 10} m` : `${(metres / 1000).toFixed(1)} km`;
}

export interface PlacedResponder {
  responder_id: string;
  name: string;
  duty_status: string;
  latitude: number | null;
  longitude: number | null;
  /** Available with a fix young enough to rank by (DISPATCH_FIX_MAX_AGE_S). */
  reachable: boolean;
}

export interface AreaGap {
  area_id: string;
  name: string;
  centre: Point;
  /** The nearest reachable responder's distance from the area's edge, km; null: none anywhere. */
  nearest_km: number | null;
  /** Who is on shift there now and where they are, in words. */
  note: string;
}

/**
 * The areas with a shift now and nobody there to send (issue #47): an area counts as covered
 * while any available responder with a fresh fix is inside it (a phone's error allowed), on shift
 * there or not, since dispatch sends the nearest; a responder on shift there who is off duty,
 * busy, out of service, without a fresh fix or outside it does not cover it. Areas with no shift
 * now are planned to be empty and are not listed.
 */
export function areaGaps(areas: Array<{ area_id: string; name: string; shape: AreaShape }>, shiftsNow: Array<{ area_id: string; responder_id: string }>, responders: Map<string, PlacedResponder>): AreaGap[] {
  const reachable = [...responders.values()].filter((r) => r.reachable && r.latitude !== null && r.longitude !== null);
  const gaps: AreaGap[] = [];
  for (const area of areas) {
    const onShift = shiftsNow.filter((shift) => shift.area_id === area.area_id);
    if (!onShift.length) continue;
    let nearest: number | null = null;
    // Nearest first by a cheap bound (the polygon's box), measured exactly only while the bound
    // could still beat the best: a second's read with 1,000 on duty and dozens of areas stays small.
    const bound = lowerBound(area.shape);
    const bounds = reachable.map((r) => bound(r.latitude!, r.longitude!));
    // The likeliest nearest first, so the bound rules most of the others out.
    let first = 0;
    for (let i = 1; i < bounds.length; i++) if (bounds[i]! < bounds[first]!) first = i;
    for (let k = 0; k < reachable.length; k++) {
      const i = k === 0 ? first : k === first ? 0 : k;
      if (nearest !== null && bounds[i]! >= nearest) continue;
      const r = reachable[i]!;
      const metres = metresOutside(area.shape, { latitude: r.latitude!, longitude: r.longitude! });
      if (nearest === null || metres < nearest) nearest = metres;
      // Someone is there: covered, and nobody further need be measured.
      if (nearest <= AREA_EDGE_ALLOWANCE_M) break;
    }
    if (nearest !== null && nearest <= AREA_EDGE_ALLOWANCE_M) continue;
    const whereabouts = [...new Set(onShift.map((shift) => shift.responder_id))].map((id) => {
      const r = responders.get(id);
      if (!r) return null;
      const status = r.duty_status.replace(/_/g, ' ');
      if (r.duty_status !== 'available') return `${r.name} (${status})`;
      if (!r.reachable || r.latitude === null || r.longitude === null) return `${r.name} (available, no fresh fix)`;
      return `${r.name} (available, ${distanceWords(metresOutside(area.shape, { latitude: r.latitude, longitude: r.longitude }))} outside)`;
    });
    const named = whereabouts.filter((words): words is string => words !== null);
    gaps.push({
      area_id: area.area_id,
      name: area.name,
      centre: areaCentre(area.shape),
      nearest_km: nearest === null ? null : Math.round(nearest / 10) / 100,
      note: named.length ? `On shift: ${named.join(', ')}` : 'On shift: nobody in the live network',
    });
  }
  return gaps;
}
