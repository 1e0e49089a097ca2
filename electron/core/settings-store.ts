import type { KioskDb } from './database.ts';

/** The table `settings`: the kiosk's own values by key (its id, the guard, the feed cursor, the site, ...), and the only SQL on it. */

export function readSetting(db: KioskDb, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function writeSetting(db: KioskDb, key: string, value: string): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

export function deleteSetting(db: KioskDb, key: string): void {
  db.prepare('DELETE FROM settings WHERE key = ?').run(key);
}

export function readJsonSetting<T>(db: KioskDb, key: string): T | undefined {
  const value = readSetting(db, key);
  return value === undefined ? undefined : (JSON.parse(value) as T);
}

export function writeJsonSetting(db: KioskDb, key: string, value: unknown): void {
  writeSetting(db, key, JSON.stringify(value));
}
