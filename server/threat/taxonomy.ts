/**
 * One taxonomy for every source (the list is in shared/, for the API schemas). Public conflict
 * data says who fought whom; partners ask "what kind of danger": these are the kinds.
 */
import { type THREAT_FEEDS, THREAT_TYPES } from '../../shared/schemas/threat.ts';
export { THREAT_TYPES } from '../../shared/schemas/threat.ts';
export type ThreatType = (typeof THREAT_TYPES)[number];

export const isThreatType = (value: string): value is ThreatType => (THREAT_TYPES as readonly string[]).includes(value);

export const THREAT_SOURCES = ['public', 'community', 'verified'] as const;
export type ThreatSource = (typeof THREAT_SOURCES)[number];

/** Weight of an event in the scores, by source (a community report's is multiplied by its confidence). */
export const SOURCE_WEIGHT: Record<ThreatSource, number> = { public: 1, verified: 1, community: 0.5 };

/**
 * Provisional public data counts less than a final release: a UCDP Candidate event (monthly,
 * revised or dropped before the yearly GED release) weighs half a GED event, and one the source
 * itself flags for checking (`code_status` "Check ...") a quarter.
 */
export const PROVISIONAL_WEIGHT = 0.5;
export const CHECK_FLAGGED_WEIGHT = 0.25;

/**
 * Where an event came from, as an answer's `data.sources` names it: finer than `source`, so a
 * partner sees whether final or provisional data is behind an answer.
 */
export { THREAT_FEEDS } from '../../shared/schemas/threat.ts';
export type ThreatFeed = (typeof THREAT_FEEDS)[number];

export const isCandidateDataset = (dataset: string | null | undefined) => /candidate/i.test(dataset ?? '');

/** The feed of a stored event, from its source, id and dataset. */
export function feedOf(source: string, eventId: string, dataset: string | null | undefined): ThreatFeed {
  if (source === 'verified') return 'verified';
  if (source === 'community') return 'community';
  if (eventId.startsWith('acled:')) return 'acled';
  return isCandidateDataset(dataset) ? 'ucdp-candidate' : 'ucdp-ged';
}

/**
 * The UCDP release a dataset label names, as numbers to compare: `UCDP GED 25.1 via HDX` →
 * [25, 1], `UCDP Candidate Events 26.0.2 (...)` → [26, 0, 2] (a preview of GED 26.1, which is
 * newer), `... release to 2021 (22.1) ...` → [22, 1]. Null when it names none.
 */
export function ucdpRelease(dataset: string | null | undefined): number[] | null {
  const match = /(?:^|[\s(])(\d{2})\.(\d{1,2})(?:\.(\d{1,2}))?(?=$|[\s),])/.exec(dataset ?? '');
  if (!match) return null;
  return match.slice(1).filter((part) => part !== undefined).map(Number);
}

/** True when release `a` is strictly newer than `b` (an unnamed release is the oldest). */
export function isNewerRelease(a: number[] | null, b: number[] | null): boolean {
  if (!a) return false;
  if (!b) return true;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x !== y) return x > y;
  }
  return false;
}

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
