import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { importThreatFile } from './import.ts';

/** The UCDP GED extract the project ships (CC BY 4.0; attribution in threat-data/ucdp/README.md). */
export const SHIPPED_UCDP_FILES = ['ucdp_ged_nigeria.csv', 'ucdp_ged_ssa_supplement.csv'].map((name) =>
  fileURLToPath(new URL(`../../threat-data/ucdp/${name}`, import.meta.url)),
);

/** On a database with no public events yet, loads the shipped extract (about 10,300 events, a second or two). */
export async function loadShippedThreatData(db: Db, clock: Clock): Promise<{ imported: number } | undefined> {
  const any = await db.selectFrom('threat_events').select('event_id').where('source', '=', 'public').limit(1).executeTakeFirst();
  if (any) return undefined;
  let imported = 0;
  for (const file of SHIPPED_UCDP_FILES) {
    if (existsSync(file)) imported += (await importThreatFile(db, clock, 'ucdp', file)).imported;
  }
  return { imported };
}
