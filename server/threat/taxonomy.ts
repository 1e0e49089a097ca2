/**
 * One taxonomy for every source (the list is in shared/, for the API schemas). Public conflict
 * data says who fought whom; partners ask "what kind of danger": these are the kinds.
 */
import { THREAT_TYPES } from '../../shared/schemas/threat.ts';
export { THREAT_TYPES } from '../../shared/schemas/threat.ts';
export type ThreatType = (typeof THREAT_TYPES)[number];

export const isThreatType = (value: string): value is ThreatType => (THREAT_TYPES as readonly string[]).includes(value);

export const THREAT_SOURCES = ['public', 'community', 'verified'] as const;
export type ThreatSource = (typeof THREAT_SOURCES)[number];

/** Weight of an event in the scores, by source (a community report's is multiplied by its confidence). */
export const SOURCE_WEIGHT: Record<ThreatSource, number> = { public: 1, verified: 1, community: 0.5 };

/** Types where even an event without deaths was an attack on people. */
const VIOLENT_TYPES = new Set<ThreatType>(['armed_conflict', 'violence_against_civilians', 'kidnapping', 'armed_robbery']);

/**
 * Severity 1-10 from deaths, on a log scale so one massacre does not drown a region's history:
 * 0 deaths → 2 for violent types (armed conflict, violence against civilians, kidnapping, armed
 * robbery), 1 otherwise; then +2.5 per tenfold deaths, capped at 10.
 * 0 → 1-2, 1 → 3-4, 10 → 5-6, 100 → 7-8, 1,000+ → 10.
 */
export function severityFromDeaths(deaths: number, type: ThreatType): number {
  const base = VIOLENT_TYPES.has(type) ? 2 : 1;
  const value = base + 2.5 * Math.log10(1 + Math.max(0, deaths));
  return Math.max(1, Math.min(10, Math.round(value)));
}

/**
 * How much an event's point can be trusted, by UCDP's `where_prec` scale (other sources are
 * mapped onto it): 1 exact place, 2 within ~25 km, 3 district (LGA), 4 state, 5 linear or
 * area feature, 6 country, 7 international waters. From 4 on the point is "somewhere in
 * this area": it still says the area is violent, but much less about this street.
 */
export function precisionWeight(precision: number): number {
  if (precision <= 1) return 1;
  if (precision === 2) return 0.8;
  if (precision === 3) return 0.5;
  if (precision <= 5) return 0.2;
  return 0;
}
