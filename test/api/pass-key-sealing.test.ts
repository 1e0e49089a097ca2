import { createPrivateKey, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { findPassKey, insertPassKey } from '../../server/access-codes/store.ts';
import { loadConfig } from '../../server/config.ts';
import type { PassKeyRow } from '../../server/db/schema.ts';
import { startServer } from '../../server/server.ts';
import { isSealed } from '../../server/webhooks/secret-box.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Pass-signing private keys sign passes every kiosk admits offline: they are sealed at rest with
 * SECRETS_KEY, as webhook secrets are, so a copy of the database cannot sign a pass.
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

describe('where the secrets key lives', () => {
  async function warningsAtStart(config: Record<string, string>): Promise<string[]> {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const running = await startServer(
      loadConfig({ PORT: '0', DEMO: '0', THREAT_SEED: '0', LOG_LEVEL: 'warn', DATABASE_URL: database.url, ...config }),
      { logger: pino({ level: 'warn' }, sink), deliverWebhooks: false, runDispatch: false },
    );
    await running.stop();
    return lines.map((line) => (JSON.parse(line) as { level: number; msg: string })).filter((e) => e.level === 40).map((e) => e.msg);
  }

  it('without SECRETS_KEY the server warns at start, on SQLite as on PostgreSQL, that the key is in the same database', async () => {
    const warnings = await warningsAtStart({});
    expect(warnings).toContainEqual(expect.stringMatching(/SECRETS_KEY is not set.*pass-signing keys.*same database/));
  });

  it('with SECRETS_KEY set there is no such warning', async () => {
    const warnings = await warningsAtStart({ SECRETS_KEY: randomBytes(32).toString('hex') });
    expect(warnings.filter((w) => w.includes('SECRETS_KEY'))).toEqual([]);
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
        public_key: 'x',
        private_key: 'y',
        created_at: new Date().toISOString(),
      };
      expect(await insertPassKey(trx, late)).toBe(false);
      // On PostgreSQL a failed statement would have aborted the transaction: this would fail.
      return (await findPassKey(trx, tenant))!.kid;
    });
    expect(kid).toBe(first.kid);
  });
});
