import { describe, expect, it } from 'vitest';
import { joinConsole } from '../support/console.ts';
import { expectErrorBody, serverForSuite } from '../support/server.ts';

/**
 * Sites (issue #34, first step): an organization's estates with their gates and call lists,
 * through the partner API. Every organization has a default site; sites are shared by live and
 * sandbox; another organization's site is a 404.
 */
describe('sites', () => {
  const suite = serverForSuite();

  it('an organization starts with one default site, named after it, which cannot be archived', async () => {
    const org = await suite.server.createOrganization({ name: 'Banana Island Estate' });
    const list = await org.live.get('/sites');
    expect(list.status).toBe(200);
    expect(list.body.results).toHaveLength(1);
    const [site] = list.body.results;
    expect(site).toMatchObject({ name: 'Banana Island Estate', is_default: true, time_zone: 'Africa/Lagos', call_list: [], entry_points: [], archived_at: null });
    expect(site.site_id).toMatch(/^site_[0-9A-HJKMNP-TV-Z]{26}$/);
    const archived = await org.live.post(`/sites/${site.site_id}/archive`, {});
    expect(archived.status).toBe(409);
  });

  it('a site is made with its gates and its call list, phones in E.164 whichever way they were written, and read in both environments', async () => {
    const org = await suite.server.createOrganization({ name: 'Lekki Shield' });
    const made = await org.live.post('/sites', {
      name: 'Admiralty Estate',
      address: '12 Admiralty Way, Lekki',
      location: { latitude: 6.4281, longitude: 3.4216 },
      call_list: [
        { name: 'Estate control', phone: '0803 123 4567' },
        { name: 'Police', phone: '+234 (0) 909 000 1122' },
        { name: 'Chairman', phone: '2348051234567' },
        { name: 'Emergency', phone: '112' },
      ],
      entry_points: ['North gate', 'South gate'],
    });
    expect(made.status).toBe(201);
    expect(made.body.site).toMatchObject({
      name: 'Admiralty Estate',
      is_default: false,
      location: { latitude: 6.4281, longitude: 3.4216 },
      call_list: [
        { name: 'Estate control', phone: '+2348031234567' },
        { name: 'Police', phone: '+2349090001122' },
        { name: 'Chairman', phone: '+2348051234567' },
        // Nigeria's emergency short code, kept as dialled (called, never texted).
        { name: 'Emergency', phone: '112' },
      ],
    });
    expect(made.body.site.entry_points.map((entry: { name: string }) => entry.name)).toEqual(['North gate', 'South gate']);
    // Which numbers alarm texts reach, and why not, said where the list is shown (issue #48).
    expect(made.body.site.call_list.map((entry: { texted: boolean; not_texted_reason: string | null }) => [entry.texted, entry.not_texted_reason])).toEqual([
      [true, null],
      [true, null],
      [true, null],
      [false, 'An emergency short code: called, never texted'],
    ]);
    const landline = await org.live.patch(`/sites/${made.body.site.site_id}`, { call_list: [{ name: 'Estate office', phone: '+234 20 1234 5678' }] });
    expect(landline.body.site.call_list).toEqual([{ name: 'Estate office', phone: '+2342012345678', texted: false, not_texted_reason: 'Not a mobile number: a text cannot reach it' }]);
    await org.live.patch(`/sites/${made.body.site.site_id}`, { call_list: made.body.site.call_list.map(({ name, phone }: { name: string; phone: string }) => ({ name, phone })) });
    const id = made.body.site.site_id;
    // Shared by live and sandbox.
    expect((await org.sandbox.get(`/sites/${id}`)).body.site.name).toBe('Admiralty Estate');
    const names = (await org.live.get('/sites')).body.results.map((site: { name: string }) => site.name);
    expect(names).toEqual(['Lekki Shield', 'Admiralty Estate']);

    const gate = await org.live.post(`/sites/${id}/entry-points`, { name: 'Service gate' });
    expect(gate.status).toBe(201);
    expect((await org.live.get(`/sites/${id}/entry-points`)).body.results.map((entry: { name: string }) => entry.name)).toEqual(['North gate', 'Service gate', 'South gate']);
    expect((await org.live.post(`/sites/${id}/entry-points`, { name: 'North gate' })).status).toBe(409);

    const changed = await org.live.patch(`/sites/${id}`, { call_list: [{ name: 'Estate control', phone: '08031234567' }], address: null });
    expect(changed.status).toBe(200);
    expect(changed.body.site).toMatchObject({ address: null, call_list: [{ name: 'Estate control', phone: '+2348031234567' }], name: 'Admiralty Estate' });
    const archived = await org.live.post(`/sites/${id}/archive`, {});
    expect(archived.body.site.archived_at).toEqual(expect.any(String));
    expect((await org.live.get('/sites?status=active')).body.results).toHaveLength(1);
    expect((await org.live.get('/sites?status=archived')).body.results.map((site: { site_id: string }) => site.site_id)).toEqual([id]);
    expect((await org.live.post(`/sites/${id}/entry-points`, { name: 'Back gate' })).status).toBe(409);
  });

  it('bad input is a 400 naming each field: a phone that is not one, an unknown time zone, a name taken or given twice', async () => {
    const org = await suite.server.createOrganization({ name: 'Ikoyi Towers' });
    const bad = await org.live.post('/sites', { name: '', time_zone: 'Lagos/Nowhere', call_list: [{ name: 'Control', phone: '12' }] });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 400, expect.any(String));
    expect(bad.body.errors.map((problem: { field: string }) => problem.field).sort()).toEqual(['call_list[0].phone', 'name', 'time_zone']);
    expect((await org.live.post('/sites', { name: 'Ikoyi Towers' })).status).toBe(409);
    const twice = await org.live.post('/sites', { name: 'Block B', entry_points: ['Gate', 'Gate'] });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toContain('entry_points');
    expect((await org.live.get('/sites')).body.results).toHaveLength(1);
  });

  it("another organization's site is a 404 for every route; people read sites and only owners and admins change them", async () => {
    const a = await suite.server.createOrganization({ name: 'Estate A' });
    const b = await suite.server.createOrganization({ name: 'Estate B' });
    const site = (await a.live.post('/sites', { name: 'A2', entry_points: ['Gate'] })).body.site;
    expect((await b.live.get(`/sites/${site.site_id}`)).status).toBe(404);
    expect((await b.live.patch(`/sites/${site.site_id}`, { name: 'mine' })).status).toBe(404);
    expect((await b.live.post(`/sites/${site.site_id}/archive`, {})).status).toBe(404);
    expect((await b.live.get(`/sites/${site.site_id}/entry-points`)).status).toBe(404);
    expect((await b.live.post(`/sites/${site.site_id}/entry-points`, { name: 'x' })).status).toBe(404);

    const operator = await joinConsole(suite.server, a.organizationId, 'operator');
    expect((await operator.browser.get(`/sites/${site.site_id}`)).status).toBe(200);
    expect((await operator.browser.patch(`/sites/${site.site_id}`, { name: 'renamed' })).status).toBe(403);
    const admin = await joinConsole(suite.server, a.organizationId, 'admin');
    expect((await admin.browser.patch(`/sites/${site.site_id}`, { name: 'renamed' })).status).toBe(200);
  });
});
