import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/clock.ts';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { importThreatFile } from '../../server/threat/import.ts';
import { SHIPPED_UCDP_FILES, loadShippedThreatData } from '../../server/threat/shipped-data.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('threat event import', () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
  });

  async function fresh() {
    database = await createTestDatabase();
    opened = openDatabase(database.url);
    await migrateToLatest(opened.db);
    return opened.db;
  }

  it('imports the shipped UCDP extract once; the same file again adds nothing', async () => {
    const db = await fresh();
    const [nigeria] = SHIPPED_UCDP_FILES;
    expect(await importThreatFile(db, systemClock, 'ucdp', nigeria!)).toEqual({ imported: 5727, skipped: 0 });
    expect(await importThreatFile(db, systemClock, 'ucdp', nigeria!)).toEqual({ imported: 0, skipped: 5727 });
    const count = await db.selectFrom('threat_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(5727);
  });

  it('a fresh store loads both shipped files on start, and only once', async () => {
    const db = await fresh();
    expect(await loadShippedThreatData(db, systemClock)).toEqual({ imported: 10_300 });
    expect(await loadShippedThreatData(db, systemClock)).toBeUndefined();
    const borno = await db
      .selectFrom('threat_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('country', '=', 'Nigeria')
      .where('admin1', '=', 'Borno state')
      .executeTakeFirstOrThrow();
    expect(Number(borno.n)).toBeGreaterThanOrEqual(2913);
  });

  it('refuses a file that is not UCDP GED, naming it', async () => {
    const db = await fresh();
    await expect(importThreatFile(db, systemClock, 'ucdp', new URL('../../package.json', import.meta.url).pathname)).rejects.toThrow(/not a UCDP GED CSV|cannot read|Invalid/);
  });

  it('reads CSV as operators export it: a byte-order mark, quoted commas and line breaks, blank lines, CRLF', async () => {
    const db = await fresh();
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-import-'));
    const file = join(dir, 'reports.csv');
    const lines = [
      'id,date,latitude,longitude,type,confidence,place,description',
      'q1,2026-11-20,6.5,3.4,robbery,0.9,"Ojuelegba, Surulere","two men, one gun"',
      '',
      'q2,2026-11-21,6.5,3.4,kidnap,0.8,Yaba,"taken at night,',
      'released next day"',
    ];
    writeFileSync(file, `\ufeff${lines.join('\r\n')}\r\n`);
    expect(await importThreatFile(db, systemClock, 'community', file)).toEqual({ imported: 2, skipped: 0 });
    const rows = await db.selectFrom('threat_events').select(['event_id', 'place', 'description', 'type']).orderBy('event_id').execute();
    expect(rows).toEqual([
      { event_id: 'community:q1', place: 'Ojuelegba, Surulere', description: 'two men, one gun', type: 'armed_robbery' },
      { event_id: 'community:q2', place: 'Yaba', description: 'taken at night,\r\nreleased next day', type: 'kidnapping' },
    ]);
  });

  it('names what is wrong with a file it cannot read as the format asked for', async () => {
    const db = await fresh();
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-import-'));
    const csv = join(dir, 'no-confidence.csv');
    writeFileSync(csv, 'id,date,latitude,longitude,type\nq1,2026-11-20,6.5,3.4,robbery\n');
    await expect(importThreatFile(db, systemClock, 'community', csv)).rejects.toThrow('missing column confidence');
    const geojson = join(dir, 'broken.geojson');
    writeFileSync(geojson, '{"type": "FeatureCollection", "features": [');
    await expect(importThreatFile(db, systemClock, 'community', geojson)).rejects.toThrow('is not valid JSON');
    const feature = join(dir, 'feature.geojson');
    writeFileSync(feature, '{"type": "Feature"}');
    await expect(importThreatFile(db, systemClock, 'community', feature)).rejects.toThrow('is not a GeoJSON FeatureCollection');
    expect(await db.selectFrom('threat_events').select('event_id').execute()).toEqual([]);
  });
});
