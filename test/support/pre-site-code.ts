import { passKeyOf, signPass } from '../../server/access-codes/pass-keys.ts';
import type { Db } from '../../server/db/schema.ts';
import { parseKey } from '../../server/secrets/key-source.ts';
import { createSecretBox, sealingKey } from '../../server/secrets/secret-box.ts';
import { systemClock } from '../../server/clock.ts';
import { TEST_SECRETS_KEY } from './secrets.ts';

/**
 * Turns a code just made through the API into one made before sites (issue #34), as a database
 * upgraded from then holds it: no site, and its pass signed with the organization's key (made
 * here as the server made it then), not a site's. Test servers seal with TEST_SECRETS_KEY.
 */
export async function asMadeBeforeSites(db: Db, organizationId: string, codeId: string): Promise<{ qr_payload: string; kid: string }> {
  const secretBox = createSecretBox(sealingKey(parseKey(TEST_SECRETS_KEY, 'TEST_SECRETS_KEY')));
  const row = await db.selectFrom('access_codes').selectAll().where('organization_id', '=', organizationId).where('code_id', '=', codeId).executeTakeFirstOrThrow();
  const tenant = { organizationId, environment: row.environment };
  const key = await passKeyOf(db, { clock: systemClock, secretBox }, tenant, null);
  const qr_payload = signPass(secretBox, key, {
    code: row.code,
    codeId,
    validFrom: Date.parse(row.valid_from),
    validUntil: Date.parse(row.valid_until),
    maxUses: Number(row.max_uses),
  });
  await db.updateTable('access_codes').set({ site_id: null, entry_point_id: null, qr_payload }).where('code_id', '=', codeId).execute();
  return { qr_payload, kid: key.kid };
}
