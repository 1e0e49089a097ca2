import { createHash } from 'node:crypto';
import { dayNumber, dayText, type ThreatIndex } from './event-index.ts';
import { assessArea, massesOn, severityFromScore, type Level } from './model.ts';
import { greatCircleKm } from '../geo.ts';
import { THREAT_TYPES, type ThreatType } from './taxonomy.ts';

/** Events within this distance of a zone's first event join it. */
export const ZONE_RADIUS_KM = 5;
/** Fewer events than this are incidents, not a zone. */
export const MIN_ZONE_EVENTS = 3;

export interface DangerZone {
  zone_id: string;
  name: string;
  center: { latitude: number; longitude: number };
  radius_km: number;
  severity: number;
  level: Level;
  incident_count: number;
  incident_types: ThreatType[];
  last_incident_at: string;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * Danger zones: clusters of the events the model still remembers (ten years), placed precisely
 * enough to draw (location precision 1-3). Greedy and deterministic: the heaviest unclustered
 * event gathers every unclustered event within 5 km; three or more make a cluster. The zone's
 * level and severity come from the one scoring function at its centre and radius; a cluster
 * that scores `safe` there is not listed. Its name is the place most of its events name.
 */
export async function computeDangerZones(index: ThreatIndex, now: Date, pause: () => Promise<void> = yieldToEventLoop): Promise<DangerZone[]> {
  const today = dayNumber(now);
  const { latitude, longitude, day, precision, type } = index.columns;
  const mass = massesOn(index, today);
  const candidates: number[] = [];
  // Remembered (an event over ten years old weighs nothing) and placed precisely enough to draw.
  for (let id = 0; id < index.size; id++) if (precision[id]! <= 3 && mass[id]! > 0) candidates.push(id);
  // Heaviest first; ties by position, so the order does not depend on load order.
  candidates.sort((a, b) => mass[b]! - mass[a]! || latitude[a]! - latitude[b]! || longitude[a]! - longitude[b]!);
  const taken = new Uint8Array(index.size);
  const eligible = new Uint8Array(index.size);
  for (const id of candidates) eligible[id] = 1;
  const zones: DangerZone[] = [];
  let since = performance.now();
  for (const seed of candidates) {
    if (taken[seed]) continue;
    // A million events take seconds: let requests through every 20 ms.
    if (performance.now() - since > 20) {
      await pause();
      since = performance.now();
    }
    const members: number[] = [];
    index.forEachWithin(latitude[seed]!, longitude[seed]!, ZONE_RADIUS_KM, (id) => {
      if (eligible[id] && !taken[id]) members.push(id);
    });
    if (members.length < MIN_ZONE_EVENTS) continue;
    let total = 0;
    let lat = 0;
    let lng = 0;
    for (const id of members) {
      taken[id] = 1;
      total += mass[id]!;
      lat += latitude[id]! * mass[id]!;
      lng += longitude[id]! * mass[id]!;
    }
    const center = { latitude: round(lat / total, 5), longitude: round(lng / total, 5) };
    let farthest = 0;
    for (const id of members) farthest = Math.max(farthest, greatCircleKm(center.latitude, center.longitude, latitude[id]!, longitude[id]!));
    const radiusKm = Math.max(1, Math.ceil(farthest * 10) / 10);
    const assessment = assessArea(index, center.latitude, center.longitude, radiusKm, now);
    if (assessment.level === 'safe') continue;
    zones.push({
      zone_id: zoneId(latitude[seed]!, longitude[seed]!),
      name: zoneName(index, members, center),
      center,
      radius_km: radiusKm,
      severity: severityFromScore(assessment.score),
      level: assessment.level,
      incident_count: members.length,
      incident_types: typesByCount(members.map((id) => type[id]!)),
      last_incident_at: `${dayText(latestDay(members, day))}T00:00:00.000Z`,
    });
  }
  return zones.sort((a, b) => b.severity - a.severity || b.incident_count - a.incident_count || a.zone_id.localeCompare(b.zone_id));
}

/** The latest day among the members: a loop, since a spread of 130,000 arguments overflows the stack. */
function latestDay(members: readonly number[], day: Int32Array): number {
  let latest = -Infinity;
  for (const id of members) if (day[id]! > latest) latest = day[id]!;
  return latest;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Stable for the same first event: `zone_` and 16 hex characters of its rounded position. */
function zoneId(lat: number, lng: number): string {
  return `zone_${createHash('sha256').update(`${lat.toFixed(4)},${lng.toFixed(4)}`).digest('hex').slice(0, 16)}`;
}

function zoneName(index: ThreatIndex, members: number[], center: { latitude: number; longitude: number }): string {
  const counts = new Map<string, number>();
  for (const id of members) {
    const place = index.placeOf(id);
    if (place) counts.set(place, (counts.get(place) ?? 0) + 1);
  }
  const best = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  return best ? best[0] : `Area near ${center.latitude.toFixed(2)}, ${center.longitude.toFixed(2)}`;
}

function typesByCount(types: number[]): ThreatType[] {
  const counts = new Array<number>(THREAT_TYPES.length).fill(0);
  for (const t of types) counts[t]!++;
  return THREAT_TYPES.map((name, i) => ({ name, n: counts[i]! }))
    .filter((t) => t.n > 0)
    .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name))
    .map((t) => t.name);
}
