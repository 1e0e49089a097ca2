import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkKioskCertificate, proveKioskKey, rawPublicKeyOf } from '../../shared/node/kiosk-certificate.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const HOUR = 3_600_000;
let serial = 0;
const newKioskId = () => `kiosk_01JD7ZK3Q0C7W5N2Y8S4C${String(++serial).padStart(5, '0')}`;

/** A kiosk's own key pair, as the kiosk core makes it at its first start. */
function kioskKeys(): { publicKey: string; privateKey: KeyObject } {
  const pair = generateKeyPairSync('ed25519');
  return { publicKey: rawPublicKeyOf(pair.publicKey), privateKey: pair.privateKey };
}

describe('kiosk identities: certificates a site\'s kiosks check each other by (issue #49)', () => {
  let server: TestServer;
  let org: TestOrganization;
  let siteA: string;
  let siteB: string;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.clock.set(START);
    org = await server.createOrganization({ name: 'Certified Estates' });
    siteA = (await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['Main gate'] })).body.site.site_id;
    siteB = (await org.live.post('/sites', { name: 'Parkview Estate', entry_points: ['North gate'] })).body.site.site_id;
  });

  async function placedKiosk(client: ApiClient, siteId: string, entryPoint: string): Promise<string> {
    const kioskId = newKioskId();
    const beat = await client.request('PUT', `/kiosks/${kioskId}/heartbeat`, {
      body: { entry_point: entryPoint, app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: server.clock.now().toISOString(), site_id: siteId },
    });
    expect(beat.status, JSON.stringify(beat.body)).toBe(200);
    return kioskId;
  }
  const certify = (client: ApiClient, kioskId: string, keys = kioskKeys()) =>
    client.post(`/kiosks/${kioskId}/certificate`, { public_key: keys.publicKey, proof: proveKioskKey(keys.privateKey, kioskId, keys.publicKey) });

  it("certifies a placed kiosk's own key for 24 hours; a peer of the same site checks it with the authority's key, a peer of another site refuses it", async () => {
    const gate1 = await placedKiosk(org.live, siteA, 'Main gate');
    const gate2 = await placedKiosk(org.live, siteA, 'Main gate');
    const other = await placedKiosk(org.live, siteB, 'North gate');
    const keys = kioskKeys();
    const res = await certify(org.live, gate1, keys);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.claims).toEqual({
      v: 1,
      kid: res.body.authority.kid,
      organization_id: org.organizationId,
      environment: 'live',
      site_id: siteA,
      kiosk_id: gate1,
      public_key: keys.publicKey,
      issued_at: START,
      expires_at: new Date(Date.parse(START) + 24 * HOUR).toISOString(),
    });
    // Gate 2 of the same site gets its own certificate and the same authority, which checks gate 1's.
    const second = await certify(org.live, gate2);
    expect(second.body.authority).toEqual(res.body.authority);
    const expectA = { authorities: [second.body.authority], organizationId: org.organizationId, environment: 'live', siteId: siteA };
    expect(checkKioskCertificate(res.body.certificate, expectA, Date.parse(START) + HOUR)).toEqual({ ok: true, claims: res.body.claims });
    // Another site's kiosk has another authority: gate 1's certificate means nothing to it.
    const elsewhere = await certify(org.live, other);
    expect(elsewhere.body.authority.kid).not.toBe(res.body.authority.kid);
    expect(checkKioskCertificate(res.body.certificate, { authorities: [elsewhere.body.authority], organizationId: org.organizationId, environment: 'live', siteId: siteB }, Date.parse(START)).ok).toBe(false);
    // A day later it has expired; a changed claim breaks the signature.
    expect(checkKioskCertificate(res.body.certificate, expectA, Date.parse(START) + 25 * HOUR)).toEqual({ ok: false, reason: 'expired' });
    const [body, signature] = res.body.certificate.split('.');
    const forged = Buffer.from(JSON.stringify({ ...res.body.claims, kiosk_id: gate2 })).toString('base64url');
    expect(checkKioskCertificate(`${forged}.${signature}`, expectA, Date.parse(START))).toEqual({ ok: false, reason: 'bad_signature' });
    expect(checkKioskCertificate(`${body}`, expectA, Date.parse(START))).toEqual({ ok: false, reason: 'malformed' });
    // The console sees until when each kiosk is vouched for.
    expect((await org.live.get(`/kiosks/${gate1}`)).body.kiosk.certificate_expires_at).toBe(res.body.claims.expires_at);
  });

  it('renewing later gives a new certificate; another key replaces the bound one (a reinstalled kiosk), each recorded in the audit log', async () => {
    const kioskId = await placedKiosk(org.live, siteA, 'Main gate');
    const first = kioskKeys();
    expect((await certify(org.live, kioskId, first)).status).toBe(200);
    server.clock.set(new Date(Date.parse(START) + 12 * HOUR).toISOString());
    const renewed = await certify(org.live, kioskId, first);
    expect(renewed.body.claims.expires_at).toBe(new Date(Date.parse(START) + 36 * HOUR).toISOString());
    const reinstalled = kioskKeys();
    const replaced = await certify(org.live, kioskId, reinstalled);
    expect(replaced.body.claims.public_key).toBe(reinstalled.publicKey);
    // A key's change without an Idempotency-Key is recorded just after its answer.
    const certified = async () => ((await org.live.get('/audit-log?limit=50')).body.results as Array<{ action: string }>).filter((entry) => entry.action === 'certifyKiosk').length;
    await expect.poll(certified).toBe(3);
  });

  it("refuses a key the kiosk does not hold, a retired kiosk, an unknown one and one at a site beyond the caller's, naming why", async () => {
    const kioskId = await placedKiosk(org.live, siteA, 'Main gate');
    const keys = kioskKeys();
    const stranger = kioskKeys();
    // A proof made with another private key: whoever sends it does not hold this public key.
    const wrongProof = await org.live.post(`/kiosks/${kioskId}/certificate`, { public_key: keys.publicKey, proof: proveKioskKey(stranger.privateKey, kioskId, keys.publicKey) });
    expectErrorBody(wrongProof.body, 400, expect.stringContaining('proof'));
    // A proof for another kiosk id does not carry over.
    const otherId = await placedKiosk(org.live, siteA, 'Main gate');
    const borrowed = await org.live.post(`/kiosks/${kioskId}/certificate`, { public_key: keys.publicKey, proof: proveKioskKey(keys.privateKey, otherId, keys.publicKey) });
    expect(borrowed.status).toBe(400);
    const badKey = await org.live.post(`/kiosks/${kioskId}/certificate`, { public_key: 'not-a-key', proof: 'x' });
    expectErrorBody(badKey.body, 400, expect.stringContaining('public_key'));
    expect((await certify(org.live, newKioskId())).status).toBe(404);
    expect((await certify(org.live, 'kiosk_nope')).status).toBe(400);
    // A key of site B's gate cannot certify site A's kiosk (404, as another organization's is).
    const siteBKey = server.client((await org.live.post('/api-keys', { name: 'North gate', scopes: ['access_codes:validate'], site_ids: [siteB] })).body.secret);
    expect((await certify(siteBKey, kioskId)).status).toBe(404);
    // Another organization never reaches it.
    const other = await server.createOrganization({ name: 'Elsewhere' });
    expect((await certify(other.live, kioskId)).status).toBe(404);
    expect((await certify(org.sandbox, kioskId)).status).toBe(404);
    // Retired: no certificate, so its peers stop trusting it when the last one expires.
    expect((await org.live.delete(`/kiosks/${kioskId}`)).status).toBe(200);
    const retired = await certify(org.live, kioskId);
    expectErrorBody(retired.body, 409, expect.stringContaining('retired'));
  });

  it("a key without the gate's scope cannot ask, and the authority's private key is sealed in the database", async () => {
    const kioskId = await placedKiosk(org.live, siteA, 'Main gate');
    const reader = await org.keyWith(['incidents:read']);
    expect((await certify(reader, kioskId)).status).toBe(403);
    const answer = await certify(org.live, kioskId);
    const row = await server.running.database.db.selectFrom('kiosk_authorities').selectAll().where('kid', '=', answer.body.authority.kid).executeTakeFirstOrThrow();
    expect(row.public_key).toBe(answer.body.authority.public_key);
    // Sealed (server/secrets/): no PKCS#8 DER, plain or in base64, sits in the column.
    expect(row.private_key.startsWith('MC4CAQAwBQYDK2Vw')).toBe(false);
    expect(row.private_key).not.toMatch(/^[A-Za-z0-9+/]{64}$/);
  });
});
