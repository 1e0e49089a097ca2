import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db, type Executor } from '../db/schema.ts';
import { ACLED_REQUIRED_COLUMNS, acledRow } from './importers/acled.ts';
import { COMMUNITY_REQUIRED_FIELDS, communityFeatures, communityReport } from './importers/community.ts';
import { UCDP_REQUIRED_COLUMNS, ucdpRow } from './importers/ucdp.ts';
import { insertThreatEvents, upsertThreatEvents, type NewThreatEvent } from './store.ts';
import { isNewerRelease, ucdpRelease } from './taxonomy.ts';
import { DAY_MS } from '../../shared/time.ts';

export const IMPORT_FORMATS = ['ucdp', 'acled', 'community'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export class ImportError extends Error {}

function readCsv(text: string, path: string, required: string[], what: string): Record<string, string>[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true, trim: true }) as Record<string, string>[];
  } catch (err) {
    throw new ImportError(`${path} is not a readable CSV: ${(err as Error).message}`);
  }
  const missing = records.length ? required.filter((column) => !(column in records[0]!)) : [];
  if (missing.length) throw new ImportError(`${path} is not ${what}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return records;
}

/** The file's rows as normalized events (null for a row that cannot be used). */
function normalize(format: ImportFormat, text: string, path: string, importedAt: string): (NewThreatEvent | null)[] {
  switch (format) {
    case 'ucdp':
      return readCsv(text, path, UCDP_REQUIRED_COLUMNS, 'a UCDP GED CSV').map((row) => ucdpRow(row, importedAt));
    case 'acled':
      return readCsv(text, path, ACLED_REQUIRED_COLUMNS, "an ACLED export CSV").map((row) => acledRow(row, importedAt));
    case 'community': {
      const dataset = `community reports (${basename(path)})`;
      const trimmed = text.trimStart();
      if (trimmed.startsWith('{')) {
        let features: Record<string, unknown>[] | null;
        try {
          features = communityFeatures(JSON.parse(trimmed));
        } catch (err) {
          throw new ImportError(`${path} is not valid JSON: ${(err as Error).message}`);
        }
        if (!features) throw new ImportError(`${path} is not a GeoJSON FeatureCollection`);
        return features.map((fields) => communityReport(fields, importedAt, dataset));
      }
      const rows = readCsv(text, path, COMMUNITY_REQUIRED_FIELDS, 'a community report CSV');
      return rows.map((row) => communityReport(row, importedAt, dataset));
    }
  }
}

export interface ImportResult {
  /** Events new to the store. */
  imported: number;
  /** Rows that replaced a stored event: a newer UCDP release of it. */
  replaced: number;
  /** Rows already stored (same or older release) or unusable. */
  skipped: number;
}

/** A UCDP row replaces the stored event of the same id only when its release is newer (GED 26.1 over Candidate 26.0.2 over GED 25.1). */
const newerUcdpRelease = (incoming: NewThreatEvent, storedDataset: string) => isNewerRelease(ucdpRelease(incoming.dataset), ucdpRelease(storedDataset));

/**
 * Imports a file of the given format in one transaction. Every event keeps a stable id from
 * its source (`ucdp:16342`, `acled:NIG12345`, `community:<id>`), so importing the same file
 * again adds nothing: `imported` counts new events, `replaced` UCDP events a newer release of
 * them replaced, `skipped` rows already there or unusable (no id, no real day, a day after
 * tomorrow, no point, deaths not a number, a kind that is not violence). `afterImport` runs in
 * the same transaction (the shipped-data loader records the file there).
 */
export async function importThreatFile(
  db: Db,
  clock: Clock,
  format: ImportFormat,
  path: string,
  afterImport?: (trx: Executor, result: ImportResult) => Promise<void>,
): Promise<ImportResult> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ImportError(`cannot read ${path}: ${(err as Error).message}`);
  }
  const now = clock.now();
  const rows = normalize(format, text, path, now.toISOString());
  // An event dated after tomorrow is a typo (2062 for 2026), not news: it would count in full for years.
  const latestDay = new Date(now.getTime() + DAY_MS).toISOString().slice(0, 10);
  const usable = rows.filter((row): row is NewThreatEvent => row !== null && row.occurred_on <= latestDay);
  return inTransaction(db, async (trx) => {
    const { inserted, replaced } =
      format === 'ucdp' ? await upsertThreatEvents(trx, usable, newerUcdpRelease) : { inserted: await insertThreatEvents(trx, usable), replaced: 0 };
    const result = { imported: inserted, replaced, skipped: rows.length - inserted - replaced };
    await afterImport?.(trx, result);
    return result;
  });
}
