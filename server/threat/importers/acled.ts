import { SOURCE_WEIGHT, severityFromDeaths, type ThreatType } from '../taxonomy.ts';
import type { NewThreatEvent } from '../store.ts';
import { blank, calendarDay, deathsField, numberField, validPoint } from './fields.ts';

export const ACLED_REQUIRED_COLUMNS = ['event_id_cnty', 'event_date', 'event_type', 'latitude', 'longitude'];

/**
 * ACLED's event and sub-event types in our taxonomy. "Strategic developments" are not violence
 * (agreements, arrests, troop movements) and are skipped, except looting and destruction.
 */
function acledType(eventType: string, subEventType: string): ThreatType | null {
  const sub = subEventType.toLowerCase();
  if (sub.startsWith('abduction')) return 'kidnapping';
  if (sub.startsWith('looting')) return 'crime';
  switch (eventType.toLowerCase()) {
    case 'battles':
    case 'explosions/remote violence':
      return 'armed_conflict';
    case 'violence against civilians':
      return 'violence_against_civilians';
    case 'riots':
    case 'protests':
      return 'protest_or_riot';
    default:
      return null;
  }
}

/** ACLED `geo_precision` (1 town, 2 near a town or part of a region, 3 larger region) on UCDP's scale. */
const ACLED_PRECISION: Record<string, number> = { '1': 1, '2': 2, '3': 4 };

/** A row of ACLED's export CSV as a normalized event; null when unusable or not violence. */
export function acledRow(row: Record<string, string>, importedAt: string): NewThreatEvent | null {
  const latitude = numberField(row.latitude);
  const longitude = numberField(row.longitude);
  const day = calendarDay(row.event_date);
  const type = acledType(row.event_type ?? '', row.sub_event_type ?? '');
  const id = blank(row.event_id_cnty);
  const deaths = deathsField(row.fatalities);
  if (!id || !day || !type || !validPoint(latitude, longitude) || deaths === null) return null;
  return {
    event_id: `acled:${id}`,
    source: 'public',
    dataset: 'ACLED',
    occurred_on: day,
    latitude,
    longitude,
    precision: ACLED_PRECISION[row.geo_precision?.trim() ?? ''] ?? 2,
    type,
    severity: severityFromDeaths(deaths, type),
    fatalities: deaths,
    weight: SOURCE_WEIGHT.public,
    country: blank(row.country),
    admin1: blank(row.admin1),
    admin2: blank(row.admin2),
    place: blank(row.location),
    description: [blank(row.event_type), blank(row.sub_event_type)].filter(Boolean).join(': ') || null,
    imported_at: importedAt,
  };
}
