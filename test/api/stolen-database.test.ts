import { createPrivateKey, generateKeyPairSync, hkdfSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassVerifier } from '../../electron/core/caches/pass-verifier.ts';
import { gcmOpen } from '../../server/secrets/secret-box.ts';
import { assemblePass, parsePass, passSigningText } from '../../shared/pass.ts';
import { joinConsole } from '../support/console.ts';
import { stolenCopy, TEST_SECRETS_KEY } from '../support/secrets.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #25: a copy of the database - the SQLite files as they lie on disk, or a `pg_dump` -
 * opens nothing. Everything a partner was shown once is made here, several with an
 * Idempotency-Key (so their answers are stored), then the database is copied and searched the
 * way a thief would: for the secrets themselves, for anything that opens a sealed value, and for
 * a key that signs a pass a kiosk admits.
 */
const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing' };

let server: TestServer;
let org: TestOrganization;
const shown: string[] = [];
let copy: string;
const people: { cookie: string; totpSecret: string; recoveryCodes: string[] }[] = [];
let inviteToken = '';
const workDir = mkdtempSync(join(tmpdir(), 'tsaro-stolen-'));

beforeAll(async () => {
  server = await startTestServer();
  org = await server.createOrganization({ name: 'Stolen Estate' });
  shown.push(org.keys.live, org.keys.sandbox);
  const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });

  for (const [client, env] of [[org.live, 'live'], [org.sandbox, 'sandbox']] as const) {
    const key = await client.post('/api-keys', { name: `Gate ${env}`, scopes: ['access_codes:validate'] }, idem(`key-${env}`));
    expect(key.status).toBe(201);
    shown.push(key.body.secret);
    const rolled = await client.post(`/api-keys/${key.body.api_key.key_id}/roll`, {}, idem(`roll-${env}`));
    expect(rolled.status).toBe(201);
    shown.push(rolled.body.secret);
    const url = env === 'live' ? 'https://8.8.8.8/hooks' : 'http://127.0.0.1:9/hooks';
    const endpoint = await client.post('/webhook-endpoints', { url, events: ['incident.*'] }, idem(`whe-${env}`));
    expect(endpoint.status).toBe(201);
    shown.push(endpoint.body.secret);
    const rotated = await client.post(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/rotate-secret`, { expires_in_hours: 24 }, idem(`rot-${env}`));
    expect(rotated.status).toBe(200);
    shown.push(rotated.body.secret);
    for (let i = 0; i < 3; i++) {
      const code = await client.post('/access-codes', visitor, idem(`code-${env}-${i}`));
      expect(code.status).toBe(201);
    }
  }
  // The console: a person signed in with a second factor (a session, a TOTP secret, recovery codes), and an unused invitation.
  const person = await joinConsole(server, org.organizationId, 'owner');
  people.push({ cookie: person.browser.cookie!.split('=')[1]!, totpSecret: person.totpSecret!, recoveryCodes: person.recoveryCodes });
  const { inviteOrReset } = await import('../../server/people/service.ts');
  const unused = await inviteOrReset({ db: server.running.database.db, clock: server.clock, publicUrl: 'https://console.example' }, { organizationId: org.organizationId, email: 'later@estate.example', role: 'admin' });
  inviteToken = unused.invite_url.split('/').pop()!;
  copy = stolenCopy(server.database, workDir);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/**
 * The server runs in this process: a long synchronous search would hold its timers too, and a
 * keep-alive connection both sides meant to close could be reused as it closes (ECONNRESET).
 */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

/** Every string in the copy that could be a 32-byte key: hex, base64 or base64url. */
function candidateKeys(text: string): Buffer[] {
  const found = new Map<string, Buffer>();
  for (const [hex] of text.matchAll(/[0-9a-fA-F]{64}/g)) found.set(`h${hex}`, Buffer.from(hex, 'hex'));
  for (const [b64] of text.matchAll(/[A-Za-z0-9+/_-]{43}={0,1}/g)) {
    const raw = Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64');
    if (raw.length === 32) found.set(`b${b64}`, raw);
  }
  return [...found.values()];
}

function sealedValues(text: string): string[][] {
  const values: string[][] = [];
  for (const [, iv, body, tag] of text.matchAll(/v2\.[\w-]{8}\.([\w-]{16})\.([\w-]+)\.([\w-]{22})/g)) values.push([iv!, body!, tag!]);
  for (const [, iv, body, tag] of text.matchAll(/v1\.([\w-]{16})\.([\w-]+)\.([\w-]{22})/g)) values.push([iv!, body!, tag!]);
  return values;
}

describe('a copy of the database opens nothing', () => {
  it('holds no secret a partner was shown: API keys, webhook secrets, rolled keys', () => {
    expect(shown.length).toBe(10);
    for (const secret of shown) expect(copy.includes(secret), `${secret.slice(0, 12)}… is in the copy`).toBe(false);
  });

  it('keeps no sealing key: server_keys is empty and no string in the copy opens any sealed value', async () => {
    const left = await server.running.database.db.selectFrom('server_keys').selectAll().execute();
    expect(left).toEqual([]);
    expect(copy.toLowerCase().includes(TEST_SECRETS_KEY)).toBe(false);
    const sealed = sealedValues(copy);
    // Endpoint secrets (2 current, 2 previous), 2 pass-signing keys, and the stored plain answers (6 codes).
    expect(sealed.length).toBeGreaterThanOrEqual(12);
    const candidates = candidateKeys(copy);
    expect(candidates.length).toBeGreaterThan(0);
    for (const key of candidates) {
      for (const value of sealed) expect(() => gcmOpen(key, value)).toThrow();
      await breathe();
    }
  });

  it('answers that carried a secret are sealed for their maker: nothing in the copy opens them', async () => {
    const makerSealed = [...copy.matchAll(/k1\.([\w-]{16})\.([\w-]+)\.([\w-]{22})/g)].map(([, iv, body, tag]) => [iv!, body!, tag!]);
    // Key creation, roll, endpoint creation and rotation, in each environment.
    expect(makerSealed.length).toBeGreaterThanOrEqual(8);
    const credentials = [...new Set([...copy.matchAll(/svc_(?:live|test)_[0-9A-Za-z]{32,128}/g)].map(([m]) => m))];
    expect(credentials).toEqual([]);
    // What the copy does hold about each key: its hash and its hint. Neither opens the answer.
    const hashes = [...new Set([...copy.matchAll(/[0-9a-f]{64}/g)].map(([m]) => m))];
    for (const value of makerSealed) {
      await breathe();
      for (const guess of hashes) {
        for (const scope of [`${org.organizationId}\nlive\nkey-live`, `${org.organizationId}\nsandbox\nkey-sandbox`]) {
          const key = Buffer.from(hkdfSync('sha256', guess, 'tsaro idempotent answer', scope, 32));
          expect(() => gcmOpen(key, value)).toThrow();
        }
      }
    }
  });

  it('no key in the copy signs a pass a kiosk admits, for a code that never existed', async () => {
    const keys = (await org.live.get('/access-codes/pass-keys')).body.keys as Array<{ kid: string; public_key: string }>;
    const kiosk = new PassVerifier();
    kiosk.setKeys(keys);
    const real = (await org.live.post('/access-codes', visitor)).body.access_code.qr_payload as string;
    expect(kiosk.check(real).ok).toBe(true);

    // Every base64 string in the copy that parses as a private key, and a fresh key under the real kid.
    const privateKeys: KeyObject[] = [generateKeyPairSync('ed25519').privateKey];
    for (const [b64] of copy.matchAll(/[A-Za-z0-9+/]{60,}={0,2}/g)) {
      try {
        privateKeys.push(createPrivateKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'pkcs8' }));
      } catch {
        // not a key
      }
    }
    expect(privateKeys).toHaveLength(1);
    const genuine = parsePass(real)!.claims;
    // Another code of the same shape, never issued: the same prefix, other characters, another id.
    const claims = { ...genuine, code: `${genuine.code.split('-')[0]}-ZZZZ`, codeId: `${genuine.codeId.slice(0, -4)}ZZZZ` };
    expect(parsePass(assemblePass(passSigningText(keys[0]!.kid, claims), Buffer.alloc(64)))).toBeDefined();
    for (const privateKey of privateKeys) {
      const text = passSigningText(keys[0]!.kid, claims);
      const forged = assemblePass(text, sign(null, Buffer.from(text), privateKey));
      expect(kiosk.check(forged)).toEqual({ ok: false, why: 'bad_signature' });
      const res = await org.live.post('/access-codes/validate', { code: forged });
      expect(res.body.valid).toBe(false);
    }
  });

  it('yields no working console session, invitation, TOTP secret or recovery code', async () => {
    const [person] = people;
    for (const secret of [person!.cookie, inviteToken, person!.totpSecret, ...person!.recoveryCodes, ...person!.recoveryCodes.map((c) => c.replace(/-/g, ''))]) {
      expect(copy.includes(secret), `${secret.slice(0, 6)}… is in the copy`).toBe(false);
    }
    // What the copy holds of them - hashes and the sealed secret - opens nothing: a hash is no cookie, and no link.
    const hashes = [...new Set([...copy.matchAll(/[0-9a-f]{64}/g)].map(([m]) => m))];
    expect(hashes.length).toBeGreaterThan(0);
    for (const hash of hashes.slice(0, 200)) {
      const asCookie = await fetch(`${server.baseUrl}/console/session`, { headers: { cookie: `tsaro_console=${Buffer.from(hash, 'hex').toString('base64url')}` } });
      expect(asCookie.status).toBe(401);
    }
    expect((await server.client().get(`/console/invitations/${inviteToken}`)).status).toBe(200);
    for (const hash of hashes.slice(0, 50)) {
      expect((await server.client().get(`/console/invitations/${Buffer.from(hash, 'hex').toString('base64url')}`)).status).toBe(404);
    }
  });
});
