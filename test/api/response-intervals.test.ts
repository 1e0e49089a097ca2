import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { joinStaff, type JoinedStaff } from '../support/staff.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The response intervals (issue #47): each incident's times (created, first offer, accepted, en
 * route, on scene, resolved), and p50 and p90 of call processing, offer to accept, turnout,
 * travel and total per day, site, partner and responder. The incidents are played out through the
 * API on a hand-moved clock, so every interval is known to the second and the percentiles are
 * computed here by hand. Also: who at Tsaro handles an incident (`handled_by`), and a controller
 * standing a responder down.
 */
const place = (n: number) => ({ latitude: 7.1 + n, longitude: 4.2 });
const east = (at: { latitude: number; longitude: number }, km: number) => ({ latitude: at.latitude, longitude: at.longitude + km / 110.5 });

let server: TestServer;
let lekki: TestOrganization;
let ikeja: TestOrganization;
let controller: JoinedStaff;
let admin: JoinedStaff;
let siteId: string;
const ids: Record<string, string> = {};
let fromDate: string;

const responder = async (name: string, at: { latitude: number; longitude: number }) =>
  addResponder(server.running.database.db, server.clock, { name, phone: `+23481${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`, ...at, environment: 'live' });
const report = async (org: TestOrganization, at: { latitude: number; longitude: number }, extra: Record<string, unknown> = {}) => {
  const created = await org.live.post('/incidents', incidentBody({ location: { coordinates: [at.longitude, at.latitude] }, ...extra }));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.incident.incident_id as string;
};
const seconds = async (s: number) => {
  server.clock.advance(s * 1000);
  await server.running.advanceDispatch();
};
const offerOf = async (token: string, incidentId: string) => ((await responderCall(server, token)('/offers')).body.offers as any[]).find((offer) => offer.incident.incident_id === incidentId);
async function playOut(token: string, incidentId: string, steps: { accept: number; enRoute: number; onScene: number; resolve: number }) {
  const call = responderCall(server, token);
  await seconds(steps.accept);
  const offer = await offerOf(token, incidentId);
  expect((await call(`/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
  await seconds(steps.enRoute);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 4 } })).status).toBe(200);
  await seconds(steps.onScene);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'on_scene' } })).status).toBe(200);
  await seconds(steps.resolve);
  expect((await call(`/incidents/${incidentId}/resolve`, { method: 'POST', body: { outcome: 'assisted' } })).status).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer({ deliverWebhooks: false, config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300', DISPATCH_RADIUS_KM: '10', DISPATCH_OFFER_COUNT: '3' } });
  lekki = await server.createOrganization({ name: 'Lekki Gardens' });
  ikeja = await server.createOrganization({ name: 'Ikeja Court' });
  controller = await joinStaff(server, 'controller', 'Kemi Adeyemi');
  admin = await joinStaff(server, 'network_admin', 'Musa Garba');
  const site = await lekki.live.post('/sites', { name: 'Admiralty Estate', call_list: [{ name: 'Gate house', phone: '+2348031112222' }] });
  expect(site.status, JSON.stringify(site.body)).toBe(201);
  siteId = site.body.site.site_id;
  fromDate = server.clock.now().toISOString();

  const here = place(0);
  const ada = await responder('Ada Okafor', east(here, 1));
  // 1 (Lekki, at the site): offered as it is created; accepted 20 s later, en route 30 s, on scene 120 s, resolved 60 s.
  ids.one = await report(lekki, here, { site_id: siteId });
  await playOut(ada.token, ids.one, { accept: 20, enRoute: 30, onScene: 120, resolve: 60 });
  // 2 (Lekki): nobody near; 40 s later a controller offers it by hand to Ada, who accepts after 10 s, sets off after 50, arrives after 200.
  const far = place(1);
  ids.two = await report(lekki, far);
  await seconds(40);
  expect((await controller.browser.post(`/incidents/${ids.two}/offers`, { responder_id: ada.responder.responder_id })).status).toBe(201);
  await playOut(ada.token, ids.two, { accept: 10, enRoute: 50, onScene: 200, resolve: 30 });
  // 3 (Lekki): Ada declines at once; at the escalation (61 s) her offer is reopened and she accepts 10 s later: the first offer is still the one at creation.
  // Her phone reports where she is, as the app does at least every few minutes on duty: a fix older than DISPATCH_FIX_MAX_AGE_S ranks nobody.
  expect((await responderCall(server, ada.token)('/availability', { method: 'PUT', body: { available: true, ...east(here, 1) } })).status).toBe(200);
  ids.three = await report(lekki, here);
  const first = await offerOf(ada.token, ids.three);
  await seconds(5);
  expect((await responderCall(server, ada.token)(`/offers/${first.offer_id}/decline`, { method: 'POST', body: { reason: 'Fuel' } })).status).toBe(200);
  await seconds(56);
  await seconds(10);
  const again = await offerOf(ada.token, ids.three);
  expect(again.offer_id).not.toBe(first.offer_id);
  expect((await responderCall(server, ada.token)(`/offers/${again.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
  expect((await controller.browser.post(`/incidents/${ids.three}/close`, { outcome: 'assisted' })).status).toBe(200);
  // 4 (Ikeja): Bola accepts after 15 s, sets off after 5, arrives after 25.
  const there = place(2);
  const bola = await responder('Bola Ade', east(there, 1));
  ids.four = await report(ikeja, there);
  await playOut(bola.token, ids.four, { accept: 15, enRoute: 5, onScene: 25, resolve: 10 });
  // A drill and a sandbox incident are never counted.
  ids.drill = await report(lekki, place(3), { is_drill: true });
  const sandbox = await lekki.sandbox.post('/incidents', incidentBody({ location: { coordinates: [here.longitude, here.latitude] } }));
  ids.sandbox = sandbox.body.incident.incident_id;
  await seconds(1);
}, 60_000);
afterAll(() => server?.stop());

const window = () => `from_date=${encodeURIComponent(fromDate)}&to_date=${encodeURIComponent(server.clock.now().toISOString())}`;
const figure = (count: number, p50: number | null, p90: number | null) => ({ count, p50_s: p50, p90_s: p90 });

describe('the response intervals', () => {
  it("lists each incident's times, and its intervals to the second", async () => {
    const answer = await controller.browser.get(`/reports/intervals/incidents?${window()}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const byId = new Map((answer.body.incidents as any[]).map((incident) => [incident.incident_id, incident]));
    expect([...byId.keys()]).toEqual([ids.one, ids.two, ids.three, ids.four]);
    const one = byId.get(ids.one);
    const at = (offset: number) => new Date(Date.parse(one.created_at) + offset * 1000).toISOString();
    expect(one).toMatchObject({
      organization_name: 'Lekki Gardens',
      site_id: siteId,
      site_name: 'Admiralty Estate',
      responder_name: 'Ada Okafor',
      status: 'resolved',
      first_offer_at: at(0),
      accepted_at: at(20),
      en_route_at: at(50),
      on_scene_at: at(170),
      resolved_at: at(230),
      call_processing_s: 0,
      offer_to_accept_s: 20,
      turnout_s: 30,
      travel_s: 120,
      total_s: 170,
    });
    expect(byId.get(ids.two)).toMatchObject({ call_processing_s: 40, offer_to_accept_s: 10, turnout_s: 50, travel_s: 200, total_s: 300 });
    expect(byId.get(ids.three)).toMatchObject({ call_processing_s: 0, offer_to_accept_s: 71, turnout_s: null, travel_s: null, total_s: null, en_route_at: null, status: 'resolved' });
    expect(byId.get(ids.four)).toMatchObject({ organization_name: 'Ikeja Court', call_processing_s: 0, offer_to_accept_s: 15, turnout_s: 5, travel_s: 25, total_s: 45 });
  });

  it('gives p50 and p90 of each interval per partner, computed by hand (interpolated between the nearest ranks)', async () => {
    const answer = await controller.browser.get(`/reports/intervals?group_by=organization&${window()}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ group_by: 'organization', incidents: 4, truncated: false });
    const lekkiRow = (answer.body.groups as any[]).find((group) => group.key === lekki.organizationId);
    // Lekki: call processing [0, 0, 40]: p50 0, p90 at rank 1.8 = 0 + 0.8 × 40 = 32; offer to accept [10, 20, 71]: 20 and 20 + 0.8 × 51 = 60.8;
    // turnout [30, 50]: 40 and 48; travel [120, 200]: 160 and 192; total [170, 300]: 235 and 287.
    expect(lekkiRow).toEqual({
      key: lekki.organizationId,
      label: 'Lekki Gardens',
      incidents: 3,
      call_processing: figure(3, 0, 32),
      offer_to_accept: figure(3, 20, 60.8),
      turnout: figure(2, 40, 48),
      travel: figure(2, 160, 192),
      total: figure(2, 235, 287),
    });
    // One incident: its own value for both.
    expect((answer.body.groups as any[]).find((group) => group.key === ikeja.organizationId)).toMatchObject({ incidents: 1, total: figure(1, 45, 45), turnout: figure(1, 5, 5) });
    // All four: total [45, 170, 300]: p50 170, p90 at rank 1.8 = 170 + 0.8 × 130 = 274.
    expect(answer.body.overall).toMatchObject({ key: 'all', incidents: 4, total: figure(3, 170, 274), call_processing: figure(4, 0, 28) });
  });

  it('groups by day, site and responder; one partner only with organization_id', async () => {
    const bySite = (await controller.browser.get(`/reports/intervals?group_by=site&${window()}`)).body;
    expect((bySite.groups as any[]).map((group) => [group.label, group.incidents])).toEqual([
      ['Admiralty Estate', 1],
      ['No site', 3],
    ]);
    const byResponder = (await controller.browser.get(`/reports/intervals?group_by=responder&organization_id=${lekki.organizationId}&${window()}`)).body;
    expect(byResponder.incidents).toBe(3);
    expect((byResponder.groups as any[]).map((group) => [group.label, group.incidents, group.travel.p50_s])).toEqual([['Ada Okafor', 3, 160]]);
    const byDay = (await controller.browser.get(`/reports/intervals?${window()}`)).body;
    expect(byDay.group_by).toBe('day');
    expect((byDay.groups as any[]).reduce((sum, group) => sum + group.incidents, 0)).toBe(4);
    expect(byDay.groups[0].key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('groups by the service areas a network admin drew: the first by name holding the incident, else No area', async () => {
    const drawn = [
      { name: 'Osogbo', shape: { type: 'Circle', center: [place(0).longitude, place(0).latitude], radius_m: 2000 } },
      // Holds the same incidents as Osogbo: the first by name wins, so nothing is counted twice.
      { name: 'Zaria', shape: { type: 'Circle', center: [place(0).longitude, place(0).latitude], radius_m: 5000 } },
      { name: 'Ilorin', shape: { type: 'Polygon', coordinates: [[[4.1, 9.0], [4.3, 9.0], [4.3, 9.2], [4.1, 9.2], [4.1, 9.0]]] } },
    ];
    for (const area of drawn) expect((await admin.browser.post('/areas', area)).status).toBe(201);
    const byArea = (await controller.browser.get(`/reports/intervals?group_by=area&${window()}`)).body;
    expect(byArea.group_by).toBe('area');
    expect((byArea.groups as any[]).map((group) => [group.label, group.incidents])).toEqual([
      ['Ilorin', 1],
      ['Osogbo', 2],
      ['No area', 1],
    ]);
    // Incident 4 alone in Ilorin: its own total (15 + 5 + 25 s).
    expect((byArea.groups as any[]).find((group) => group.label === 'Ilorin')).toMatchObject({ total: figure(1, 45, 45) });
    // A partner groups by its own sites only: the areas are Tsaro's.
    expect((await lekki.live.get(`/incidents/intervals?group_by=area&${window()}`)).status).toBe(400);
  });

  it('answers CSV with format=csv: a header, the overall row first, one row per group', async () => {
    const answer = await controller.browser.get(`/reports/intervals?group_by=organization&format=csv&${window()}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toContain('response-intervals-organization.csv');
    const lines = (answer.body as string).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'organization,key,incidents,call_processing_count,call_processing_p50_s,call_processing_p90_s,offer_to_accept_count,offer_to_accept_p50_s,offer_to_accept_p90_s,turnout_count,turnout_p50_s,turnout_p90_s,travel_count,travel_p50_s,travel_p90_s,total_count,total_p50_s,total_p90_s',
    );
    expect(lines[1]).toBe('All,all,4,4,0,28,4,17.5,55.7,3,30,46,3,120,184,3,170,274');
    expect(lines).toContain(`Lekki Gardens,${lekki.organizationId},3,3,0,32,3,20,60.8,2,40,48,2,160,192,2,235,287`);
    expect(lines).toHaveLength(4);
    const incidents = await controller.browser.get(`/reports/intervals/incidents?format=csv&${window()}`);
    const rows = (incidents.body as string).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(rows[0]).toContain('incident_id,organization_id,organization_name,site_id,site_name,responder_id,responder_name,status,created_at,first_offer_at');
    expect(rows).toHaveLength(5);
    expect(rows[1]).toContain(`${ids.one},${lekki.organizationId},Lekki Gardens,${siteId},Admiralty Estate`);
    expect(rows[1]).toMatch(/,0,20,30,120,170$/);
  });

  it("a partner sees their own incidents' intervals only, in JSON and CSV, and never another's", async () => {
    const own = await lekki.live.get(`/incidents/intervals?group_by=responder&${window()}`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({ incidents: 3, overall: { total: figure(2, 235, 287), offer_to_accept: figure(3, 20, 60.8) } });
    const other = await ikeja.live.get(`/incidents/intervals?${window()}`);
    expect(other.body).toMatchObject({ incidents: 1, overall: { total: figure(1, 45, 45) } });
    const atSite = await lekki.live.get(`/incidents/intervals?site_id=${siteId}&${window()}`);
    expect(atSite.body.overall, JSON.stringify(atSite.body)).toMatchObject({ incidents: 1, travel: figure(1, 120, 120) });
    // Grouped by organization is the staff's view only; sandbox sees the sandbox's own.
    expect((await lekki.live.get(`/incidents/intervals?group_by=organization&${window()}`)).status).toBe(400);
    expect((await lekki.sandbox.get(`/incidents/intervals?${window()}`)).body.incidents).toBe(1);
    const csv = await lekki.live.get(`/incidents/intervals?format=csv&${window()}`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect((csv.body as string).replace(/^\uFEFF/, '').split('\r\n')[1]).toMatch(/^All,all,3,/);
    // Without analytics:read, a 403; another organization's incident is a 404 to a partner.
    const narrow = await lekki.keyWith(['incidents:read']);
    expect((await narrow.get('/incidents/intervals')).status).toBe(403);
    expect((await ikeja.live.get(`/incidents/${ids.one}`)).status).toBe(404);
  });

  it('refuses a window over 92 days, naming from_date', async () => {
    const answer = await controller.browser.get('/reports/intervals?from_date=2026-01-01&to_date=2026-06-01');
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('from_date');
    expect((await lekki.live.get('/incidents/intervals?from_date=2026-01-01&to_date=2026-06-01')).status).toBe(400);
  });

  it('every staff role reads the report', async () => {
    expect((await admin.browser.get(`/reports/intervals?${window()}`)).status).toBe(200);
    const supervisor = await joinStaff(server, 'supervisor', 'Bisi Ola');
    expect((await supervisor.browser.get(`/reports/intervals/incidents?${window()}`)).status).toBe(200);
  });
});

describe('who at Tsaro handles it, and standing a responder down', () => {
  it("the partner's incident names the controller who took it (handled_by), and keeps it once closed", async () => {
    const id = await report(ikeja, place(4));
    expect((await ikeja.live.get(`/incidents/${id}`)).body.incident.handled_by).toBeNull();
    expect((await controller.browser.post(`/incidents/${id}/take`)).status).toBe(200);
    expect((await ikeja.live.get(`/incidents/${id}`)).body.incident.handled_by).toBe('Tsaro control (Kemi)');
    const listed = (await ikeja.live.get('/incidents?status=active')).body.results as any[];
    expect(listed.find((incident) => incident.incident_id === id).handled_by).toBe('Tsaro control (Kemi)');
    const other = await joinStaff(server, 'supervisor', 'Tunde Bello');
    await other.browser.post(`/incidents/${id}/take`);
    expect((await ikeja.live.get(`/incidents/${id}`)).body.incident.handled_by).toBe('Tsaro control (Tunde)');
    await other.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
    expect((await ikeja.live.get(`/incidents/${id}`)).body.incident).toMatchObject({ status: 'resolved', handled_by: 'Tsaro control (Tunde)' });
  });

  it("whom to call: the subject and the site's call list, in order (controllers and supervisors; an opening is audited)", async () => {
    const answer = await controller.browser.get(`/incidents/${ids.one}/call-list`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ subject: { name: expect.any(String) }, site: { site_id: siteId, name: 'Admiralty Estate', call_list: [expect.objectContaining({ name: 'Gate house', phone: '+2348031112222' })] } });
    expect((await controller.browser.get(`/incidents/${ids.four}/call-list`)).body.site).toBeNull();
    expect((await admin.browser.get(`/incidents/${ids.one}/call-list`)).status).toBe(403);
    expect((await controller.browser.get(`/incidents/${ids.sandbox}/call-list`)).status).toBe(404);
  });

  it('an open offer is withdrawn; the responder on scene is released and the incident goes back to dispatch; the partner sees each, named', async () => {
    const here = place(5);
    const endpoint = await ikeja.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/tsaro/stand-down', events: ['incident.control_stood_down'] });
    expect(endpoint.status).toBe(201);
    const chidi = await responder('Chidi Near', east(here, 1));
    const dayo = await responder('Dayo Next', east(here, 2));
    const id = await report(ikeja, here);
    expect(await offerOf(dayo.token, id)).toBeDefined();
    const withdrawn = await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: dayo.responder.responder_id, reason: 'Chidi is closer' });
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(200);
    expect(withdrawn.body).toEqual({ released: 'offer' });
    expect(await offerOf(dayo.token, id)).toBeUndefined();
    expect((await ikeja.live.get(`/incidents/${id}`)).body.incident.timeline.at(-1)).toMatchObject({ event: 'control_stood_down', status: 'dispatching', message: 'Tsaro control (Kemi) stood Dayo Next down (offer withdrawn): Chidi is closer' });
    // Nothing open to Dayo any more: a 409 saying so.
    const again = await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: dayo.responder.responder_id, reason: 'again' });
    expect(again.status).toBe(409);
    expect((await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: dayo.responder.responder_id })).status).toBe(400);

    // Chidi accepts, sets off, arrives: then is pulled out (on_scene → dispatching, a new transition).
    await playOutTo(chidi.token, id);
    const released = await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: chidi.responder.responder_id, reason: 'Crowd turning hostile' });
    expect(released.body).toEqual({ released: 'assignment' });
    const incident = (await ikeja.live.get(`/incidents/${id}`)).body.incident;
    expect(incident).toMatchObject({ status: 'dispatching', responder: null });
    expect(incident.timeline.at(-1)).toMatchObject({ event: 'dispatched', status: 'dispatching', message: 'Tsaro control (Kemi) stood Chidi Near down: Crowd turning hostile' });
    expect((await responderCall(server, chidi.token)('/me')).body.responder.available).toBe(true);
    expect(((await responderCall(server, chidi.token)('/assignments')).body.incidents as any[]).map((held) => held.incident_id)).not.toContain(id);
    const events = ((await ikeja.live.get(`/events?type=incident.control_stood_down&resource_id=${id}`)).body.results as any[]).filter((event) => event.data.incident_id === id);
    expect(events.map((event) => event.data.stood_down)).toEqual(
      expect.arrayContaining([
        { responder_id: dayo.responder.responder_id, name: 'Dayo Next', reason: 'Chidi is closer' },
        { responder_id: chidi.responder.responder_id, name: 'Chidi Near', reason: 'Crowd turning hostile' },
      ]),
    );
    expect(events[0].data.control).toMatchObject({ action: 'stood_down', by: 'Tsaro control (Kemi)' });
    // Only controllers and supervisors; another partner's responder or incident is a 404.
    expect((await admin.browser.post(`/incidents/${id}/stand-down`, { responder_id: chidi.responder.responder_id, reason: 'x' })).status).toBe(403);
    expect((await controller.browser.post('/incidents/inc_nothing/stand-down', { responder_id: chidi.responder.responder_id, reason: 'x' })).status).toBe(404);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'referred_to_authorities' });
  });
});

async function playOutTo(token: string, incidentId: string) {
  const call = responderCall(server, token);
  const offer = await offerOf(token, incidentId);
  expect((await call(`/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'responding' } })).status).toBe(200);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'on_scene' } })).status).toBe(200);
}
