import type { KioskDb } from '../database.ts';

/** The table `pass_keys`, and the only SQL on it: the organization's public keys that verify passes offline. */

/** A public pass key as kept here: `site_id` null is the organization's (codes made before sites). */
export interface StoredPassKey {
  kid: string;
  public_key: string;
  site_id: string | null;
}

/**
 * The server's current set replaces the stored one: a key retired there no longer verifies
 * passes here. A server from before sites names no key's site: each is the organization's.
 */
export function storePassKeys(db: KioskDb, keys: Array<{ kid: string; public_key: string; site_id?: string | null; site_name?: string | null; created_at: string }>): void {
  const insert = db.prepare(
    `INSERT INTO pass_keys (kid, public_key, site_id, site_name, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kid) DO UPDATE SET public_key = excluded.public_key, site_id = excluded.site_id, site_name = excluded.site_name`,
  );
  db.transaction(() => {
    db.prepare('DELETE FROM pass_keys').run();
    for (const key of keys) insert.run(key.kid, key.public_key, key.site_id ?? null, key.site_name ?? null, key.created_at);
  })();
}

/** The estate a site is, by name, as its pass key says (null: not known here). */
export function siteNameOf(db: KioskDb, siteId: string): string | null {
  const row = db.prepare('SELECT site_name FROM pass_keys WHERE site_id = ? AND site_name IS NOT NULL LIMIT 1').get(siteId) as { site_name: string } | undefined;
  return row?.site_name ?? null;
}

export function loadPassKeys(db: KioskDb): StoredPassKey[] {
  return db.prepare('SELECT kid, public_key, site_id FROM pass_keys').all() as StoredPassKey[];
}

export function forgetPassKeys(db: KioskDb): void {
  db.prepare('DELETE FROM pass_keys').run();
}
