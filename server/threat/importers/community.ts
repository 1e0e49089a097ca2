import { isThreatType, SOURCE_WEIGHT, severityFromDeaths, type ThreatType } from '../taxonomy.ts';
import type { NewThreatEvent } from '../store.ts';
import { blank, calendarDay, deathsField, numberField, precisionField, validPoint } from './fields.ts';

export const COMMUNITY_REQUIRED_FIELDS = ['id', 'date', 'latitude', 'longitude', 'type', 'confidence'];

/** Words people use in reports, mapped onto the taxonomy; anything else is `other`. */
const SYNONYMS: Record<string, ThreatType> = {
  robbery: 'armed_robbery',
  kidnap: 'kidnapping',
  abduction: 'kidnapping',
  riot: 'protest_or_riot',
  protest: 'protest_or_riot',
  accident: 'road_incident',
  theft: 'crime',
  burglary: 'crime',
  attack: 'violence_against_civilians',
  clash: 'communal_violence',
  banditry: 'armed_robbery',
};

function communityType(value: string | null): ThreatType {
  const word = (value ?? '').toLowerCase().replace(/[\s-]+/g, '_');
  if (isThreatType(word)) return word;
  for (const [synonym, type] of Object.entries(SYNONYMS)) if (word.startsWith(synonym)) return type;
  return 'other';
}

/**
 * A community report (a CSV row, or a GeoJSON Point feature's properties with the point's
 * coordinates) as a normalized event; null when unusable. `confidence` (0 to 1) is required:
 * the event's weight is the community weight (0.5) times it.
 */
export function communityReport(fields: Record<string, unknown>, importedAt: string, dataset: string): NewThreatEvent | null {
  const latitude = numberField(fields.latitude);
  const longitude = numberField(fields.longitude);
  const id = blank(fields.id);
  const day = calendarDay(fields.date ?? fields.occurred_at ?? fields.occurred_on);
  const confidenceText = blank(fields.confidence);
  const confidence = confidenceText === null ? NaN : Number(confidenceText);
  const deaths = deathsField(fields.fatalities);
  if (!id || !day || !validPoint(latitude, longitude) || !(confidence >= 0 && confidence <= 1) || deaths === null) return null;
  const type = communityType(blank(fields.type));
  return {
    event_id: `community:${id}`,
    source: 'community',
    dataset,
    occurred_on: day,
    latitude,
    longitude,
    precision: precisionField(fields.precision, 2),
    type,
    severity: severityFromDeaths(deaths, type),
    fatalities: deaths,
    weight: SOURCE_WEIGHT.community * confidence,
    country: blank(fields.country),
    admin1: blank(fields.admin1),
    admin2: blank(fields.admin2),
    place: blank(fields.place),
    description: blank(fields.description),
    imported_at: importedAt,
  };
}

/** The reports in a GeoJSON FeatureCollection: Point features, properties as in the CSV form. */
export function communityFeatures(document: unknown): Record<string, unknown>[] | null {
  const collection = document as { type?: unknown; features?: unknown };
  if (collection?.type !== 'FeatureCollection' || !Array.isArray(collection.features)) return null;
  return collection.features.map((feature: any) => {
    const coordinates = feature?.geometry?.type === 'Point' && Array.isArray(feature.geometry.coordinates) ? feature.geometry.coordinates : [];
    return { id: feature?.id, ...feature?.properties, longitude: coordinates[0], latitude: coordinates[1] };
  });
}
