import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { passKeyOf, publicPassKeys, signPass, verifyPass } from '../../server/access-codes/pass-keys.ts';
import { insertPassKey } from '../../server/access-codes/store.ts';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import type { PassKeyRow } from '../../server/db/schema.ts';
import { createSecretBox, sealingKey, type SecretBox } from '../../server/secrets/secret-box.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const MIGRATION = '0033-site-pass-keys';
const migrations = serverMigrations(withoutSealingKey);
const names = Object.keys(migrations);
const upTo = (last: string) => Object.fromEntries(names.slice(0, names.indexOf(last) + 1).map((n) => [n, migrations[n]!]));
const before = Object.fromEntries(names.slice(0, names.indexOf(MIGRATION)).map((n) => [n, migrations[n]!]));

describe(`migration ${MIGRATION}`, () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
    opened = database = undefined;
  });

  it("keeps the keys from before as the organization's, still verifying their passes, and lets each site have a signing key beside it", async () => {
    database = await createTestDatabase();
    opened = openDatabase(database.url);
    const db = opened.db;
    await migrateToLatest(db, before);

    // A database of the release before: an organization, its default site, its signing key in
    // each environment (and one retired still accepted), and a code whose pass that key signed.
    const now = new Date('2026-11-22T10:00:00.000Z');
    const at = now.toISOString();
    const clock = { now: () => now };
    const secretBox = createSecretBox(sealingKey(randomBytes(32)));
    await db
      .insertInto('organizations')
      .values({ organization_id: 'org_a', name: 'Admiralty', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: at, updated_at: at } as never)
      .execute();
    await db
      .insertInto('sites')
      .values({ site_id: 'site_home', organization_id: 'org_a', name: 'Admiralty', address: null, latitude: null, longitude: null, time_zone: 'Africa/Lagos', call_list: '[]', is_default: 1, archived_at: null, created_at: at, updated_at: at } as never)
      .execute();
    const live = { organizationId: 'org_a', environment: 'live' };
    const sandbox = { organizationId: 'org_a', environment: 'sandbox' };
    // Made by the release before, which knew no site: stored without the column.
    const asBefore = ({ site_id: _s, ...row }: PassKeyRow) => row;
    const orgKey = keyRow('KIDORGLV', live, secretBox, at);
    const sandboxKey = keyRow('KIDORGSB', sandbox, secretBox, at);
    const retired = { ...keyRow('KIDOLDLV', live, secretBox, at), private_key: '', retired_at: at, accept_until: '2026-12-01T00:00:00.000Z' };
    await db.insertInto('pass_keys').values([asBefore(orgKey), asBefore(sandboxKey), asBefore(retired)] as PassKeyRow[]).execute();
    const claims = { code: 'AB-2345', codeId: 'code_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', validFrom: now.getTime(), validUntil: now.getTime() + 86_400_000, maxUses: 1 };
    const oldPass = signPass(secretBox, orgKey, claims);

    expect(await migrateToLatest(db, upTo(MIGRATION))).toEqual([MIGRATION]);

    const rows = await db.selectFrom('pass_keys').select(['kid', 'site_id']).orderBy('kid').execute();
    expect(rows).toEqual([
      { kid: 'KIDOLDLV', site_id: null },
      { kid: 'KIDORGLV', site_id: null },
      { kid: 'KIDORGSB', site_id: null },
    ]);
    // The organization's key still signs a code without a site, and is still one per environment.
    expect((await passKeyOf(db, { clock, secretBox }, live, null)).kid).toBe('KIDORGLV');
    expect(await insertPassKey(db, { ...keyRow('KIDORG2L', live, secretBox, at), site_id: null })).toBe(false);
    // A site gets a signing key of its own beside it, one per environment too.
    const siteKey = await passKeyOf(db, { clock, secretBox }, live, 'site_home');
    expect(siteKey).toMatchObject({ site_id: 'site_home', retired_at: null });
    expect(siteKey.kid).not.toBe('KIDORGLV');
    expect((await passKeyOf(db, { clock, secretBox }, live, 'site_home')).kid).toBe(siteKey.kid);
    expect(await insertPassKey(db, { ...keyRow('KIDSITE2', live, secretBox, at), site_id: 'site_home' })).toBe(false);
    expect((await passKeyOf(db, { clock, secretBox }, sandbox, 'site_home')).kid).not.toBe(siteKey.kid);

    // The pass signed before verifies with the keys a kiosk gets, of every site or of its own.
    const everySite = await publicPassKeys(db, live, now);
    expect(everySite.map((key) => key.kid).sort()).toEqual(['KIDOLDLV', 'KIDORGLV', siteKey.kid].sort());
    expect(verifyPass(oldPass, everySite)).toEqual(claims);
    const ofTheSite = await publicPassKeys(db, live, now, 'site_home');
    expect(verifyPass(oldPass, ofTheSite)).toEqual(claims);
    expect(verifyPass(oldPass, await publicPassKeys(db, live, now, 'site_other'))).toEqual(claims);
  });
});

/** A pass-signing key as the server makes one (sealed private key). */
function keyRow(kid: string, tenant: { organizationId: string; environment: string }, secretBox: SecretBox, at: string): PassKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    kid,
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    public_key: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64url'),
    private_key: secretBox.seal(privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')),
    created_at: at,
    retired_at: null,
    accept_until: null,
  };
}
