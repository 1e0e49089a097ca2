import type { Clock } from '../clock.ts';
import type { OpenedDatabase } from '../db/database.ts';
import type { Db, Executor } from '../db/schema.ts';
import { retireSigningKeys } from '../access-codes/pass-keys.ts';
import { markSecretsForRotation } from '../webhooks/service.ts';
import { SealingKeyError } from './key-source.ts';
import { resealAll } from './rotation.ts';
import { eraseLegacyKey, findLegacyKey } from './store.ts';
import { createSecretBox, keyIdOf, sealingKey, type SealingKey } from './secret-box.ts';

export interface LegacyKeyUpgrade {
  /** The id of the key that had been kept in the database, now erased from it. */
  erasedKeyId: string;
  resealed: number;
  endpointsToRotate: number;
  passKeysRetired: number;
}

/**
 * Whoever copied the database while it held its own sealing key can open what was sealed then:
 * the webhook secrets (marked for the partner to rotate) and the pass-signing keys (retired:
 * new passes are signed with a new key; kiosks accept the old one until its last pass expires).
 */
async function retireWhatTheCopyOpens(trx: Executor, clock: Clock): Promise<{ endpointsToRotate: number; passKeysRetired: number }> {
  const now = clock.now();
  return { endpointsToRotate: await markSecretsForRotation(trx, now.toISOString()), passKeysRetired: await retireSigningKeys(trx, now) };
}

/**
 * A database from before the sealing key left it. On SQLite (one host) the first start of this
 * version does the whole upgrade in one transaction: every value is re-sealed under the host's
 * key, what a copy would open is retired, and the stored key is erased. On PostgreSQL other
 * hosts may still be running the old version, so the start refuses and names the operator's two
 * commands. Undefined when there is nothing to upgrade.
 */
export async function upgradeFromDatabaseKey(
  database: Pick<OpenedDatabase, 'db' | 'engine' | 'scrub'>,
  clock: Clock,
  current: SealingKey,
  previous: readonly SealingKey[],
): Promise<LegacyKeyUpgrade | undefined> {
  const { db, engine } = database;
  const legacy = await findLegacyKey(db);
  if (!legacy) return undefined;
  if (engine === 'postgres') {
    throw new SealingKeyError(
      `This database keeps its sealing key in the table server_keys (key ${keyIdOf(legacy)}), so a copy of it opens every secret. To move it out, with every host stopped: ` +
        '1) `npx tsaro secrets export-key` prints it once and erases it from the database; ' +
        '2) start every host with a new SECRETS_KEY and that key as SECRETS_KEY_PREVIOUS, then run `npx tsaro secrets rotate`, which re-seals everything under the new key.',
    );
  }
  const upgraded = await db.transaction().execute(async (trx) => {
    const box = createSecretBox(current, [...previous, sealingKey(legacy)]);
    const resealed = await resealAll(trx, box);
    const retired = await retireWhatTheCopyOpens(trx, clock);
    await eraseLegacyKey(trx);
    return { erasedKeyId: keyIdOf(legacy), resealed, ...retired };
  });
  // Erased from the table is not erased from the file: the old key and values would still lie in
  // free pages and old WAL frames, for a copy taken after the upgrade to find.
  database.scrub?.();
  return upgraded;
}

/**
 * `tsaro secrets export-key`: the database-kept key, printed once and erased in the same
 * transaction that retires what a copy opens. The operator gives it to every host as
 * SECRETS_KEY_PREVIOUS, so values sealed with it still open until `tsaro secrets rotate`.
 */
export async function exportDatabaseKey(db: Db, clock: Clock): Promise<({ key: string; key_id: string } & Omit<LegacyKeyUpgrade, 'erasedKeyId' | 'resealed'>) | undefined> {
  return db.transaction().execute(async (trx) => {
    const legacy = await findLegacyKey(trx);
    if (!legacy) return undefined;
    const retired = await retireWhatTheCopyOpens(trx, clock);
    await eraseLegacyKey(trx);
    return { key: legacy.toString('hex'), key_id: keyIdOf(legacy), ...retired };
  });
}

