import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKioskDatabase, openMemoryDatabase } from '../../electron/core/database.ts';
import { KIOSK_MIGRATIONS, kioskSchemaVersion, migrateKioskDatabase } from '../../electron/core/migrations.ts';

function tables(db: ReturnType<typeof openMemoryDatabase>): string[] {
  return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{ name: string }>).map(
    (row) => row.name,
  );
}

describe('kiosk database migrations', () => {
  it('v1 creates the kiosk tables and records its version', () => {
    const db = openMemoryDatabase();
    expect(migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 1))).toBe(1);
    expect(tables(db)).toEqual(['attention', 'codes', 'decisions', 'outbox', 'panic_presses', 'panics', 'pass_keys', 'server_visitors', 'settings', 'visits']);
    expect(kioskSchemaVersion(db)).toBe(1);
  });

  it('upgrades a v1 database holding data to the latest version, keeping the data, and running again changes nothing', () => {
    const db = openMemoryDatabase();
    migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 1));
    db.prepare(`INSERT INTO settings (key, value) VALUES ('kiosk_id', 'kiosk_1')`).run();
    db.prepare(
      `INSERT INTO panics (panic_id, pressed_at, idempotency_key, body, state, incident_id, incident_status, updated_at)
       VALUES ('sos_1', '2026-01-01T00:00:00.000Z', 'kiosk_1.sos_1', '{}', 'sent', 'inc_1', 'dispatching', '2026-01-01T00:00:00.000Z')`,
    ).run();
    db.prepare(`INSERT INTO panic_presses (press_id, panic_id, pressed_at) VALUES ('press-1', 'sos_1', '2026-01-01T00:00:00.000Z')`).run();
    db.prepare(
      `INSERT INTO outbox (op_id, kind, idempotency_key, method, path, body, state, created_at) VALUES ('op_1', 'walk_in', 'kiosk_1.op_1', 'POST', '/access-logs', '{}', 'pending', '2026-01-01T00:00:00.000Z')`,
    ).run();

    expect(migrateKioskDatabase(db)).toBe(KIOSK_MIGRATIONS.length);
    expect(KIOSK_MIGRATIONS.length).toBeGreaterThan(1);
    expect(kioskSchemaVersion(db)).toBe(KIOSK_MIGRATIONS.length);
    // v2: a sent SOS the kiosk stopped following; the v1 row is still followed.
    expect(db.prepare('SELECT panic_id, state, incident_status, closed_at FROM panics').all()).toEqual([
      { panic_id: 'sos_1', state: 'sent', incident_status: 'dispatching', closed_at: null },
    ]);
    expect(db.prepare('SELECT press_id FROM panic_presses').all()).toEqual([{ press_id: 'press-1' }]);
    expect(db.prepare('SELECT op_id, state FROM outbox').all()).toEqual([{ op_id: 'op_1', state: 'pending' }]);
    expect(db.prepare('SELECT value FROM settings').all()).toEqual([{ value: 'kiosk_1' }]);

    const schema = db.prepare(`SELECT sql FROM sqlite_master ORDER BY name`).all();
    migrateKioskDatabase(db);
    expect(kioskSchemaVersion(db)).toBe(KIOSK_MIGRATIONS.length);
    expect(db.prepare(`SELECT sql FROM sqlite_master ORDER BY name`).all()).toEqual(schema);
  });

  it('a migration that fails leaves the database at the last whole version', () => {
    const db = openMemoryDatabase();
    const broken = [
      ...KIOSK_MIGRATIONS.slice(0, 1),
      (inner: typeof db) => {
        inner.exec('CREATE TABLE half_done (id INTEGER)');
        throw new Error('power cut');
      },
    ];
    expect(() => migrateKioskDatabase(db, broken)).toThrow('power cut');
    expect(kioskSchemaVersion(db)).toBe(1);
    expect(tables(db)).not.toContain('half_done');
  });

  it('v4 gives cached codes and pass keys a site, keeping what the kiosk held: codes and keys from before are valid at every site', () => {
    const db = openMemoryDatabase();
    migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 3));
    db.prepare(
      `INSERT INTO codes (code_id, code, status, valid_from_ms, valid_until_ms, max_uses, use_count, local_uses, from_feed, updated_at)
       VALUES ('code_1', 'AB-2345', 'active', 0, 1, 1, 0, 1, 1, '2026-01-01T00:00:00.000Z')`,
    ).run();
    db.prepare(`INSERT INTO pass_keys (kid, public_key, created_at) VALUES ('KID1', 'pk', '2026-01-01T00:00:00.000Z')`).run();
    db.prepare(`INSERT INTO settings (key, value) VALUES ('feed_cursor', '7')`).run();
    migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 4));
    expect(db.prepare('SELECT code_id, local_uses, site_id FROM codes').all()).toEqual([{ code_id: 'code_1', local_uses: 1, site_id: null }]);
    expect(db.prepare('SELECT kid, site_id FROM pass_keys').all()).toEqual([{ kid: 'KID1', site_id: null }]);
    // The feed is read again by the sync once the kiosk knows its site (electron/core/caches/site.ts), not here: an upgrade offline keeps its gate working.
    expect(db.prepare(`SELECT value FROM settings WHERE key = 'feed_cursor'`).get()).toEqual({ value: '7' });
  });

  it('v7 keeps the facts the gates of a site share, each once by its id, in the order they were kept', async () => {
    const db = openMemoryDatabase();
    migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 6));
    db.prepare(`INSERT INTO settings (key, value) VALUES ('kiosk_id', 'kiosk_1')`).run();
    expect(migrateKioskDatabase(db, KIOSK_MIGRATIONS.slice(0, 7))).toBe(7);
    const { recordFact, factsAfter } = await import('../../electron/core/peers/store.ts');
    const use = { kind: 'use' as const, useId: 'op_1', codeId: 'code_1', code: 'DEMO-AAAA', kioskId: 'kiosk_1', gate: 'Main gate', at: '2026-01-01T10:42:00.000Z' };
    expect(recordFact(db, use, use.at)).toBe(true);
    expect(recordFact(db, use, use.at)).toBe(false);
    expect(factsAfter(db, 0, 10)).toEqual([{ seq: 1, fact: use }]);
    expect(db.prepare(`SELECT value FROM settings WHERE key = 'kiosk_id'`).get()).toEqual({ value: 'kiosk_1' });
  });

  it('refuses a database written by a newer kiosk', () => {
    const db = openMemoryDatabase();
    db.pragma(`user_version = ${KIOSK_MIGRATIONS.length + 1}`);
    expect(() => migrateKioskDatabase(db)).toThrow(/newer than this kiosk/);
  });
});

describe('the kiosk data folder', () => {
  it('is used by one kiosk process at a time, and free again once it closes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-kiosk-lock-'));
    try {
      const first = openKioskDatabase(dir);
      expect(() => openKioskDatabase(dir)).toThrow(/Another kiosk process is using/);
      first.close();
      openKioskDatabase(dir).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
