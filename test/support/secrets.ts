import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { TestDatabase } from './database.ts';

/**
 * The sealing key test servers hold (a fixed, public test key). Several hosts of one test share a
 * PostgreSQL database, and PostgreSQL refuses to start without a key every host holds; spawned
 * processes (`npm start`, the CLI) get it through the environment vitest sets (vitest.config.ts).
 */
export const TEST_SECRETS_KEY = '7465737420736561c1696e67206b6579206e6f7420612073656372657421212e';

/**
 * The database as a thief would carry it off, as text: the SQLite files copied into `dir` as
 * they lie on disk (latin1 keeps every byte; SQLite stores text as UTF-8), or a `pg_dump`.
 */
export function stolenCopy(db: TestDatabase, dir: string): string {
  if (db.engine === 'postgres') return execFileSync('pg_dump', ['--no-owner', db.url], { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
  let text = '';
  for (const suffix of ['', '-wal', '-shm']) {
    if (!existsSync(db.url + suffix)) continue;
    copyFileSync(db.url + suffix, join(dir, `stolen.db${suffix}`));
    text += readFileSync(join(dir, `stolen.db${suffix}`)).toString('latin1');
  }
  return text;
}

/** Whether a webhook request carries a `v1` signature made with `secret` (Svc-Signature, Stripe's scheme). */
export function signedBy(secret: string, request: { headers: IncomingHttpHeaders; raw: Buffer }): boolean {
  const parts = String(request.headers['svc-signature']).split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')![1];
  const expected = createHmac('sha256', secret).update(`${t}.`).update(request.raw).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && v === expected);
}
