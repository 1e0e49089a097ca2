import type { KioskDb } from '../database.ts';

/** The table `identity` (one row) and the only SQL on it. */
export interface IdentityRow {
  public_key: string;
  /** PKCS#8 DER in base64: the kiosk's database is an owner-only file, as its API key is. */
  private_key: string;
  certificate: string | null;
  expires_at: string | null;
  site_id: string | null;
  authority_kid: string | null;
  authority_public_key: string | null;
  updated_at: string;
}

export function readIdentity(db: KioskDb): IdentityRow | undefined {
  return db.prepare('SELECT public_key, private_key, certificate, expires_at, site_id, authority_kid, authority_public_key, updated_at FROM identity WHERE id = 1').get() as IdentityRow | undefined;
}

/** Keeps the first key pair made: two callers at once end with the same one. */
export function insertKeyPair(db: KioskDb, publicKey: string, privateKey: string, at: string): void {
  db.prepare('INSERT INTO identity (id, public_key, private_key, updated_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING').run(publicKey, privateKey, at);
}

export function saveCertificate(db: KioskDb, certificate: { certificate: string; expires_at: string; site_id: string; authority_kid: string; authority_public_key: string }, at: string): void {
  db.prepare('UPDATE identity SET certificate = ?, expires_at = ?, site_id = ?, authority_kid = ?, authority_public_key = ?, updated_at = ? WHERE id = 1').run(
    certificate.certificate,
    certificate.expires_at,
    certificate.site_id,
    certificate.authority_kid,
    certificate.authority_public_key,
    at,
  );
}
