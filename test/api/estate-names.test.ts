import { describe, expect, it } from 'vitest';
import { joinConsole } from '../support/console.ts';
import { expectErrorBody, serverForSuite, type TestOrganization } from '../support/server.ts';

/**
 * Names people choose (issue #48): an estate company renames its organization and what its codes
 * begin with, renames its sites and gates, and moves its default site, without a workaround. A
 * kiosk set up with a gate's old name keeps reaching that gate.
 */
describe('names people choose', () => {
  const suite = serverForSuite();

  /** A kiosk's heartbeat as the kiosk sends it (electron/core/link/heartbeat.ts). */
  const beat = (client: TestOrganization['live'], kioskId: string, body: Record<string, unknown>) =>
    client.request('PUT', `/kiosks/${kioskId}/heartbeat`, {
      body: { app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: suite.server.clock.now().toISOString(), ...body },
    });
  const kioskIdOf = (n: number) => `kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9${String(n).padStart(2, '0')}`;
  const visitor = { visitor_name: 'Chidi Okafor', visitor_phone: '+2348031234567' };

  /** An organization with its default site and an estate with a "Main gate". */
  async function estate(name: string) {
    const org = await suite.server.createOrganization({ name });
    const defaultSite = (await org.live.get('/sites')).body.results[0].site_id as string;
    const site = (await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['Main gate', 'Back gate'] })).body.site;
    const gate = site.entry_points.find((entry: { name: string }) => entry.name === 'Main gate').entry_point_id as string;
    return { org, defaultSite, siteId: site.site_id as string, gate };
  }

  it('an owner renames the organization; the name is answered at once and codes made before keep their prefix while new ones take the new one', async () => {
    const { org } = await estate('Demo Estate');
    const before = (await org.live.get('/organization')).body.organization;
    expect(before).toMatchObject({ name: 'Demo Estate', code_prefix: 'DEMO', plan: 'enterprise', subscription_status: 'active' });
    const old = (await org.live.post('/access-codes', visitor)).body.access_code;
    expect(old.code).toMatch(/^DEMO-/);

    const renamed = await org.live.patch('/organization', { name: '  Lekki Security Ltd ', code_prefix: 'lks' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.organization).toMatchObject({ organization_id: org.organizationId, name: 'Lekki Security Ltd', code_prefix: 'LKS' });
    expect((await org.sandbox.get('/organization')).body.organization.name).toBe('Lekki Security Ltd');
    // The next code on this host takes the new prefix (the key cache is held through the change).
    const fresh = (await org.live.post('/access-codes', visitor)).body.access_code;
    expect(fresh.code).toMatch(/^LKS-[0-9A-Z]{4}$/);
    // A code already issued keeps its prefix and still admits.
    expect((await org.live.get(`/access-codes/${old.code_id}`)).body.access_code.code).toBe(old.code);
    expect((await org.live.post('/access-codes/validate', { code: old.code })).body).toMatchObject({ valid: true, code_id: old.code_id });
    expect((await org.live.post('/access-codes/validate', { code: fresh.code })).body).toMatchObject({ valid: true, code_id: fresh.code_id });
    // The console's session names it too (the pass prints it).
    const owner = await joinConsole(suite.server, org.organizationId, 'owner');
    expect((await owner.browser.get('/console/session')).body.session.organization.name).toBe('Lekki Security Ltd');
  });

  it('a code prefix is unique among organizations (409 naming it); bad names and prefixes are a 400 naming the field', async () => {
    const { org } = await estate('Ikoyi Towers');
    const other = await suite.server.createOrganization({ name: 'Victoria Garden City' });
    const taken = (await other.live.get('/organization')).body.organization.code_prefix;
    const clash = await org.live.patch('/organization', { code_prefix: taken });
    expect(clash.status).toBe(409);
    expectErrorBody(clash.body, 409, `code_prefix: ${taken} is taken by another organization`);
    const bad = await org.live.patch('/organization', { name: '   ', code_prefix: 'L1' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((problem: { field: string }) => problem.field).sort()).toEqual(['code_prefix', 'name']);
    expect((await org.live.patch('/organization', { plan: 'none' })).status).toBe(400);
    // Its own prefix again is no clash.
    const own = (await org.live.get('/organization')).body.organization.code_prefix;
    expect((await org.live.patch('/organization', { code_prefix: own })).status).toBe(200);
  });

  it('renaming is for owners and for keys with admin that reach every site; every key and person reads it', async () => {
    const { org, siteId } = await estate('Banana Island');
    const reader = await org.keyWith(['access_codes:validate']);
    expect((await reader.get('/organization')).body.organization.name).toBe('Banana Island');
    expect((await reader.patch('/organization', { name: 'Mine' })).status).toBe(403);
    const siteKey = await org.live.post('/api-keys', { name: 'Estate admin', scopes: ['admin'], site_ids: [siteId] });
    expect((await suite.server.client(siteKey.body.secret).patch('/organization', { name: 'Mine' })).status).toBe(403);
    const admin = await joinConsole(suite.server, org.organizationId, 'admin');
    expect((await admin.browser.get('/organization')).status).toBe(200);
    expect((await admin.browser.patch('/organization', { name: 'Mine' })).status).toBe(403);
    const owner = await joinConsole(suite.server, org.organizationId, 'owner');
    expect((await owner.browser.patch('/organization', { name: 'Banana Island Security' })).body.organization.name).toBe('Banana Island Security');
    // The audit log says who renamed it.
    const audit = (await org.live.get('/audit-log?action=updateOrganization')).body.results;
    expect(audit[0]).toMatchObject({ action: 'updateOrganization' });
  });

  it('another site becomes the default: what names no site goes there, and the former default may then be archived', async () => {
    const { org, defaultSite, siteId } = await estate('Lekki Shield');
    const made = await org.live.patch(`/sites/${siteId}`, { is_default: true, name: 'Admiralty Estate Phase 1', address: '12 Admiralty Way', location: { latitude: 6.4281, longitude: 3.4216 } });
    expect(made.status).toBe(200);
    expect(made.body.site).toMatchObject({ is_default: true, name: 'Admiralty Estate Phase 1', address: '12 Admiralty Way', location: { latitude: 6.4281, longitude: 3.4216 } });
    const sites = (await org.live.get('/sites')).body.results;
    expect(sites.map((site: { site_id: string; is_default: boolean }) => [site.site_id, site.is_default])).toEqual([
      [siteId, true],
      [defaultSite, false],
    ]);
    // What names no site: a code and a walk-in.
    expect((await org.live.post('/access-codes', visitor)).body.access_code.site_id).toBe(siteId);
    expect((await org.live.post('/access-logs', visitor)).body.access_log.site_id).toBe(siteId);
    // The former default is now archived like any site; the new one is not.
    expect((await org.live.post(`/sites/${defaultSite}/archive`, {})).body.site.archived_at).toEqual(expect.any(String));
    expectErrorBody((await org.live.post(`/sites/${siteId}/archive`, {})).body, 409, expect.stringContaining('Make another site the default first'));
    // An archived site is not made the default; `false` is not a way to have none.
    expectErrorBody((await org.live.patch(`/sites/${defaultSite}`, { is_default: true })).body, 409, expect.stringContaining('is_default'));
    const refused = await org.live.patch(`/sites/${siteId}`, { is_default: false });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^is_default: /);
    // Making the default the default again changes nothing.
    expect((await org.live.patch(`/sites/${siteId}`, { is_default: true })).body.site.is_default).toBe(true);
  });

  it('only a key or person of every site moves the default; a site admin still renames their own site', async () => {
    const { org, siteId } = await estate('Chevron Estates');
    const manager = await joinConsole(suite.server, org.organizationId, 'admin', undefined, { siteIds: [siteId] });
    expect((await manager.browser.patch(`/sites/${siteId}`, { is_default: true })).status).toBe(403);
    expect((await manager.browser.patch(`/sites/${siteId}`, { name: 'Chevron Drive Estate' })).body.site.name).toBe('Chevron Drive Estate');
    const siteKey = await org.live.post('/api-keys', { name: 'Estate admin', scopes: ['admin'], site_ids: [siteId] });
    expect((await suite.server.client(siteKey.body.secret).patch(`/sites/${siteId}`, { is_default: true })).status).toBe(403);
    expect((await org.live.get(`/sites/${siteId}`)).body.site.is_default).toBe(false);
  });

  it('two sites made the default at once leave exactly one default', async () => {
    const { org, siteId } = await estate('Parkview Estates');
    const second = (await org.live.post('/sites', { name: 'Parkview Phase 2' })).body.site.site_id;
    const answers = await Promise.all([org.live.patch(`/sites/${siteId}`, { is_default: true }), org.live.patch(`/sites/${second}`, { is_default: true })]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const defaults = (await org.live.get('/sites')).body.results.filter((site: { is_default: boolean }) => site.is_default);
    expect(defaults).toHaveLength(1);
  });

  it('a renamed gate keeps its old name as a former one: a kiosk that still sends it lands at the renamed gate and registers no new one', async () => {
    const { org, siteId, gate } = await estate('Eko Atlantic Guards');
    const gateKey = await org.live.post('/api-keys', {
      name: 'Gate: Main gate',
      scopes: ['access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'incidents:read', 'incidents:write'],
      site_ids: [siteId],
    });
    const kiosk = suite.server.client(gateKey.body.secret);
    expect((await beat(kiosk, kioskIdOf(1), { entry_point: 'Main gate' })).body.kiosk).toMatchObject({ site_id: siteId, entry_point: 'Main gate' });

    const renamed = await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'North gate' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.entry_point).toMatchObject({ entry_point_id: gate, site_id: siteId, name: 'North gate', former_names: ['Main gate'], retired_at: null });

    // The kiosk set up before, and a new kiosk set up with the old name, land at the renamed gate.
    expect((await beat(kiosk, kioskIdOf(1), { entry_point: 'Main gate' })).body.kiosk).toMatchObject({ site_id: siteId, entry_point: 'North gate' });
    expect((await beat(kiosk, kioskIdOf(2), { entry_point: 'Main gate' })).body.kiosk).toMatchObject({ site_id: siteId, entry_point: 'North gate' });
    expect((await beat(org.live, kioskIdOf(3), { entry_point: 'Main gate' })).body.kiosk).toMatchObject({ site_id: siteId, entry_point: 'North gate' });
    const gates = (await org.live.get(`/sites/${siteId}/entry-points`)).body.results;
    expect(gates.map((entry: { name: string }) => entry.name)).toEqual(['Back gate', 'North gate']);
    expect((await org.live.get(`/kiosks?entry_point=${encodeURIComponent('North gate')}`)).body.results).toHaveLength(3);

    // Renamed again (a minute later): both earlier names stay its own, oldest first.
    suite.server.clock.advance(60_000);
    const again = await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'Lagoon gate' });
    expect(again.body.entry_point.former_names).toEqual(['Main gate', 'North gate']);
    expect((await beat(kiosk, kioskIdOf(4), { entry_point: 'North gate' })).body.kiosk.entry_point).toBe('Lagoon gate');
    // Back to a name it had: no longer a former one.
    suite.server.clock.advance(60_000);
    expect((await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'Main gate' })).body.entry_point).toMatchObject({ name: 'Main gate', former_names: ['North gate', 'Lagoon gate'] });
  });

  it("a gate's name is unique within its site (409 naming it); a new gate given a former name takes it over; another organization's or site's gate is a 404", async () => {
    const { org, defaultSite, siteId, gate } = await estate('Magodo Shield');
    expectErrorBody((await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'Back gate' })).body, 409, 'name: Admiralty Estate already has an entry point named Back gate');
    expect((await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: '' })).body.errors[0].field).toBe('name');
    expect((await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'North gate', extra: 1 })).status).toBe(400);
    await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'North gate' });
    // A new "Main gate" is a new gate: kiosks sending "Main gate" reach it from now on.
    const newMain = (await org.live.post(`/sites/${siteId}/entry-points`, { name: 'Main gate' })).body.entry_point;
    expect((await org.live.get(`/sites/${siteId}/entry-points`)).body.results.find((entry: { entry_point_id: string }) => entry.entry_point_id === gate).former_names).toEqual([]);
    expect((await beat(org.live, kioskIdOf(10), { entry_point: 'Main gate', site_id: siteId })).body.kiosk.entry_point).toBe(newMain.name);

    const other = await suite.server.createOrganization({ name: 'Elsewhere' });
    expect((await other.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'Mine' })).status).toBe(404);
    expect((await other.live.delete(`/sites/${siteId}/entry-points/${gate}`)).status).toBe(404);
    expect((await org.live.patch(`/sites/${defaultSite}/entry-points/${gate}`, { name: 'Wrong site' })).status).toBe(404);
    const operator = await joinConsole(suite.server, org.organizationId, 'operator');
    expect((await operator.browser.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'Mine' })).status).toBe(403);
  });

  it("statistics group by gate, not by the text each visit recorded; a roll call or filter by the gate's name finds visits under its former name", async () => {
    const { org, siteId, gate } = await estate('Osborne Foreshore');
    const walkIn = (name: string, entryPoint: string) => org.live.post('/access-logs', { visitor_name: name, visitor_phone: '+2348031112222', site_id: siteId, entry_point: entryPoint });
    await walkIn('Ada', 'Main gate');
    await walkIn('Bayo', 'Main gate');
    await org.live.patch(`/sites/${siteId}/entry-points/${gate}`, { name: 'North gate' });
    // Its kiosk still says "Main gate"; a new one says "North gate".
    await walkIn('Chika', 'Main gate');
    await walkIn('Dayo', 'North gate');
    await walkIn('Emeka', 'Back gate');
    await walkIn('Funke', 'Delivery bay');

    const stats = (await org.live.get(`/access-logs/stats?site_id=${siteId}`)).body;
    expect(stats.by_entry_point).toEqual([
      { entry_point: 'North gate', entry_point_id: gate, check_ins: 4 },
      { entry_point: 'Back gate', entry_point_id: expect.stringMatching(/^ent_/), check_ins: 1 },
      { entry_point: 'Delivery bay', entry_point_id: null, check_ins: 1 },
    ]);
    const names = (list: { visitor_name: string }[]) => list.map((entry) => entry.visitor_name).sort();
    expect(names((await org.live.get(`/access-logs?entry_point=${encodeURIComponent('North gate')}`)).body.results)).toEqual(['Ada', 'Bayo', 'Chika', 'Dayo']);
    expect((await org.live.get(`/access-logs?entry_point=${encodeURIComponent('North gate')}`)).body.totalResults).toBe(4);
    expect(names((await org.live.get(`/access-logs/current-visitors?entry_point=${encodeURIComponent('North gate')}`)).body.visitors)).toEqual(['Ada', 'Bayo', 'Chika', 'Dayo']);
    const rollCall = await org.live.post('/roll-calls', { site_id: siteId, entry_points: ['North gate'] });
    expect(rollCall.status).toBe(201);
    expect(names(rollCall.body.roll_call.entries)).toEqual(['Ada', 'Bayo', 'Chika', 'Dayo']);
  });

  it('a gate no code is bound to is removed; one that codes are bound to is retired: no new codes, its codes still admit', async () => {
    const { org, siteId, gate } = await estate('Dolphin Estate');
    const back = (await org.live.get(`/sites/${siteId}/entry-points`)).body.results.find((entry: { name: string }) => entry.name === 'Back gate').entry_point_id;
    const removed = await org.live.delete(`/sites/${siteId}/entry-points/${back}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ removed: true, entry_point: { entry_point_id: back, name: 'Back gate' } });
    expect((await org.live.get(`/sites/${siteId}/entry-points`)).body.results.map((entry: { name: string }) => entry.name)).toEqual(['Main gate']);
    expect((await org.live.delete(`/sites/${siteId}/entry-points/${back}`)).status).toBe(404);

    // A sandbox code bound to the gate keeps it too.
    const bound = (await org.sandbox.post('/access-codes', { ...visitor, entry_point_id: gate })).body.access_code;
    const retired = await org.live.delete(`/sites/${siteId}/entry-points/${gate}`);
    expect(retired.body).toMatchObject({ removed: false, entry_point: { entry_point_id: gate, name: 'Main gate', retired_at: expect.any(String) } });
    expect((await org.live.delete(`/sites/${siteId}/entry-points/${gate}`)).body.entry_point.retired_at).toBe(retired.body.entry_point.retired_at);
    expect((await org.live.get(`/sites/${siteId}`)).body.site.entry_points).toEqual([expect.objectContaining({ entry_point_id: gate, retired_at: expect.any(String) })]);
    const refused = await org.sandbox.post('/access-codes', { ...visitor, entry_point_id: gate });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^entry_point_id: Main gate is retired/);
    expect((await org.sandbox.post('/access-codes/validate', { code: bound.code, entry_point_id: gate })).body).toMatchObject({ valid: true, code_id: bound.code_id });
  });
});
