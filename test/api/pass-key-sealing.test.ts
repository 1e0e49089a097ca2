import { createPrivateKey, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { findPassKey, insertPassKey } from '../../server/access-codes/store.ts';
import type { PassKeyRow } from '../../server/db/schema.ts';
import { isSealed } from '../../server/secrets/secret-box.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Pass-signing private keys sign passes every kiosk admits offline: they are sealed at rest with
 * the sealing key, as webhook secrets are, so a copy of the database cannot sign a pass.
 */
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing repair' };

async function started(config: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer({ config });
  stops.push(() => server.stop());
  return server;
}

describe('pass-signing keys at rest', () => {
  it('the stored private key is sealed, not a usable key, and the passes it signs validate', async () => {
    const server = await started({ SECRETS_KEY: randomBytes(32).toString('hex') });
    const org = await server.createOrganization({ name: 'Sealed Estate' });
    const created = await org.live.post('/access-codes', visitor);
    expect(created.status).toBe(201);
    const [row, ...others] = await server.running.database.db.selectFrom('pass_keys').selectAll().execute();
    expect(others).toEqual([]);
    expect(isSealed(row!.private_key)).toBe(true);
    expect(() => createPrivateKey({ key: Buffer.from(row!.private_key, 'base64'), format: 'der', type: 'pkcs8' })).toThrow();

    const checked = await org.live.post('/access-codes/validate', { code: created.body.access_code.qr_payload });
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(true);
    // A second pass is signed with the same (sealed) key and validates too.
    const second = await org.live.post('/access-codes', visitor);
    expect((await org.live.post('/access-codes/validate', { code: second.body.access_code.qr_payload })).body.valid).toBe(true);
  });

  it('a pass signed before a restart still validates after it (the key opens again with the same SECRETS_KEY)', async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const SECRETS_KEY = randomBytes(32).toString('base64');
    const first = await startTestServer({ database, config: { SECRETS_KEY } });
    const org = await first.createOrganization({ name: 'Restart Estate' });
    const before = await org.live.post('/access-codes', { ...visitor, max_uses: 2 });
    expect(before.status).toBe(201);
    await first.stop();

    const second = await startTestServer({ database, config: { SECRETS_KEY } });
    stops.push(() => second.stop());
    const client = second.client(org.keys.live);
    const after = await client.post('/access-codes', visitor);
    expect(after.status).toBe(201);
    for (const pass of [before.body.access_code.qr_payload, after.body.access_code.qr_payload]) {
      const res = await client.post('/access-codes/validate', { code: pass });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(true);
    }
  });
});

describe('the first pass key of a tenant', () => {
  it('made by several requests at once: one key, every request answered, every pass signed with it', async () => {
    const server = await started();
    const org = await server.createOrganization({ name: 'Opening Day Estate' });
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => org.live.post('/access-codes', visitor)),
      ...Array.from({ length: 4 }, () => org.live.get('/access-codes/pass-keys')),
    ]);
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201, 200, 200, 200, 200]);
    const keys = await server.running.database.db.selectFrom('pass_keys').select('kid').where('organization_id', '=', org.organizationId).execute();
    expect(keys).toHaveLength(1);
    for (const res of answers.slice(4)) expect(res.body.keys.map((key: { kid: string }) => key.kid)).toEqual([keys[0]!.kid]);
    for (const res of answers.slice(0, 4)) {
      const checked = await org.live.post('/access-codes/validate', { code: res.body.access_code.qr_payload });
      expect(checked.body.valid).toBe(true);
    }
  });

  it('a key stored meanwhile by another request leaves the creating transaction usable', async () => {
    const server = await started();
    const org = await server.createOrganization({ name: 'Raced Estate' });
    const tenant = { organizationId: org.organizationId, environment: 'live' as const };
    const first = (await org.live.get('/access-codes/pass-keys')).body.keys[0];
    const db = server.running.database.db;
    const kid = await db.transaction().execute(async (trx) => {
      const late: PassKeyRow = {
        kid: 'LATEKID',
        organization_id: org.organizationId,
        environment: 'live',
        site_id: first.site_id,
        public_key: 'x',
        private_key: 'y',
        created_at: new Date().toISOString(),
        retired_at: null,
        accept_until: null,
      };
      expect(await insertPassKey(trx, late)).toBe(false);
      // On PostgreSQL a failed statement would have aborted the transaction: this would fail.
      return (await findPassKey(trx, tenant, first.site_id))!.kid;
    });
    expect(kid).toBe(first.kid);
  });
});
