import { narrowOwnFolder } from '../../shared/node/owner-only-files.ts';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import type { Engine } from '../db/database.ts';
import { createSecretBox, sealingKey, type SealingKey, type SecretBox } from './secret-box.ts';

/** Where the sealing key is kept when SECRETS_KEY is not set: outside the data folder, so a copy of the data opens nothing. */
export const DEFAULT_SECRETS_KEY_FILE = '~/.config/tsaro/secrets.key';

export interface SealingKeySettings {
  SECRETS_KEY?: string;
  SECRETS_KEY_FILE?: string;
  SECRETS_KEY_PREVIOUS?: string;
}

export interface LoadedKeys {
  box: SecretBox;
  current: SealingKey;
  previous: SealingKey[];
  /** Where the current key came from, for the start's message. */
  source: { kind: 'env' } | { kind: 'file'; path: string; created: boolean };
}

/** A setting is wrong or missing: the start (or the command) stops with this message. */
export class SealingKeyError extends Error {}

/** 64 hex characters, or base64 (or base64url) of 32 bytes; anything else names the setting. */
export function parseKey(text: string, setting: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new SealingKeyError(`${setting} must be 32 bytes: 64 hex characters or base64`);
  return key;
}

export function expandHome(path: string): string {
  return resolve(path.startsWith('~/') ? `${homedir()}${path.slice(1)}` : path);
}

/**
 * The sealing keys this host holds: SECRETS_KEY, else the key file. On SQLite (one host) a
 * missing file is made on first start, readable by its owner only. PostgreSQL serves several
 * hosts, which must all hold the same key, so there the operator sets SECRETS_KEY or points
 * SECRETS_KEY_FILE at a file they made: a start that would invent a key of its own refuses.
 */
export function loadSealingKeys(settings: SealingKeySettings, engine: Engine): LoadedKeys {
  const previous = (settings.SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((text) => text.trim())
    .map((text) => sealingKey(parseKey(text, 'SECRETS_KEY_PREVIOUS')));
  if (settings.SECRETS_KEY) {
    const current = sealingKey(parseKey(settings.SECRETS_KEY, 'SECRETS_KEY'));
    return keys(current, previous, { kind: 'env' });
  }
  if (engine === 'postgres' && !settings.SECRETS_KEY_FILE) {
    throw new SealingKeyError(
      'PostgreSQL serves several hosts, which must seal with the same key: set SECRETS_KEY (64 hex characters) or SECRETS_KEY_FILE (a file holding it, readable by this user only) on every host. ' +
        'Make one with: umask 077; openssl rand -hex 32 > /etc/tsaro/secrets.key',
    );
  }
  const path = expandHome(settings.SECRETS_KEY_FILE ?? DEFAULT_SECRETS_KEY_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new SealingKeyError(`SECRETS_KEY_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  if (text !== undefined) {
    ownerOnly(path);
    return keys(sealingKey(parseKey(text, `SECRETS_KEY_FILE (${path})`)), previous, { kind: 'file', path, created: false });
  }
  if (engine === 'postgres') {
    throw new SealingKeyError(`SECRETS_KEY_FILE ${path} does not exist: put the same key file on every host (umask 077; openssl rand -hex 32 > ${path}), or set SECRETS_KEY`);
  }
  const made = randomBytes(32);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // 'wx': two processes starting at once (the server and the CLI) must not each write a key.
    writeFileSync(path, `${made.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new SealingKeyError(`SECRETS_KEY_FILE ${path} cannot be written: ${(err as Error).message}`);
    return loadSealingKeys(settings, engine);
  }
  ownerOnly(path);
  return keys(sealingKey(made), previous, { kind: 'file', path, created: true });
}

function keys(current: SealingKey, previous: SealingKey[], source: LoadedKeys['source']): LoadedKeys {
  return { box: createSecretBox(current, previous), current, previous, source };
}

/** A key file others can read is made the owner's alone (it was, perhaps, copied with cp). */
function ownerOnly(path: string): void {
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  narrowOwnFolder(dirname(path), (name) => name === basename(path));
}
