/**
 * One taxonomy for every source. Public conflict data says who fought whom; partners ask
 * "what kind of danger": these are the kinds.
 */
export const THREAT_TYPES = [
  'armed_conflict',
  'communal_violence',
  'violence_against_civilians',
  'kidnapping',
  'armed_robbery',
  'protest_or_riot',
  'crime',
  'road_incident',
  'medical',
  'other',
] as const;
export type ThreatType = (typeof THREAT_TYPES)[number];

export type ThreatSource = 'public' | 'community' | 'verified';

/** Weight of an event in the scores, by source (community reports also carry their own confidence). */
export const SOURCE_WEIGHT: Record<ThreatSource, number> = { public: 1, verified: 1, community: 0.5 };

/**
 * Severity 1-10 from deaths, on a log scale so one massacre does not drown a region's history:
 * 0 deaths → 2 for violence against civilians or armed conflict (organized lethal violence
 * was recorded), 1 otherwise; then +2.5 per tenfold deaths, capped at 10.
 * 0 → 1-2, 1 → 3-4, 10 → 5-6, 100 → 7-8, 1,000+ → 10.
 */
export function severityFromDeaths(deaths: number, type: ThreatType): number {
  const base = type === 'armed_conflict' || type === 'violence_against_civilians' ? 2 : 1;
  const value = base + 2.5 * Math.log10(1 + Math.max(0, deaths));
  return Math.max(1, Math.min(10, Math.round(value)));
}
