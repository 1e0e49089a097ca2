import { CHECK_FLAGGED_WEIGHT, isCandidateDataset, PROVISIONAL_WEIGHT, SOURCE_WEIGHT, severityFromDeaths, type ThreatType } from '../taxonomy.ts';
import type { NewThreatEvent } from '../store.ts';
import { blank, calendarDay, deathsField, numberField, precisionField, validPoint } from './fields.ts';

const UCDP_TYPES: Record<string, ThreatType> = {
  '1': 'armed_conflict',
  '2': 'communal_violence',
  '3': 'violence_against_civilians',
};

export const UCDP_REQUIRED_COLUMNS = ['id', 'date', 'latitude', 'longitude', 'violence_code'];

/**
 * What a UCDP row weighs: 1 for GED; 0.5 for a Candidate event (provisional: revised or dropped
 * before the GED release); 0.25 when the source flags it for checking (a `code_status` or
 * `check_status` column saying "Check ...", as UCDP's own Candidate files carry).
 */
export function ucdpWeight(row: Record<string, string>): number {
  const status = blank(row.code_status) ?? blank(row.check_status);
  if (status && /^check/i.test(status)) return SOURCE_WEIGHT.public * CHECK_FLAGGED_WEIGHT;
  return isCandidateDataset(row.source_dataset) ? SOURCE_WEIGHT.public * PROVISIONAL_WEIGHT : SOURCE_WEIGHT.public;
}

/** A UCDP GED or Candidate row (the columns of threat-data/ucdp/README.md) as a normalized event; null when unusable. */
export function ucdpRow(row: Record<string, string>, importedAt: string): NewThreatEvent | null {
  const latitude = numberField(row.latitude);
  const longitude = numberField(row.longitude);
  const type = UCDP_TYPES[row.violence_code?.trim() ?? ''];
  // The day exactly as written and real (2024-02-30 is refused, not moved to March).
  const day = /^\d{4}-\d{2}-\d{2}$/.test(row.date?.trim() ?? '') ? calendarDay(row.date) : null;
  const deaths = deathsField(row.deaths_best);
  if (!row.id?.trim() || day !== row.date?.trim() || !validPoint(latitude, longitude) || !type || deaths === null) return null;
  return {
    event_id: `ucdp:${row.id.trim()}`,
    source: 'public',
    dataset: blank(row.source_dataset) ?? 'UCDP GED',
    occurred_on: day,
    latitude,
    longitude,
    // The supplement's sampled rows have no precision: treat them as "within ~25 km".
    precision: precisionField(row.location_precision, 2),
    type,
    severity: severityFromDeaths(deaths, type),
    fatalities: deaths,
    weight: ucdpWeight(row),
    country: blank(row.country),
    admin1: blank(row.admin1),
    admin2: blank(row.admin2),
    place: blank(row.location),
    description: blank(row.dyad_name) ?? blank(row.conflict_name),
    imported_at: importedAt,
  };
}
