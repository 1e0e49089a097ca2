import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { importThreatFile, type ImportResult } from './import.ts';
import { recordThreatDataFile, threatDataFileLoaded } from './store.ts';

/**
 * The UCDP extracts the project ships (CC BY 4.0; sources, citations and gaps in
 * threat-data/ucdp/README.md): GED for Nigeria to 2021 and a Sub-Saharan supplement, then GED
 * 25.1 and the provisional Candidate events of January and February 2026.
 */
export const SHIPPED_UCDP_FILES = ['ucdp_ged_nigeria.csv', 'ucdp_ged_ssa_supplement.csv', 'ucdp_ged_nigeria_2022plus.csv', 'ucdp_ssa_2022plus.csv'].map(
  (name) => fileURLToPath(new URL(`../../threat-data/ucdp/${name}`, import.meta.url)),
);

export interface ShippedFileLoad extends ImportResult {
  name: string;
  sha256: string;
}

/**
 * Loads each shipped file once per version of it (its name and content hash, recorded in
 * threat_data_files in the same transaction), whatever else the store holds: an upgraded
 * database gets the new files, an operator's earlier imports stay, and by UCDP id a newer
 * release of an event replaces the older one while nothing is stored twice. Answers the files
 * loaded now (none when every version is already in).
 */
export async function loadShippedThreatData(db: Db, clock: Clock, files: readonly string[] = SHIPPED_UCDP_FILES): Promise<ShippedFileLoad[]> {
  const loads: ShippedFileLoad[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const name = basename(file);
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    if (await threatDataFileLoaded(db, name, sha256)) continue;
    const result = await importThreatFile(db, clock, 'ucdp', file, async (trx, counts) => {
      await recordThreatDataFile(trx, { name, sha256, loaded_at: clock.now().toISOString(), ...counts });
    });
    loads.push({ name, sha256, ...result });
  }
  return loads;
}

/** Countries the shipped GED rows cover in full up to their release (the others' GED rows are a random sample of GED 25.1). */
const COMPLETE_GED = new Set(['NG', 'CF', 'SS']);

/**
 * What threat-data/ucdp/README.md says about a country's shipped data, for the coverage
 * endpoint: a partner reading "2022-2024" must also read "partial outside the north-east".
 */
export function shippedDataNotes(country: string, feeds: readonly string[]): string[] {
  const notes: string[] = [];
  if (country === 'NG') {
    notes.push(
      'UCDP GED to 2021: complete (GED 20.1 and 22.1).',
      '2022-2024 (GED 25.1): complete for Borno, Adamawa and Yobe and for the farmer-herder events of Benue, Nasarawa and Taraba; partial elsewhere ' +
        '(993 of the 1,569 events GED lists; the rest, mostly the south-east, south-west and Plateau, have no recoverable day).',
      '2025: no events in the shipped data.',
    );
  } else if (country === 'CF') {
    notes.push('UCDP GED 23.1 complete to 2022-12-30; later GED rows are a sample.');
  } else if (country === 'SS') {
    notes.push('UCDP GED to 2021 from the HDX copy, which may be a subset; later GED rows are a sample.');
  } else if (feeds.includes('ucdp-ged') && !COMPLETE_GED.has(country)) {
    notes.push('UCDP GED rows here are a random sample of GED 25.1: do not count or compare them.');
  }
  if (feeds.includes('ucdp-candidate')) {
    notes.push('2026: UCDP Candidate events (provisional, weighed at half a GED event) for January and February only; nothing shipped after 2026-02-28.');
  }
  notes.push('UCDP covers organized lethal violence only: kidnappings without deaths, crime and protests are thin or missing.');
  return notes;
}
