import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { parsePass, type PassClaims } from '../../shared/pass.ts';

/** Raw 32-byte Ed25519 public keys are the DER SPKI minus this fixed 12-byte prefix. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export type PassCheck = { ok: true; claims: PassClaims } | { ok: false; why: 'malformed' | 'unknown_key' | 'bad_signature' };

/** Verifies signed passes against the organization's public keys, parsed once and kept. */
export class PassVerifier {
  private keys = new Map<string, KeyObject>();

  setKeys(keys: Array<{ kid: string; public_key: string }>): void {
    const next = new Map<string, KeyObject>();
    for (const key of keys) {
      const raw = Buffer.from(key.public_key, 'base64url');
      if (raw.length !== 32) continue;
      next.set(key.kid.toUpperCase(), createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' }));
    }
    this.keys = next;
  }

  get size(): number {
    return this.keys.size;
  }

  check(text: string): PassCheck {
    const parsed = parsePass(text);
    if (!parsed) return { ok: false, why: 'malformed' };
    const key = this.keys.get(parsed.kid);
    if (!key) return { ok: false, why: 'unknown_key' };
    return verify(null, Buffer.from(parsed.signedText), key, parsed.signature) ? { ok: true, claims: parsed.claims } : { ok: false, why: 'bad_signature' };
  }
}
