import type { Kysely, Migration } from 'kysely';
import { systemClock } from '../../clock.ts';
import { createSecretBox, isSealed, loadSecretsKey } from '../../webhooks/secret-box.ts';
import type { Db } from '../schema.ts';

/**
 * Pass-signing private keys were stored as plain base64 DER: anyone who could read the
 * database could sign passes every kiosk admits offline. They are sealed here with the key
 * webhook secrets use (SECRETS_KEY, else the one kept in the database), so this migration is
 * made with the configured key. Rows already sealed are left alone. There is no way back: a
 * down migration would write the keys out in the clear again.
 */
export function sealedPassKeys(secretsKey: string | undefined): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tsaro = db as unknown as Db;
      const { key } = await loadSecretsKey(tsaro, systemClock, secretsKey);
      const box = createSecretBox(key);
      const rows = await tsaro.selectFrom('pass_keys').select(['kid', 'private_key']).execute();
      for (const row of rows) {
        if (isSealed(row.private_key)) continue;
        await tsaro.updateTable('pass_keys').set({ private_key: box.seal(row.private_key) }).where('kid', '=', row.kid).execute();
      }
    },
  };
}
