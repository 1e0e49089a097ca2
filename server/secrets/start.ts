import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { OpenedDatabase } from '../db/database.ts';
import { loadSealingKeys, SealingKeyError, type LoadedKeys } from './key-source.ts';
import { upgradeFromDatabaseKey } from './legacy-key.ts';
import { checkKeysOpen } from './rotation.ts';
import { SealingKeyMissing } from './secret-box.ts';

export { loadSealingKeys, SealingKeyError };

/**
 * After migrations: a database that still keeps its own key is upgraded (SQLite) or refused
 * (PostgreSQL), and a host whose keys do not open what the database holds refuses to start.
 * Says where the key is, and what that means for a backup.
 */
export async function readySealing(database: OpenedDatabase, keys: LoadedKeys, clock: Clock, logger: Logger, print: (text: string) => void): Promise<void> {
  const { db } = database;
  const upgrade = await upgradeFromDatabaseKey(database, clock, keys.current, keys.previous);
  if (upgrade) {
    logger.warn(
      { ...upgrade, keyId: keys.current.id },
      'the sealing key kept in the database was erased from it and every secret re-sealed under this host\'s key; backups taken before now still open the old secrets: webhook endpoints are marked secret_rotation_due and pass-signing keys were replaced',
    );
  }
  try {
    await checkKeysOpen(db, keys.box);
  } catch (err) {
    if (!(err instanceof SealingKeyMissing)) throw err;
    throw new SealingKeyError(
      `${err.message}. This host holds key ${keys.current.id}${keys.previous.length ? ` and previous ${keys.previous.map((k) => k.id).join(', ')}` : ''} (${describeSource(keys)}). ` +
        'Restore the key file this database was used with, or give the old key as SECRETS_KEY_PREVIOUS and run `npx tsaro secrets rotate`.',
    );
  }
  logger.info({ keyId: keys.current.id, source: describeSource(keys) }, 'sealing key loaded; it is not in the database, so a database backup alone opens no secret');
  if (keys.source.kind === 'file' && keys.source.created) {
    print(
      [
        '',
        `Sealing key created: ${keys.source.path} (readable by this user only).`,
        'It seals webhook secrets, pass-signing keys and stored answers. It is not in the database,',
        'so a database backup alone opens nothing: back this file up apart from the database.',
        '',
      ].join('\n'),
    );
  }
}

function describeSource(keys: LoadedKeys): string {
  return keys.source.kind === 'env' ? 'SECRETS_KEY' : `SECRETS_KEY_FILE ${keys.source.path}`;
}
