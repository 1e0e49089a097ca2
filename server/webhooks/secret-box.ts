import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { serverKeyMadeOnce } from './store.ts';

/**
 * Webhook signing secrets and pass-signing private keys must be readable to sign with, so they
 * cannot be hashed like API keys: they are sealed with AES-256-GCM. The key comes from SECRETS_KEY (keep it apart from
 * the database, so a dump alone reveals nothing); without it, one is generated once and kept in
 * the database, so every host agrees.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || !body || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A value `seal` wrote (`v1.<iv>.<body>.<tag>`); base64 text never holds a dot, so plain values are told apart. */
export function isSealed(value: string): boolean {
  return /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}

/** `SECRETS_KEY` (64 hex characters or base64 of 32 bytes), else the database's own generated key. */
export async function loadSecretsKey(db: Db, clock: Clock, configured: string | undefined): Promise<{ key: Buffer; source: 'env' | 'database' }> {
  if (configured) {
    const key = /^[0-9a-f]{64}$/i.test(configured) ? Buffer.from(configured, 'hex') : Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes: 64 hex characters or base64');
    return { key, source: 'env' };
  }
  const value = await serverKeyMadeOnce(db, 'webhook-secrets', randomBytes(32).toString('base64'), clock.now().toISOString());
  return { key: Buffer.from(value, 'base64'), source: 'database' };
}
