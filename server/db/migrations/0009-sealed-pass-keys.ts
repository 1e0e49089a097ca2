import type { Kysely, Migration } from 'kysely';
import { isSealed, type SecretBox } from '../../secrets/secret-box.ts';
import type { Db } from '../schema.ts';

/**
 * Pass-signing private keys were stored as plain base64 DER: anyone who could read the
 * database could sign passes every kiosk admits offline. They are sealed here with the sealing
 * key (server/secrets/), asked for only when a plain key is found, so a database made after
 * this migration never needs one to migrate. Rows already sealed are left alone. There is no
 * way back: a down migration would write the keys out in the clear again.
 */
export function sealedPassKeys(secretBox: () => SecretBox): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tsaro = db as unknown as Db;
      const rows = await tsaro.selectFrom('pass_keys').select(['kid', 'private_key']).execute();
      for (const row of rows) {
        if (isSealed(row.private_key)) continue;
        await tsaro.updateTable('pass_keys').set({ private_key: secretBox().seal(row.private_key) }).where('kid', '=', row.kid).execute();
      }
    },
  };
}
