import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/**
 * A SQLite database, its WAL and shared-memory files readable and writable by their owner only:
 * the server's (visitors' names, sealed secrets) and each kiosk's (its API key, its queue). The
 * file is made 0600 before SQLite opens it, because SQLite gives the WAL and SHM it creates the
 * database file's own mode; a database made by an older version is narrowed at open. A folder
 * made here is 0700, and one that holds nothing but this database is narrowed to 0700 too.
 */
export function ownerOnlyDatabaseFiles(path: string): void {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  narrowOwnFolder(dirname(file), (name) => name.startsWith(basename(file)));
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const each of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      chmodSync(each, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * A folder that exists already open to others (0755, say) is narrowed to 0700 when it is
 * Tsaro's alone: owned by this user, not a shared folder (no sticky bit, as /tmp has), and
 * holding nothing but Tsaro's own files (`ours`). A folder the operator shares with anything
 * else is left as it is: changing it could break what else lives there.
 */
export function narrowOwnFolder(dir: string, ours: (name: string) => boolean): void {
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    return;
  }
  if ((stat.mode & 0o077) === 0 || (stat.mode & 0o1000) !== 0) return;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return;
  if (!readdirSync(dir).every(ours)) return;
  chmodSync(dir, 0o700);
}
