import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/clock.ts';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import type { Db } from '../../server/db/schema.ts';
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
    expect(await importThreatFile(db, systemClock, 'ucdp', nigeria!)).toEqual({ imported: 5727, replaced: 0, skipped: 0 });
    expect(await importThreatFile(db, systemClock, 'ucdp', nigeria!)).toEqual({ imported: 0, replaced: 0, skipped: 5727 });
    const count = await db.selectFrom('threat_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(5727);
  });

  const SHIPPED_ROWS = { 'ucdp_ged_nigeria.csv': 5727, 'ucdp_ged_ssa_supplement.csv': 4573, 'ucdp_ged_nigeria_2022plus.csv': 1295, 'ucdp_ssa_2022plus.csv': 731 };

  /** Nigerian events per year from 2020, as UCDP files them (the `country` column). */
  async function nigeriaByYear(db: Db) {
    const rows = await db
      .selectFrom('threat_events')
      .select((eb) => [sql<string>`substr(occurred_on, 1, 4)`.as('year'), eb.fn.countAll().as('n')])
      .where('country', '=', 'Nigeria')
      .where('occurred_on', '>=', '2020')
      .groupBy(sql`substr(occurred_on, 1, 4)`)
      .orderBy('year')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.year, Number(row.n)]));
  }
  // 2022-2024: the dated GED 25.1 rows (279, 417, 297) and the supplement's sampled ones; no 2025; 2026: Candidate events.
  const NIGERIA_BY_YEAR = { '2020': 603, '2021': 492, '2022': 283, '2023': 424, '2024': 304, '2026': 302 };

  it('a fresh store loads every shipped file on start, once per version', async () => {
    const db = await fresh();
    const loads = await loadShippedThreatData(db, systemClock);
    expect(Object.fromEntries(loads.map((load) => [load.name, [load.imported, load.replaced, load.skipped]]))).toEqual(
      Object.fromEntries(Object.entries(SHIPPED_ROWS).map(([name, rows]) => [name, [rows, 0, 0]])),
    );
    expect(await loadShippedThreatData(db, systemClock)).toEqual([]);
    expect(await nigeriaByYear(db)).toEqual(NIGERIA_BY_YEAR);
    const borno = await db
      .selectFrom('threat_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('country', '=', 'Nigeria')
      .where('admin1', '=', 'Borno state')
      .executeTakeFirstOrThrow();
    expect(Number(borno.n)).toBeGreaterThanOrEqual(2913);
    const candidates = await db.selectFrom('threat_events').select(['weight']).where('dataset', 'like', 'UCDP Candidate%').groupBy('weight').execute();
    expect(candidates.map((row) => Number(row.weight))).toEqual([0.5]);
  });

  it('an upgraded store, loaded with the 2021 extract by the old rule, gets only the new rows', async () => {
    database = await createTestDatabase();
    opened = openDatabase(database.url);
    const db = opened.db;
    const migrations = serverMigrations(withoutSealingKey);
    const names = Object.keys(migrations);
    await migrateToLatest(db, Object.fromEntries(names.slice(0, names.indexOf('0008-threat-revisions') + 1).map((n) => [n, migrations[n]!])));
    // What the previous release did on first start: both old files into an empty store.
    for (const file of SHIPPED_UCDP_FILES.slice(0, 2)) await importThreatFile(db, systemClock, 'ucdp', file);
    await migrateToLatest(db);
    const loads = await loadShippedThreatData(db, systemClock);
    expect(loads.map((load) => [load.name, load.imported, load.replaced, load.skipped])).toEqual([
      ['ucdp_ged_nigeria.csv', 0, 0, 5727],
      ['ucdp_ged_ssa_supplement.csv', 0, 0, 4573],
      ['ucdp_ged_nigeria_2022plus.csv', 1295, 0, 0],
      ['ucdp_ssa_2022plus.csv', 731, 0, 0],
    ]);
    expect(await nigeriaByYear(db)).toEqual(NIGERIA_BY_YEAR);
    expect(await loadShippedThreatData(db, systemClock)).toEqual([]);
  });

  it('a store with an operator\'s imports before the first start still gets every shipped row, each once', async () => {
    const db = await fresh();
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-import-'));
    const community = join(dir, 'reports.csv');
    writeFileSync(community, 'id,date,latitude,longitude,type,confidence\nq1,2026-11-20,6.5,3.4,robbery,0.9\n');
    await importThreatFile(db, systemClock, 'community', community);
    // The operator had imported one shipped event already, from the same release.
    const [header, first] = readFileSync(SHIPPED_UCDP_FILES[2]!, 'utf8').split('\n');
    const own = join(dir, 'own-ucdp.csv');
    writeFileSync(own, `${header}\n${first}\n`);
    expect(await importThreatFile(db, systemClock, 'ucdp', own)).toEqual({ imported: 1, replaced: 0, skipped: 0 });
    const loads = await loadShippedThreatData(db, systemClock);
    expect(loads.reduce((sum, load) => sum + load.imported, 0)).toBe(12_326 - 1);
    expect(loads.find((load) => load.name === 'ucdp_ged_nigeria_2022plus.csv')).toMatchObject({ imported: 1294, replaced: 0, skipped: 1 });
    const count = await db.selectFrom('threat_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(12_326 + 1);
    expect(await nigeriaByYear(db)).toEqual(NIGERIA_BY_YEAR);
  });

  it('a new version of a shipped file loads once: a newer release of an event replaces the stored one, nothing twice', async () => {
    const db = await fresh();
    await loadShippedThreatData(db, systemClock);
    const before = await db.selectFrom('threat_revision').select(['revision', 'rebuild_revision']).executeTakeFirstOrThrow();
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-import-'));
    const [header, first, second] = readFileSync(SHIPPED_UCDP_FILES[3]!, 'utf8').split('\n');
    const columns = header!.split(',');
    const asGed = (line: string) => {
      const cells = (parse(line) as string[][])[0]!;
      cells[columns.indexOf('source_dataset')] = 'UCDP GED 26.1';
      cells[columns.indexOf('deaths_best')] = '40';
      return cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',');
    };
    const next = join(dir, 'ucdp_ssa_2022plus.csv');
    writeFileSync(next, `${header}\n${asGed(first!)}\n${second}\n`);
    expect(await loadShippedThreatData(db, systemClock, [next])).toEqual([
      { name: 'ucdp_ssa_2022plus.csv', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), imported: 0, replaced: 1, skipped: 1 },
    ]);
    expect(await loadShippedThreatData(db, systemClock, [next])).toEqual([]);
    const id = `ucdp:${first!.split(',')[0]}`;
    expect(await db.selectFrom('threat_events').select(['dataset', 'fatalities', 'weight']).where('event_id', '=', id).execute()).toEqual([
      { dataset: 'UCDP GED 26.1', fatalities: 40, weight: 1 },
    ]);
    const after = await db.selectFrom('threat_revision').select(['revision', 'rebuild_revision']).executeTakeFirstOrThrow();
    expect(Number(after.rebuild_revision)).toBe(Number(after.revision));
    expect(Number(after.revision)).toBeGreaterThan(Number(before.revision));
    const versions = await db.selectFrom('threat_data_files').select(['name']).where('name', '=', 'ucdp_ssa_2022plus.csv').execute();
    expect(versions).toHaveLength(2);
    const count = await db.selectFrom('threat_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(12_326);
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
    expect(await importThreatFile(db, systemClock, 'community', file)).toEqual({ imported: 2, replaced: 0, skipped: 0 });
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
