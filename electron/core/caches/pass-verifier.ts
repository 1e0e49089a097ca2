import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { parsePass, type PassClaims } from '../../../shared/pass.ts';

/** Raw 32-byte Ed25519 public keys are the DER SPKI minus this fixed 12-byte prefix. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * A genuine pass's claims and the site its key signs for (issue #34): a pass names its site
 * through its key; `site` null is the organization's key, which signed codes made before sites.
 */
export type PassCheck = { ok: true; claims: PassClaims; site: string | null } | { ok: false; why: 'malformed' | 'unknown_key' | 'bad_signature' };

/** Verifies signed passes against the organization's public keys, parsed once and kept. */
export class PassVerifier {
  private keys = new Map<string, { key: KeyObject; site: string | null }>();

  setKeys(keys: Array<{ kid: string; public_key: string; site_id?: string | null }>): void {
    const next = new Map<string, { key: KeyObject; site: string | null }>();
    for (const key of keys) {
      const raw = Buffer.from(key.public_key, 'base64url');
      if (raw.length !== 32) continue;
      next.set(key.kid.toUpperCase(), { key: createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' }), site: key.site_id ?? null });
    }
    this.keys = next;
  }

  get size(): number {
    return this.keys.size;
  }

  check(text: string): PassCheck {
    const parsed = parsePass(text);
    if (!parsed) return { ok: false, why: 'malformed' };
    const known = this.keys.get(parsed.kid);
    if (!known) return { ok: false, why: 'unknown_key' };
    return verify(null, Buffer.from(parsed.signedText), known.key, parsed.signature)
      ? { ok: true, claims: parsed.claims, site: known.site }
      : { ok: false, why: 'bad_signature' };
  }
}
