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
});
