import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../../shared/schemas/common.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{32,128}$/;

/** Uniform base62 characters from the CSPRNG (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function newKeySecret(environment: Environment): string {
  return `svc_${environment === 'live' ? 'live' : 'test'}_${randomBase62(SECRET_LENGTH)}`;
}

/**
 * SHA-256 is right for a 238-bit random secret: nothing to brute-force, and a lookup by hash
 * needs a deterministic digest (a slow salted hash is for low-entropy passwords). Every
 * authenticated request hashes its key: the one-shot `hash` makes no Hash object.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** `svc_test_…x9Ab`: enough to tell keys apart in a list, useless to an attacker. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, 9)}…${secret.slice(-4)}`;
}
