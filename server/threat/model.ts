import { AreaGrid } from './area-grid.ts';
import { dayNumber, type ThreatIndex } from './event-index.ts';
import { THREAT_TYPES, type ThreatType } from './taxonomy.ts';

/**
 * The threat model: one function, `assessArea`, serves the safety score, each route checkpoint,
 * the danger analytics and each danger zone. It is written out in words and formulas in the
 * README ("How the scores are made"); keep the two in step.
 */

/** Recent memory: an event's weight halves every year... */
export const HALF_LIFE_DAYS = 365;
/** ...down to a long memory that a place keeps of its violence for ten years, then forgets. */
export const LONG_MEMORY = 0.1;
export const MEMORY_DAYS = 3650;
/** What happened within the asked radius counts this much... */
export const LOCAL_WEIGHT = 0.5;
/**
 * ...and everything within 50 km counts this much again: a town in the middle of an active
 * conflict area is not safe because its own streets were quiet. Calibrated on the shipped data
 * (README, "How the scores are made").
 */
export const AREA_RADIUS_KM = 50;
export const AREA_WEIGHT = 0.15;

/** How much an event still counts `ageDays` after it happened (1 on the day; 0.55 a year on; 0.1 at ten years; then 0). */
export function ageWeight(ageDays: number): number {
  const age = Math.max(0, ageDays);
  if (age > MEMORY_DAYS) return 0;
  return LONG_MEMORY + (1 - LONG_MEMORY) * 2 ** (-age / HALF_LIFE_DAYS);
}

export type Level = 'safe' | 'moderate' | 'high_risk' | 'critical';
export type Color = 'green' | 'yellow' | 'orange' | 'red';

/** The reference's score table: 70-100 safe, 50-69 moderate, 30-49 high risk, 0-29 critical. */
export function levelOf(score: number): { level: Level; color: Color } {
  if (score >= 70) return { level: 'safe', color: 'green' };
  if (score >= 50) return { level: 'moderate', color: 'yellow' };
  if (score >= 30) return { level: 'high_risk', color: 'orange' };
  return { level: 'critical', color: 'red' };
}

/** Score 0-100 from threat mass: 100 with nothing recorded, 37 at mass 1, falling exponentially. */
export function scoreFromMass(mass: number): number {
  return Math.round(100 * Math.exp(-mass));
}

/** Zone severity 1-10 from its score: each ten points under 100 adds one. */
export function severityFromScore(score: number): number {
  return Math.min(10, Math.max(1, Math.ceil((100 - score) / 10)));
}

export type Trend = 'increasing' | 'decreasing' | 'stable';

/**
 * Events of the last 90 days against the 90 before them: `increasing` when the newer window
 * has at least 2 more and at least a quarter more, `decreasing` in the mirror case, else `stable`.
 */
export function trendOf(last90: number, previous90: number): Trend {
  if (last90 - previous90 >= 2 && last90 >= 1.25 * previous90) return 'increasing';
  if (previous90 - last90 >= 2 && previous90 >= 1.25 * last90) return 'decreasing';
  return 'stable';
}

export interface AreaAssessment {
  score: number;
  level: Level;
  color: Color;
  /** Threat mass per reference area (the sum the score is made from). */
  mass: number;
  totalIncidents: number;
  last7Days: number;
  last30Days: number;
  last90Days: number;
  previous90Days: number;
  trend: Trend;
  /** Types by number of events, most first (ties by name). */
  types: ThreatType[];
  /** Day (YYYY-MM-DD) of the most recent event, or null. */
  lastIncidentDay: number | null;
  /** A bit per THREAT_FEEDS index: the feeds of the events within the radius. */
  feeds: number;
}

/** What one event weighs today: severity × source and precision weight × age weight. */
export function eventMass(index: ThreatIndex, id: number, today: number): number {
  const { day, severity, weight } = index.columns;
  return (severity[id]! / 10) * weight[id]! * ageWeight(today - day[id]!);
}

/** Every event's mass on `today`, worked out once per snapshot and day (8 bytes an event). */
export function massesOn(index: ThreatIndex, today: number): Float64Array {
  return index.memo(today, 'masses', () => {
    const masses = new Float64Array(index.size);
    for (let id = 0; id < index.size; id++) masses[id] = eventMass(index, id, today);
    return masses;
  });
}

/** The day's area grid of a snapshot (built once per snapshot and day). */
export function areaGridOf(index: ThreatIndex, today: number): AreaGrid {
  return index.memo(today, 'area-grid', () => {
    const masses = massesOn(index, today);
    return AreaGrid.build(index, (id) => masses[id]!);
  });
}

/**
 * Everything known about the circle of `radiusKm` around a point, as of `now`:
 *
 *   mass(e) = severity(e)/10 × weight(e) × ageWeight(today − day(e))
 *             where weight = source weight (1 public and verified, 0.5 × confidence community)
 *                            × location-precision weight (1, 0.8, 0.5, 0.2, 0.2, 0 by UCDP code)
 *   M       = 0.5 × Σ mass(e) within radiusKm  +  0.15 × Σ mass(cell) within max(50 km, radiusKm)
 *   score   = round(100 × e^(−M))
 *
 * The area term sums the day's 0.05° cells (area-grid.ts) whose centre of mass is in reach.
 * Counts (7, 30, 90 days, total) and types count every event within radiusKm, whatever its weight.
 */
export function assessArea(index: ThreatIndex, latitude: number, longitude: number, radiusKm: number, now: Date): AreaAssessment {
  const today = dayNumber(now);
  const { day, type, feed } = index.columns;
  let feeds = 0;
  let local = 0;
  let totalIncidents = 0;
  let last7Days = 0;
  let last30Days = 0;
  let last90Days = 0;
  let previous90Days = 0;
  let lastIncidentDay: number | null = null;
  const typeCounts = new Array<number>(THREAT_TYPES.length).fill(0);
  const masses = massesOn(index, today);
  index.forEachWithin(latitude, longitude, radiusKm, (id) => {
    local += masses[id]!;
    totalIncidents++;
    const age = today - day[id]!;
    if (age < 7) last7Days++;
    if (age < 30) last30Days++;
    if (age < 90) last90Days++;
    else if (age < 180) previous90Days++;
    typeCounts[type[id]!]!++;
    feeds |= 1 << feed[id]!;
    if (lastIncidentDay === null || day[id]! > lastIncidentDay) lastIncidentDay = day[id]!;
  });
  const area = areaGridOf(index, today).massWithin(latitude, longitude, Math.max(AREA_RADIUS_KM, radiusKm));
  // Rounded so that the same events summed in another order give the same score.
  const mass = Math.round((LOCAL_WEIGHT * local + AREA_WEIGHT * area) * 1e6) / 1e6;
  const score = scoreFromMass(mass);
  const types = THREAT_TYPES.map((name, i) => ({ name, n: typeCounts[i]! }))
    .filter((t) => t.n > 0)
    .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name))
    .map((t) => t.name);
  return {
    score,
    ...levelOf(score),
    mass,
    totalIncidents,
    last7Days,
    last30Days,
    last90Days,
    previous90Days,
    trend: trendOf(last90Days, previous90Days),
    types,
    lastIncidentDay,
    feeds,
  };
}
