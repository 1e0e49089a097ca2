import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * A SQLite database, its WAL and shared-memory files readable and writable by their owner only:
 * the server's (visitors' names, sealed secrets) and each kiosk's (its API key, its queue). The
 * file is made 0600 before SQLite opens it, because SQLite gives the WAL and SHM it creates the
 * database file's own mode; a database made by an older version is narrowed at open. A folder
 * made here is 0700.
 */
export function ownerOnlyDatabaseFiles(path: string): void {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const each of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      chmodSync(each, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
