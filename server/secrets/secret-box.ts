import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * What cannot be hashed because the server must use it again - webhook signing secrets,
 * pass-signing private keys, stored idempotent answers - is sealed with AES-256-GCM under the
 * sealing key, which never lives in the database (server/secrets/key-source.ts).
 *
 * A sealed value names the key that sealed it: `v2.<key id>.<iv>.<ciphertext>.<tag>`. A host that
 * holds the new key and the previous one (SECRETS_KEY, SECRETS_KEY_PREVIOUS) opens both while
 * `tsaro secrets rotate` re-seals every value under the new one. `v1.<iv>.<ciphertext>.<tag>`,
 * written before values named their key, is opened by trying each key held: GCM's tag tells the
 * right key from a wrong one.
 */
export interface SecretBox {
  /** The id of the key new values are sealed with. */
  readonly keyId: string;
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** Whether a sealed value was sealed with another key than the current one (rotation's work). */
  isStale(sealed: string): boolean;
}

export interface SealingKey {
  /** Eight characters derived from the key: names it in sealed values and messages, reveals nothing of it. */
  id: string;
  key: Buffer;
}

export function sealingKey(key: Buffer): SealingKey {
  if (key.length !== 32) throw new Error('a sealing key must be 32 bytes');
  return { id: keyIdOf(key), key };
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('tsaro sealing key id\0').update(key).digest('base64url').slice(0, 8);
}

/** Seals with `current`; opens values sealed with it or with any of `previous`. */
export function createSecretBox(current: SealingKey, previous: readonly SealingKey[] = []): SecretBox {
  const byId = new Map<string, SealingKey>([current, ...previous].map((k) => [k.id, k]));
  const held = [current, ...previous];
  return {
    keyId: current.id,
    seal(plaintext) {
      return `v2.${current.id}.${gcmSeal(current.key, plaintext)}`;
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts[0] === 'v2' && parts.length === 5) {
        const key = byId.get(parts[1]!);
        if (!key) throw new SealingKeyMissing(parts[1]!);
        return gcmOpen(key.key, parts.slice(2));
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        for (const key of held) {
          try {
            return gcmOpen(key.key, parts.slice(1));
          } catch {
            // not this key: GCM's tag refuses it; try the next
          }
        }
        throw new SealingKeyMissing('(unnamed, v1)');
      }
      throw new Error('not a sealed secret');
    },
    isStale(sealed) {
      return isSealed(sealed) && !sealed.startsWith(`v2.${current.id}.`);
    },
  };
}

/** A value sealed with a key this host does not hold: the configured keys are wrong or incomplete. */
export class SealingKeyMissing extends Error {
  constructor(readonly keyId: string) {
    super(`a sealed value needs sealing key ${keyId}, which this host does not hold (SECRETS_KEY, SECRETS_KEY_FILE, SECRETS_KEY_PREVIOUS)`);
  }
}

/** A value `seal` wrote (either version); base64url text never holds a dot, so plain values are told apart. */
export function isSealed(value: string): boolean {
  return /^v2\.[\w-]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/.test(value) || /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}

/** `<iv>.<ciphertext>.<tag>` in base64url, under a fresh 96-bit IV. */
export function gcmSeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

/** Opens `[iv, ciphertext, tag]`; throws when the key is wrong or the value was altered. */
export function gcmOpen(key: Buffer, [iv, body, tag]: string[]): string {
  if (!iv || body === undefined || !tag) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
