import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretBox, gcmOpen, gcmSeal, sealingKey } from '../../server/secrets/secret-box.ts';
import { parseKey } from '../../server/secrets/key-source.ts';
import type { Db } from '../../server/db/schema.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../support/database.ts';
import { signedBy, stolenCopy, TEST_SECRETS_KEY } from '../support/secrets.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue #25: the sealing key never lives in the database. Where it lives instead (SECRETS_KEY,
 * or a key file of the owner's), what a start says and refuses, and the upgrade of a database
 * from a version that kept its key in the table `server_keys`.
 */
const run = promisify(execFile);
const BIN = new URL('../../bin/tsaro.js', import.meta.url).pathname;
const engine = testEngine();
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing' };
const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsaro-sealing-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}
async function started(options: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const server = await startTestServer(options);
  cleanups.push(() => server.stop());
  return server;
}
const mode = (path: string) => statSync(path).mode & 0o777;

// Engine-specific suites are registered only on their engine: CI counts a skipped test as an error.
if (engine === 'sqlite') describe('where the sealing key lives, on SQLite', () => {
  it('without SECRETS_KEY it is made in SECRETS_KEY_FILE at first start, owner-only, and the start says where and what a backup alone opens', async () => {
    const dir = tempDir();
    const keyFile = join(dir, 'config', 'tsaro', 'secrets.key');
    const db = await database();
    const printed: string[] = [];
    const first = await startTestServer({ database: db, config: { SECRETS_KEY: '', SECRETS_KEY_FILE: keyFile }, print: (text) => printed.push(text) });
    expect(mode(keyFile)).toBe(0o600);
    expect(mode(join(dir, 'config', 'tsaro'))).toBe(0o700);
    expect(printed.join('')).toContain(keyFile);
    expect(printed.join('')).toMatch(/database backup alone opens nothing/);
    const org = await first.createOrganization({ name: 'Key File Estate' });
    const endpoint = await org.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/hooks', events: ['incident.*'] });
    const code = await org.live.post('/access-codes', visitor);
    await first.stop();
    const key = readFileSync(keyFile, 'utf8');

    // The next start reads the same file, says nothing of making one, and opens what the first sealed.
    printed.length = 0;
    const second = await started({ database: db, config: { SECRETS_KEY: '', SECRETS_KEY_FILE: keyFile }, print: (text) => printed.push(text) });
    expect(readFileSync(keyFile, 'utf8')).toBe(key);
    expect(printed.join('')).not.toMatch(/created/);
    const client = second.client(org.keys.live);
    expect((await client.post('/access-codes/validate', { code: code.body.access_code.qr_payload })).body.valid).toBe(true);
    const rotated = await client.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 1 });
    expect(rotated.status).toBe(200);
  });

  it('the database, its WAL and its shared-memory file are readable by their owner only', async () => {
    const db = await database();
    const server = await started({ database: db });
    const org = await server.createOrganization({ name: 'Modes Estate' });
    expect((await org.live.post('/access-codes', visitor)).status).toBe(201);
    for (const suffix of ['', '-wal', '-shm']) {
      expect(existsSync(db.url + suffix), `${suffix || 'db'} exists`).toBe(true);
      expect(mode(db.url + suffix), `${suffix || 'db'} mode`).toBe(0o600);
    }
  });

  it("folders that exist open to others are narrowed to 0700 when they hold only Tsaro's files, and left alone when shared", async () => {
    // The data folder and the key's folder, made 0755 beforehand (by hand, an older version, a umask).
    const dir = tempDir();
    const data = join(dir, 'data');
    const config = join(dir, 'config');
    const shared = join(dir, 'shared');
    for (const folder of [data, config, shared]) {
      mkdirSync(folder, { mode: 0o755 });
      chmodSync(folder, 0o755);
    }
    writeFileSync(join(shared, 'someone-elses.txt'), 'not ours');
    const db = { url: join(data, 'tsaro.db'), engine: 'sqlite' as const, drop: async () => undefined };
    const server = await startTestServer({ database: db, config: { SECRETS_KEY: '', SECRETS_KEY_FILE: join(config, 'secrets.key') } });
    await server.stop();
    expect(mode(data)).toBe(0o700);
    expect(mode(config)).toBe(0o700);
    // A folder that also holds someone else's files keeps its mode: the database there still is owner-only.
    const elsewhere = await startTestServer({ database: { url: join(shared, 'tsaro.db'), engine: 'sqlite', drop: async () => undefined } });
    await elsewhere.stop();
    expect(mode(shared)).toBe(0o755);
    expect(mode(join(shared, 'tsaro.db'))).toBe(0o600);
  });
});

if (engine === 'postgres') describe('where the sealing key lives, on PostgreSQL', () => {
  it('a start without SECRETS_KEY or SECRETS_KEY_FILE refuses and names both: every host must hold the same key', async () => {
    const db = await database();
    await expect(startTestServer({ database: db, config: { SECRETS_KEY: '' } })).rejects.toThrow(/SECRETS_KEY .*SECRETS_KEY_FILE/);
  });

  it('a SECRETS_KEY_FILE that does not exist is refused, not made: another host would make another', async () => {
    const db = await database();
    const keyFile = join(tempDir(), 'secrets.key');
    await expect(startTestServer({ database: db, config: { SECRETS_KEY: '', SECRETS_KEY_FILE: keyFile } })).rejects.toThrow(/does not exist/);
    expect(existsSync(keyFile)).toBe(false);
  });
});

describe('a host whose key does not open the database', () => {
  it('refuses to start, naming the key the values need and SECRETS_KEY_PREVIOUS', async () => {
    const db = await database();
    const first = await startTestServer({ database: db });
    const org = await first.createOrganization({ name: 'Wrong Key Estate' });
    await org.live.post('/access-codes', visitor);
    await first.stop();
    const other = randomBytes(32).toString('hex');
    await expect(startTestServer({ database: db, config: { SECRETS_KEY: other } })).rejects.toThrow(/sealing key .*SECRETS_KEY_PREVIOUS/);
    // With the old key as SECRETS_KEY_PREVIOUS it starts, and rotation moves everything to the new one.
    const server = await started({ database: db, config: { SECRETS_KEY: other, SECRETS_KEY_PREVIOUS: TEST_SECRETS_KEY } });
    expect((await server.client(org.keys.live).post('/access-codes', visitor)).status).toBe(201);
  });
});

/** A partner's receiver on loopback: what arrived, raw. */
async function receiver() {
  const received: { headers: IncomingHttpHeaders; raw: Buffer }[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => http.close(resolve)));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`, received };
}

/**
 * Turns a database of this version into one as the previous version left it: the sealing key
 * in `server_keys`, every sealed value in the old unnamed format under that key.
 */
async function asPreviousVersion(db: Db, legacy: Buffer): Promise<void> {
  const box = createSecretBox(sealingKey(parseKey(TEST_SECRETS_KEY, 'test')));
  const old = (value: string) => `v1.${gcmSeal(legacy, box.open(value))}`;
  for (const row of await db.selectFrom('webhook_endpoints').select(['endpoint_id', 'secret', 'previous_secret']).execute()) {
    await db
      .updateTable('webhook_endpoints')
      .set({ secret: old(row.secret), previous_secret: row.previous_secret && old(row.previous_secret) })
      .where('endpoint_id', '=', row.endpoint_id)
      .execute();
  }
  for (const row of await db.selectFrom('pass_keys').select(['kid', 'private_key']).execute()) {
    await db.updateTable('pass_keys').set({ private_key: old(row.private_key) }).where('kid', '=', row.kid).execute();
  }
  for (const row of await db.selectFrom('idempotency_requests').selectAll().where('response_body', 'like', 'v2.%').execute()) {
    await db
      .updateTable('idempotency_requests')
      .set({ response_body: old(row.response_body!) })
      .where('organization_id', '=', row.organization_id)
      .where('environment', '=', row.environment)
      .where('idempotency_key', '=', row.idempotency_key)
      .execute();
  }
  await db.insertInto('server_keys').values({ name: 'webhook-secrets', value: legacy.toString('base64'), created_at: new Date().toISOString() }).execute();
}

async function tsaro(db: TestDatabase, env: Record<string, string>, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], { env: { ...process.env, DATABASE_URL: db.url, ...env } });
  return JSON.parse(stdout);
}

describe('upgrading a database whose key was kept in it', { timeout: 120_000 }, () => {
  it(engine === 'sqlite'
    ? 'the first start moves it out: everything still works, the table is empty, and a copy taken before opens nothing sealed after'
    : 'the start refuses and names export-key and rotate; after them everything works and a copy taken before opens nothing sealed after', async () => {
    const db = await database();
    const hooks = await receiver();
    const before = await startTestServer({ database: db, deliverWebhooks: false });
    const org = await before.createOrganization({ name: 'Upgrade Estate' });
    const endpoint = await org.sandbox.post('/webhook-endpoints', { url: hooks.url, events: ['incident.*'] }, idem('endpoint-before'));
    expect(endpoint.status).toBe(201);
    const oldPass = (await org.live.post('/access-codes', { ...visitor, max_uses: 3 }, idem('code-before'))).body.access_code;
    const oldKid = (await org.live.get('/access-codes/pass-keys')).body.keys[0].kid as string;
    await before.stop();

    const legacy = randomBytes(32);
    const handle = (await import('../../server/db/database.ts')).openDatabase(db.url);
    await asPreviousVersion(handle.db, legacy);
    await handle.close();
    const dir = tempDir();
    const copyBefore = stolenCopy(db, dir);
    expect(copyBefore).toContain(legacy.toString('base64'));

    const newKey = randomBytes(32).toString('hex');
    let server: TestServer;
    if (engine === 'sqlite') {
      const keyFile = join(dir, 'secrets.key');
      server = await started({ database: db, deliverWebhooks: false, config: { SECRETS_KEY: '', SECRETS_KEY_FILE: keyFile } });
    } else {
      await expect(startTestServer({ database: db, config: { SECRETS_KEY: newKey } })).rejects.toThrow(/secrets export-key.*SECRETS_KEY_PREVIOUS.*secrets rotate/);
      const exported = await tsaro(db, {}, 'secrets', 'export-key');
      expect(exported).toMatchObject({ key: legacy.toString('hex'), endpointsToRotate: 1, passKeysRetired: 1 });
      // Printed once: it is gone from the database.
      await expect(tsaro(db, {}, 'secrets', 'export-key')).rejects.toThrow();
      const during = await started({ database: db, deliverWebhooks: false, config: { SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: exported.key } });
      const rotated = await tsaro(db, { SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: exported.key }, 'secrets', 'rotate');
      expect(rotated.resealed).toBeGreaterThanOrEqual(2);
      expect(rotated.remaining).toBe(0);
      await during.stop();
      cleanups.pop();
      server = await started({ database: db, deliverWebhooks: false, config: { SECRETS_KEY: newKey } });
    }

    expect(await server.running.database.db.selectFrom('server_keys').selectAll().execute()).toEqual([]);
    const live = server.client(org.keys.live);
    const sandbox = server.client(org.keys.sandbox);
    // The webhook secret still signs, and the endpoint says it should be rotated.
    const shown = await sandbox.get(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`);
    expect(shown.body.webhook_endpoint.secret_rotation_due).toBe(true);
    const incident = await sandbox.post('/incidents', { category: 'sos', severity: 'critical', subject: { name: 'Ada Obi' }, location: { coordinates: [3.3792, 6.5244] } });
    expect(incident.status).toBe(201);
    await server.running.deliverWebhooks();
    expect(hooks.received.length).toBeGreaterThan(0);
    expect(signedBy(endpoint.body.secret, hooks.received[0]!)).toBe(true);
    // A pass signed before still validates; new passes are signed with a new key; kiosks get both.
    expect((await live.post('/access-codes/validate', { code: oldPass.qr_payload })).body.valid).toBe(true);
    const newPass = (await live.post('/access-codes', visitor)).body.access_code.qr_payload as string;
    const kids = (await live.get('/access-codes/pass-keys')).body.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids).toContain(oldKid);
    expect(newPass.includes(oldKid)).toBe(false);
    expect((await live.post('/access-codes/validate', { code: newPass })).body.valid).toBe(true);
    // Stored answers open: the plain one re-sealed, the maker's own untouched.
    const replayed = await live.post('/access-codes', { ...visitor, max_uses: 3 }, idem('code-before'));
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.access_code.code_id).toBe(oldPass.code_id);
    expect((await sandbox.post('/webhook-endpoints', { url: hooks.url, events: ['incident.*'] }, idem('endpoint-before'))).body.secret).toBe(endpoint.body.secret);
    // Rotating the secret clears the mark.
    const rotated = await sandbox.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 1 });
    expect(rotated.body.webhook_endpoint.secret_rotation_due).toBe(false);

    // Nothing in the copy taken before the upgrade opens anything sealed after it.
    const after = stolenCopy(db, dir);
    const sealedAfter = [...after.matchAll(/v2\.[\w-]{8}\.([\w-]{16})\.([\w-]+)\.([\w-]{22})/g)].map(([, iv, body, tag]) => [iv!, body!, tag!]);
    expect(sealedAfter.length).toBeGreaterThanOrEqual(3);
    expect(after).not.toMatch(/v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}/);
    const candidates = [legacy, ...[...copyBefore.matchAll(/[A-Za-z0-9+/]{43}=/g)].map(([b64]) => Buffer.from(b64, 'base64')).filter((b) => b.length === 32)];
    for (const key of candidates) for (const value of sealedAfter) expect(() => gcmOpen(key, value)).toThrow();
  });
});
