import { describe, expect, it } from 'vitest';
import { expectErrorBody, incidentBody, serverForSuite, type TestOrganization } from '../support/server.ts';

/**
 * What happens at a gate names its site (issue #34): a code is valid at its site's gates (and,
 * when it names one, at one entry point), a visit and an incident say where they happened, and
 * each list filters by site. An old caller that names no site is never refused for it.
 */
describe('codes, visits and incidents name their site', () => {
  const suite = serverForSuite();

  const visitor = { visitor_name: 'Chioma Eze', visitor_phone: '+2348031112222' };

  /** An organization with its default site and two estates of two gates each. */
  async function company(name = 'Shield Security') {
    const org = await suite.server.createOrganization({ name });
    const made = async (site: string) => {
      const res = await org.live.post('/sites', { name: site, entry_points: ['North gate', 'South gate'] });
      expect(res.status).toBe(201);
      const [north, south] = res.body.site.entry_points as { entry_point_id: string }[];
      return { id: res.body.site.site_id as string, north: north!.entry_point_id, south: south!.entry_point_id };
    };
    const defaultSite = ((await org.live.get('/sites')).body.results as { site_id: string; is_default: boolean }[]).find((site) => site.is_default)!.site_id;
    return { org, defaultSite, a: await made('Admiralty Estate'), b: await made('Banana Island Estate') };
  }

  const code = async (org: TestOrganization, body: Record<string, unknown> = {}) => {
    const res = await org.live.post('/access-codes', { ...visitor, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.access_code as { code: string; code_id: string; site_id: string | null; entry_point_id: string | null; use_count: number };
  };
  const validate = async (org: TestOrganization, body: Record<string, unknown>) => {
    const res = await org.live.post('/access-codes/validate', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it("a code belongs to the site it names, to its entry point's site, or else to the organization's default site", async () => {
    const { org, defaultSite, a } = await company();
    expect(await code(org)).toMatchObject({ site_id: defaultSite, entry_point_id: null });
    expect(await code(org, { site_id: a.id })).toMatchObject({ site_id: a.id, entry_point_id: null });
    expect(await code(org, { entry_point_id: a.north })).toMatchObject({ site_id: a.id, entry_point_id: a.north });
    expect(await code(org, { site_id: a.id, entry_point_id: a.south })).toMatchObject({ site_id: a.id, entry_point_id: a.south });
  });

  it('a site or entry point that is not this organization\'s, or that disagrees, is a 400 naming the field; an archived site takes no new code', async () => {
    const { org, a, b } = await company();
    const other = await company('Another Company');
    const refused = async (body: Record<string, unknown>, message: string) => {
      const res = await org.live.post('/access-codes', { ...visitor, ...body });
      expectErrorBody(res.body, 400, message);
    };
    await refused({ site_id: other.a.id }, `site_id: no site ${other.a.id} in this organization`);
    await refused({ site_id: 'site_nonsense' }, 'site_id: no site site_nonsense in this organization');
    await refused({ entry_point_id: other.a.north }, `entry_point_id: no entry point ${other.a.north} in this organization`);
    await refused({ site_id: b.id, entry_point_id: a.north }, `entry_point_id: ${a.north} is an entry point of another site than ${b.id}`);
    expect((await org.live.post(`/sites/${b.id}/archive`, {})).status).toBe(200);
    await refused({ site_id: b.id }, 'site_id: Banana Island Estate is archived');
  });

  it("a code is refused at another site's gate and admitted at its own; the visit names where it happened", async () => {
    const { org, a, b } = await company();
    const pass = await code(org, { site_id: a.id, max_uses: 2 });
    expect(await validate(org, { code: pass.code, site_id: b.id })).toEqual({ valid: false, reason: 'Code is for another site' });
    // Refused without spending a use.
    expect((await org.live.get(`/access-codes/${pass.code_id}`)).body.access_code.use_count).toBe(0);
    expect((await validate(org, { code: pass.code, entry_point_id: b.north })).reason).toBe('Code is for another site');
    const admitted = await validate(org, { code: pass.code, site_id: a.id, entry_point: 'North gate' });
    expect(admitted).toMatchObject({ valid: true, uses_remaining: 1 });
    expect((await org.live.get(`/access-logs/${admitted.log_id}`)).body.access_log).toMatchObject({ site_id: a.id, entry_point: 'North gate' });
    // A validation that names no site (an old caller) is not refused for it; the visit is the code's site's.
    const old = await validate(org, { code: pass.code });
    expect(old).toMatchObject({ valid: true, uses_remaining: 0 });
    expect((await org.live.get(`/access-logs/${old.log_id}`)).body.access_log.site_id).toBe(a.id);
  });

  it('a code limited to one entry point is refused at the other, and not refused where the gate is named only in words', async () => {
    const { org, a } = await company();
    const pass = await code(org, { entry_point_id: a.north, max_uses: 5 });
    expect(await validate(org, { code: pass.code, entry_point_id: a.south })).toEqual({ valid: false, reason: 'Code is for another entry point' });
    expect(await validate(org, { code: pass.code, entry_point_id: a.north })).toMatchObject({ valid: true });
    expect(await validate(org, { code: pass.code, site_id: a.id, entry_point: 'South gate' })).toMatchObject({ valid: true });
  });

  it('a code made before sites admits at every site of its organization, and is listed with each', async () => {
    const { org, a, b } = await company();
    const pass = await code(org, { max_uses: 3 });
    await suite.server.running.database.db.updateTable('access_codes').set({ site_id: null }).where('code_id', '=', pass.code_id).execute();
    const atA = await validate(org, { code: pass.code, site_id: a.id });
    const atB = await validate(org, { code: pass.code, site_id: b.id });
    expect([atA.valid, atB.valid]).toEqual([true, true]);
    expect((await org.live.get(`/access-logs/${atB.log_id}`)).body.access_log.site_id).toBe(b.id);
    for (const site of [a.id, b.id]) {
      const listed = (await org.live.get(`/access-codes?site_id=${site}`)).body.results.map((listedCode: { code_id: string }) => listedCode.code_id);
      expect(listed).toContain(pass.code_id);
    }
  });

  it('lists of codes, visits and incidents filter by site', async () => {
    const { org, defaultSite, a, b } = await company();
    const atA = await code(org, { site_id: a.id });
    const atB = await code(org, { site_id: b.id });
    const ids = async (path: string, field: string) => ((await org.live.get(path)).body.results as Record<string, string>[]).map((row) => row[field]);
    expect(await ids(`/access-codes?site_id=${a.id}`, 'code_id')).toEqual([atA.code_id]);
    expect(await ids(`/access-codes?site_id=${b.id}`, 'code_id')).toEqual([atB.code_id]);

    const walkIn = async (site?: string) => (await org.live.post('/access-logs', { ...visitor, ...(site && { site_id: site }) })).body.access_log;
    const walkInA = await walkIn(a.id);
    const walkInDefault = await walkIn();
    expect(walkInA.site_id).toBe(a.id);
    expect(walkInDefault.site_id).toBe(defaultSite);
    expect(await ids(`/access-logs?site_id=${a.id}`, 'log_id')).toEqual([walkInA.log_id]);
    expect(await ids(`/access-logs?site_id=${defaultSite}`, 'log_id')).toEqual([walkInDefault.log_id]);
    expectErrorBody((await org.live.post('/access-logs', { ...visitor, site_id: 'site_elsewhere' })).body, 400, 'site_id: no site site_elsewhere in this organization');

    const sos = async (site?: string) => (await org.live.post('/incidents', incidentBody(site ? { site_id: site } : {}))).body.incident;
    const sosB = await sos(b.id);
    const anywhere = await sos();
    expect(sosB.site_id).toBe(b.id);
    expect(anywhere.site_id).toBeNull();
    expect(await ids(`/incidents?site_id=${b.id}`, 'incident_id')).toEqual([sosB.incident_id]);
    expect(await ids(`/incidents?site_id=${a.id}`, 'incident_id')).toEqual([]);
  });

  it("an incident's site is in its events, and a site that is not the organization's is a 400 naming site_id", async () => {
    const { org, a } = await company();
    const other = await company('Another Company');
    const created = await org.live.post('/incidents', incidentBody({ site_id: a.id }));
    expect(created.status).toBe(201);
    const events = await org.live.get(`/events?resource_id=${created.body.incident.incident_id}`);
    expect(events.body.results.map((event: { type: string; data: { site_id: string } }) => [event.type, event.data.site_id])).toEqual([['incident.created', a.id]]);
    const refused = await org.live.post('/incidents', incidentBody({ site_id: other.a.id }));
    expectErrorBody(refused.body, 400, `site_id: no site ${other.a.id} in this organization`);
  });

  /** A kiosk's heartbeat as the kiosk sends it (electron/core/link/heartbeat.ts). */
  const beat = async (org: TestOrganization, kioskId: string, body: Record<string, unknown>) => {
    const res = await org.live.request('PUT', `/kiosks/${kioskId}/heartbeat`, {
      body: { app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: suite.server.clock.now().toISOString(), ...body },
    });
    return res;
  };
  const kioskIdOf = (n: number) => `kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9${String(n).padStart(2, '0')}`;

  it("a kiosk stands at a site: the one it was set up for, else the one whose gate has its entry point's name, else the default site; its heartbeat answers the site's call list", async () => {
    const { org, defaultSite, a, b } = await company();
    await org.live.patch(`/sites/${a.id}`, { call_list: [{ name: 'Admiralty control', phone: '0803 123 4567' }] });
    // Both estates have a "North gate": a kiosk naming only that cannot be placed, so it is the default site's.
    const unplaced = await beat(org, kioskIdOf(1), { entry_point: 'North gate' });
    expect(unplaced.status).toBe(200);
    expect(unplaced.body.kiosk.site_id).toBe(defaultSite);
    await org.live.post(`/sites/${a.id}/entry-points`, { name: 'Service gate' });
    const byName = await beat(org, kioskIdOf(2), { entry_point: 'Service gate' });
    expect(byName.body.kiosk.site_id).toBe(a.id);
    expect(byName.body.site).toEqual({ site_id: a.id, name: 'Admiralty Estate', call_list: [{ name: 'Admiralty control', phone: '+2348031234567', texted: true, not_texted_reason: null }] });
    const setUp = await beat(org, kioskIdOf(3), { entry_point: 'North gate', site_id: b.id });
    expect(setUp.body.kiosk.site_id).toBe(b.id);
    // Later heartbeats that name no site keep it.
    expect((await beat(org, kioskIdOf(3), { entry_point: 'North gate' })).body.kiosk.site_id).toBe(b.id);
    // A gate unknown anywhere is registered under the kiosk's site, so the console lists it.
    await beat(org, kioskIdOf(4), { entry_point: 'Back gate' });
    const home = (await org.live.get(`/sites/${defaultSite}/entry-points`)).body.results.map((entry: { name: string }) => entry.name);
    expect(home).toContain('Back gate');
    expectErrorBody((await beat(org, kioskIdOf(5), { entry_point: 'North gate', site_id: 'site_elsewhere' })).body, 400, 'site_id: no site site_elsewhere in this organization');
    const listed = (await org.live.get(`/kiosks?site_id=${b.id}`)).body.results.map((kiosk: { kiosk_id: string }) => kiosk.kiosk_id);
    expect(listed).toEqual([kioskIdOf(3)]);
  });

  it("a gate kiosk's SOS is at the kiosk's site, unless the partner names another", async () => {
    const { org, a, b } = await company();
    await beat(org, kioskIdOf(6), { entry_point: 'North gate', site_id: a.id });
    const pressed = await org.live.post('/incidents', incidentBody({ subject: { name: 'Guard at North gate', reference: kioskIdOf(6), metadata: { kiosk_id: kioskIdOf(6), entry_point: 'North gate' } } }));
    expect(pressed.body.incident.site_id).toBe(a.id);
    const named = await org.live.post('/incidents', incidentBody({ site_id: b.id, subject: { name: 'Guard', metadata: { kiosk_id: kioskIdOf(6) } } }));
    expect(named.body.incident.site_id).toBe(b.id);
    // A kiosk not heard from yet (its first act an SOS) is placed by its gate's name, as its first heartbeat would be.
    await org.live.post(`/sites/${b.id}/entry-points`, { name: 'Lagoon gate' });
    const first = await org.live.post('/incidents', incidentBody({ subject: { name: 'Guard', metadata: { kiosk_id: kioskIdOf(98), entry_point: 'Lagoon gate' } } }));
    expect(first.body.incident.site_id).toBe(b.id);
    // Naming neither a site nor a known kiosk nor its gate places nothing.
    const unknown = await org.live.post('/incidents', incidentBody({ subject: { name: 'Guard', metadata: { kiosk_id: kioskIdOf(99) } } }));
    expect(unknown.body.incident.site_id).toBeNull();
  });

  it("a roll call for one site lists that site's visitors and warns only of its gates; the list filters by site", async () => {
    const { org, a, b } = await company();
    const walkIn = async (name: string, site: string) => (await org.live.post('/access-logs', { visitor_name: name, visitor_phone: '+2348031112222', site_id: site })).body.access_log;
    await walkIn('Ada at A', a.id);
    await walkIn('Bola at B', b.id);
    // A kiosk of each site with operations waiting: a roll call warns of the gates that may have left it incomplete.
    await beat(org, kioskIdOf(20), { entry_point: 'North gate', site_id: a.id, queued_operations: 2, oldest_queued_at: suite.server.clock.now().toISOString() });
    await beat(org, kioskIdOf(21), { entry_point: 'North gate', site_id: b.id, queued_operations: 3, oldest_queued_at: suite.server.clock.now().toISOString() });
    const taken = await org.live.post('/roll-calls', { site_id: a.id });
    expect(taken.status).toBe(201);
    expect(taken.body.roll_call.site_id).toBe(a.id);
    expect(taken.body.roll_call.entries.map((entry: { visitor_name: string }) => entry.visitor_name)).toEqual(['Ada at A']);
    expect(taken.body.roll_call.warnings.map((warning: { kiosk_id: string }) => warning.kiosk_id)).toEqual([kioskIdOf(20)]);
    const everyone = await org.live.post('/roll-calls', {});
    expect(everyone.body.roll_call.site_id).toBeNull();
    expect(everyone.body.roll_call.entries).toHaveLength(2);
    expect((await org.live.get(`/roll-calls?site_id=${a.id}`)).body.results.map((call: { roll_call_id: string }) => call.roll_call_id)).toEqual([taken.body.roll_call.roll_call_id]);
    expectErrorBody((await org.live.post('/roll-calls', { site_id: 'site_elsewhere' })).body, 400, 'site_id: no site site_elsewhere in this organization');
  });

  it('a batch of codes shares its site; a visitor naming an entry point of another site fails the whole batch, naming that visitor', async () => {
    const { org, a, b } = await company();
    const batch = await org.live.post('/access-codes/bulk', {
      site_id: a.id,
      visitors: [visitor, { ...visitor, visitor_name: 'Bola Ade', entry_point_id: a.south }],
    });
    expect(batch.status).toBe(201);
    expect(batch.body.access_codes.map((made: { site_id: string; entry_point_id: string | null }) => [made.site_id, made.entry_point_id])).toEqual([
      [a.id, null],
      [a.id, a.south],
    ]);
    const before = (await org.live.get('/access-codes')).body.total;
    const refused = await org.live.post('/access-codes/bulk', {
      site_id: a.id,
      visitors: [visitor, { ...visitor, entry_point_id: b.north }],
    });
    expectErrorBody(refused.body, 400, `visitors[1].entry_point_id: ${b.north} is an entry point of another site than ${a.id}`);
    expect((await org.live.get('/access-codes')).body.total).toBe(before);
  });
});
