import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Clock } from '../clock.ts';
import type { Db, ThreatEventRow } from '../db/schema.ts';
import { SOURCE_WEIGHT, severityFromDeaths, type ThreatType } from './taxonomy.ts';

export type ImportFormat = 'ucdp' | 'acled' | 'community';

export class ImportError extends Error {}

const UCDP_TYPES: Record<string, ThreatType> = {
  '1': 'armed_conflict',
  '2': 'communal_violence',
  '3': 'violence_against_civilians',
};

const blank = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());

/** A UCDP GED row (the columns of threat-data/ucdp/README.md) as a normalized event; null when unusable. */
export function ucdpRow(row: Record<string, string>, importedAt: string): ThreatEventRow | null {
  const latitude = Number(row.latitude);
  const longitude = Number(row.longitude);
  const type = UCDP_TYPES[row.violence_code ?? ''];
  if (!row.id || !/^\d{4}-\d{2}-\d{2}$/.test(row.date ?? '') || !Number.isFinite(latitude) || !Number.isFinite(longitude) || !type) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  const deaths = Math.max(0, Math.round(Number(row.deaths_best) || 0));
  return {
    event_id: `ucdp:${row.id}`,
    source: 'public',
    dataset: blank(row.source_dataset) ?? 'UCDP GED',
    occurred_on: row.date!,
    latitude,
    longitude,
    // The supplement's sampled rows have no precision: treat them as "within ~25 km".
    precision: Number(row.location_precision) || 2,
    type,
    severity: severityFromDeaths(deaths, type),
    fatalities: deaths,
    weight: SOURCE_WEIGHT.public,
    country: blank(row.country),
    admin1: blank(row.admin1),
    admin2: blank(row.admin2),
    place: blank(row.location),
    description: blank(row.dyad_name) ?? blank(row.conflict_name),
    imported_at: importedAt,
  };
}

/**
 * Imports a file of the given format. Every event has a stable id from its source, so importing
 * the same file again adds nothing: `{imported, skipped}` counts new rows and rows already there
 * or unusable.
 */
export async function importThreatFile(db: Db, clock: Clock, format: ImportFormat, path: string): Promise<{ imported: number; skipped: number }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ImportError(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (format !== 'ucdp') throw new ImportError(`--format ${format}: not supported yet; ucdp is`);
  const records = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  if (records.length && !('violence_code' in records[0]!)) throw new ImportError(`${path} is not a UCDP GED CSV: no violence_code column`);
  const importedAt = clock.now().toISOString();
  const rows = records.map((record) => ucdpRow(record, importedAt));
  const usable = rows.filter((row): row is ThreatEventRow => row !== null);
  let imported = 0;
  for (let i = 0; i < usable.length; i += 500) {
    const batch = usable.slice(i, i + 500);
    const result = await db
      .insertInto('threat_events')
      .values(batch)
      .onConflict((oc) => oc.column('event_id').doNothing())
      .executeTakeFirst();
    imported += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return { imported, skipped: records.length - imported };
}
