import { describe, expect, it } from 'vitest';
import { retireSigningKeys } from '../../server/access-codes/pass-keys.ts';
import { parsePass } from '../../shared/pass.ts';
import { asMadeBeforeSites } from '../support/pre-site-code.ts';
import { expectErrorBody, serverForSuite, type TestOrganization } from '../support/server.ts';

/**
 * Passes signed per site (issue #34): a pass stays TS1 and names its site through its signing
 * key, one Ed25519 key per site and environment, so a kiosk that knows its site can refuse
 * another site's pass offline. Codes made before sites keep the organization's key, which still
 * verifies their passes, at every site, until they expire.
 */
describe('passes signed per site', () => {
  const suite = serverForSuite();
  const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' };
  type Key = { kid: string; site_id: string | null; public_key: string };

  /** An organization with its default site and a second one, Banana Island. */
  async function twoSites(name: string): Promise<{ org: TestOrganization; home: string; banana: string }> {
    const org = await suite.server.createOrganization({ name });
    const home = (await org.live.get('/sites')).body.results[0].site_id as string;
    const made = await org.live.post('/sites', { name: 'Banana Island' });
    expect(made.status).toBe(201);
    return { org, home, banana: made.body.site.site_id as string };
  }

  const kidOf = (pass: string) => parsePass(pass)!.kid;

  it("signs a site's code with its site's key; the pass keys name their sites, each site's there before its first code", async () => {
    const { org, home, banana } = await twoSites('Per Site Estate');
    const before = (await org.live.get('/access-codes/pass-keys')).body.keys as Key[];
    expect(before.map((key) => key.site_id).sort()).toEqual([home, banana].sort());
    // Each names its estate too, so a gate refusing another estate's pass can say whose it is (issue #49).
    const homeName = (await org.live.get(`/sites/${home}`)).body.site.name as string;
    expect(Object.fromEntries(before.map((key) => [key.site_id, (key as Key & { site_name: string | null }).site_name]))).toEqual({ [home]: homeName, [banana]: 'Banana Island' });
    const keyOf = (siteId: string) => before.find((key) => key.site_id === siteId)!.kid;

    const atHome = (await org.live.post('/access-codes', { ...visitor, site_id: home })).body.access_code;
    const onBanana = (await org.live.post('/access-codes', { ...visitor, site_id: banana })).body.access_code;
    const oldCaller = (await org.live.post('/access-codes', visitor)).body.access_code;
    expect(kidOf(atHome.qr_payload)).toBe(keyOf(home));
    expect(kidOf(onBanana.qr_payload)).toBe(keyOf(banana));
    expect(keyOf(home)).not.toBe(keyOf(banana));
    // Naming no site, a code is the default site's, and so is its key.
    expect(oldCaller.site_id).toBe(home);
    expect(kidOf(oldCaller.qr_payload)).toBe(keyOf(home));
    // No new key was made by the codes: the answer is the same.
    expect((await org.live.get('/access-codes/pass-keys')).body.keys).toEqual(before);

    // One site's keys (and the organization's: none here, every code of this organization has a site).
    const bananaOnly = (await org.live.get(`/access-codes/pass-keys?site_id=${banana}`)).body.keys as Key[];
    expect(bananaOnly).toEqual([before.find((key) => key.site_id === banana)]);
    const unknown = await org.live.get('/access-codes/pass-keys?site_id=site_nope');
    expect(unknown.status).toBe(400);
    expectErrorBody(unknown.body, 400, 'site_id: no site site_nope in this organization');

    // A site made later has its key at the next call, before any code there.
    const third = (await org.live.post('/sites', { name: 'Third Estate' })).body.site.site_id as string;
    const after = (await org.live.get('/access-codes/pass-keys')).body.keys as Key[];
    expect(after.map((key) => key.site_id).sort()).toEqual([home, banana, third].sort());

    // Sandbox signs with keys of its own, for the same sites.
    const sandbox = (await org.sandbox.get('/access-codes/pass-keys')).body.keys as Key[];
    expect(sandbox.map((key) => key.site_id).sort()).toEqual([home, banana, third].sort());
    expect(sandbox.map((key) => key.kid)).not.toContain(keyOf(home));

    // Online, as before: another site's gate refuses the pass, its own admits it.
    expect((await org.live.post('/access-codes/validate', { code: onBanana.qr_payload, site_id: home })).body).toEqual({ valid: false, reason: 'Code is for another site' });
    expect((await org.live.post('/access-codes/validate', { code: onBanana.qr_payload, site_id: banana })).body.valid).toBe(true);
  });

  it("the organization's key still verifies a pass made before sites, at every site, until it expires", async () => {
    const { org, home, banana } = await twoSites('Old Pass Estate');
    const made = (await org.live.post('/access-codes', { ...visitor, max_uses: 3, valid_until: new Date(suite.server.clock.now().getTime() + 3600_000).toISOString() })).body.access_code;
    const old = await asMadeBeforeSites(suite.server.running.database.db, org.organizationId, made.code_id);

    const keys = (await org.live.get('/access-codes/pass-keys')).body.keys as Key[];
    expect(keys.find((key) => key.kid === old.kid)).toMatchObject({ site_id: null });
    // A site's kiosk gets it too: codes made before sites are valid at every site.
    expect(((await org.live.get(`/access-codes/pass-keys?site_id=${banana}`)).body.keys as Key[]).map((key) => key.site_id).sort()).toEqual([banana, null].sort());

    expect((await org.live.post('/access-codes/validate', { code: old.qr_payload, site_id: home })).body.valid).toBe(true);
    expect((await org.live.post('/access-codes/validate', { code: old.qr_payload, site_id: banana })).body.valid).toBe(true);
    suite.server.clock.advance(3600_000);
    expect((await org.live.post('/access-codes/validate', { code: old.qr_payload, site_id: banana })).body).toEqual({ valid: false, reason: 'Code has expired' });
  });

  it("each site gets one key when its first codes and its kiosks' key requests arrive at once", async () => {
    const { org, banana } = await twoSites('Opening Rush Estate');
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => org.live.post('/access-codes', { ...visitor, site_id: banana })),
      ...Array.from({ length: 3 }, () => org.live.get(`/access-codes/pass-keys?site_id=${banana}`)),
      ...Array.from({ length: 2 }, () => org.live.get('/access-codes/pass-keys')),
    ]);
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 200, 200, 200, 200, 200]);
    const stored = await suite.server.running.database.db.selectFrom('pass_keys').select(['kid', 'site_id']).where('organization_id', '=', org.organizationId).where('environment', '=', 'live').execute();
    expect(stored.filter((key) => key.site_id === banana)).toHaveLength(1);
    expect(stored).toHaveLength(2);
    for (const res of answers.slice(0, 3)) expect(kidOf(res.body.access_code.qr_payload)).toBe(stored.find((key) => key.site_id === banana)!.kid);
  });

  it("retired with the sealing key, each site's key is accepted until that site's last code expires", async () => {
    const { org, home, banana } = await twoSites('Retiring Estate');
    const now = suite.server.clock.now().getTime();
    const until = (hours: number) => new Date(now + hours * 3600_000).toISOString();
    await org.live.post('/access-codes', { ...visitor, site_id: home, valid_until: until(2) });
    await org.live.post('/access-codes', { ...visitor, site_id: banana, valid_until: until(5) });
    const db = suite.server.running.database.db;
    await db.transaction().execute((trx) => retireSigningKeys(trx, new Date(now)));
    const retired = await db.selectFrom('pass_keys').select(['site_id', 'accept_until']).where('organization_id', '=', org.organizationId).where('environment', '=', 'live').execute();
    expect(Object.fromEntries(retired.map((key) => [key.site_id, key.accept_until]))).toEqual({ [home]: until(2), [banana]: until(5) });
  });
});
