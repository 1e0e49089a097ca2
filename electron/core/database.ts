import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrateKioskDatabase } from './migrations.ts';
import { ownerOnlyDatabaseFiles } from '../../shared/node/owner-only-files.ts';

export type KioskDb = Database.Database;

export const KIOSK_DB_FILE = 'kiosk.db';

/**
 * The kiosk's own SQLite file. WAL with `synchronous = FULL`: every commit is on disk (the WAL is
 * fsynced) before the call that made it answers, so what the screen showed as done survives a
 * power cut, not only a crash of the process.
 */
export function openKioskDatabase(dataDir: string): KioskDb {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  ownerOnlyDatabaseFiles(join(dataDir, KIOSK_DB_FILE));
  const db = new Database(join(dataDir, KIOSK_DB_FILE));
  // One kiosk process per data folder: the connection holds the file's lock for its lifetime.
  // The lock is the operating system's, so a kiosk that was killed or lost power never leaves a
  // stale one behind.
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('busy_timeout = 0');
  try {
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new Error(`Another kiosk process is using ${dataDir}`);
    throw error;
  }
  configure(db);
  migrateKioskDatabase(db);
  return db;
}

/** For migration tests: the same pragmas on a database in memory. */
export function openMemoryDatabase(): KioskDb {
  const db = new Database(':memory:');
  configure(db);
  return db;
}

function configure(db: KioskDb): void {
  cacheStatements(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
}

/**
 * Each SQL text is compiled once per connection: the core prepares its statements where it uses
 * them, and a drain settles thousands of operations, each with several. No caller changes a
 * statement's mode (pluck, raw, expand) or iterates one, so sharing them is safe.
 */
function cacheStatements(db: KioskDb): void {
  const prepare = db.prepare.bind(db);
  const prepared = new Map<string, ReturnType<KioskDb['prepare']>>();
  db.prepare = ((source: string) => {
    let statement = prepared.get(source);
    if (!statement) {
      statement = prepare(source);
      prepared.set(source, statement);
    }
    return statement;
  }) as KioskDb['prepare'];
}
