import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { joinStaff, type JoinedStaff } from '../support/staff.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The operations centre (issue #47): the roster's standing decides who is offered an incident;
 * a controller works the queue of live incidents across organizations and dispatches by hand;
 * the partner sees every controller's action in the timeline and as events of their own types.
 */

/** Each test works in a place of its own, far from the others, so no test's responders see another's incidents. */
const place = (n: number) => ({ latitude: 6.4474 + n, longitude: 3.4739 });
const east = (at: { latitude: number; longitude: number }, km: number) => ({ latitude: at.latitude, longitude: at.longitude + km / 110.5 });

let server: TestServer;
let org: TestOrganization;
let otherOrg: TestOrganization;
let controller: JoinedStaff;
let supervisor: JoinedStaff;
let admin: JoinedStaff;

beforeAll(async () => {
  server = await startTestServer({ deliverWebhooks: false, config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300', DISPATCH_RADIUS_KM: '15', DISPATCH_OFFER_COUNT: '3' } });
  org = await server.createOrganization();
  otherOrg = await server.createOrganization();
  controller = await joinStaff(server, 'controller', 'Kemi Adeyemi');
  supervisor = await joinStaff(server, 'supervisor', 'Bisi Ola');
  admin = await joinStaff(server, 'network_admin', 'Musa Garba');
});
afterAll(() => server?.stop());

const verifiedAt = async (name: string, at: { latitude: number; longitude: number }) =>
  addResponder(server.running.database.db, server.clock, { name, phone: `+23480${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`, ...at, environment: 'live' });
const report = (at: { latitude: number; longitude: number }, client = org.live) =>
  client.post('/incidents', incidentBody({ location: { coordinates: [at.longitude, at.latitude], address: 'Admiralty Way, Lekki' } }));
const openOffers = async (token: string) => (await responderCall(server, token)('/offers')).body.offers as any[];
const timelineOf = async (id: string, client = org.live) => (await client.get(`/incidents/${id}`)).body.incident.timeline as { event: string; message: string; status: string }[];

describe('the roster decides who is offered', () => {
  it('an applicant and a suspended responder are never offered; verified, they are', async () => {
    const here = place(1);
    const applied = await admin.browser.post('/responders', { name: 'Ada Applicant', phone: '+2348031111111', ...east(here, 1), skills: ['medical'], vehicle: 'motorbike', licence_number: 'LAG-1234', licence_expires: '2027-06-30' });
    expect(applied.status).toBe(201);
    expect(applied.body.responder).toMatchObject({ standing: 'applied', skills: ['medical'], vehicle: 'motorbike', licence_expires: '2027-06-30', standing_changed_by: admin.staffId });
    const suspended = await verifiedAt('Sule Suspended', east(here, 2));
    const verified = await verifiedAt('Vera Verified', east(here, 3));
    const suspension = await supervisor.browser.post(`/responders/${suspended.responder.responder_id}/suspend`, { reason: 'Complaint under review' });
    expect(suspension.status).toBe(200);
    expect(suspension.body.responder).toMatchObject({ standing: 'suspended', standing_reason: 'Complaint under review' });
    expect((await supervisor.browser.post(`/responders/${suspended.responder.responder_id}/suspend`, {})).status).toBe(400);

    const first = (await report(here)).body.incident.incident_id;
    expect((await openOffers(verified.token)).map((offer) => offer.incident.incident_id)).toEqual([first]);
    expect(await openOffers(applied.body.token)).toEqual([]);
    expect(await openOffers(suspended.token)).toEqual([]);
    // Not by hand either.
    const manual = await controller.browser.post(`/incidents/${first}/offers`, { responder_id: suspended.responder.responder_id });
    expect(manual.status).toBe(409);
    expect(manual.body.message).toContain('only verified responders');

    expect((await admin.browser.post(`/responders/${applied.body.responder.responder_id}/verify`)).body.responder.standing).toBe('verified');
    expect((await admin.browser.post(`/responders/${suspended.responder.responder_id}/resume`)).body.responder.standing).toBe('verified');
    const second = (await report(here)).body.incident.incident_id;
    expect((await openOffers(applied.body.token)).map((offer) => offer.incident.incident_id)).toContain(second);
    expect((await openOffers(suspended.token)).map((offer) => offer.incident.incident_id)).toContain(second);
    // Suspending withdraws what is open to them.
    await supervisor.browser.post(`/responders/${verified.responder.responder_id}/suspend`, { reason: 'Licence expired' });
    expect(await openOffers(verified.token)).toEqual([]);
    const roster = (await controller.browser.get('/responders?standing=suspended')).body.responders as any[];
    expect(roster.map((r) => r.responder_id)).toContain(verified.responder.responder_id);
    for (const id of [first, second]) await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
  });

  it('a licence that expired suspends its holder at the next sweep (a licence good through today does not), and they are offered nothing', async () => {
    const here = place(5);
    const expired = await verifiedAt('Eze Expired', east(here, 1));
    const current = await verifiedAt('Cleo Current', east(here, 2));
    const today = server.clock.now().toISOString().slice(0, 10);
    const yesterday = new Date(server.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
    await admin.browser.patch(`/responders/${expired.responder.responder_id}`, { licence_expires: yesterday });
    await admin.browser.patch(`/responders/${current.responder.responder_id}`, { licence_expires: today });
    expect((await server.running.runSweeps()).expiredLicences).toBe(1);
    expect((await server.running.runSweeps()).expiredLicences).toBe(0);
    const roster = (await admin.browser.get('/responders')).body.responders as any[];
    expect(roster.find((r) => r.responder_id === expired.responder.responder_id)).toMatchObject({ standing: 'suspended', standing_reason: `Licence expired on ${yesterday}`, standing_changed_by: 'system' });
    expect(roster.find((r) => r.responder_id === current.responder.responder_id)).toMatchObject({ standing: 'verified' });
    const id = (await report(here)).body.incident.incident_id;
    expect(await openOffers(expired.token)).toEqual([]);
    expect((await openOffers(current.token)).map((offer) => offer.incident.incident_id)).toEqual([id]);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
  });

  it("a lost phone: the app's sign-in is revoked at once, and issued anew for the new phone", async () => {
    const { responder, token } = await verifiedAt('Lola Lostphone', place(6));
    expect((await responderCall(server, token)('/me')).status).toBe(200);
    const revoked = await supervisor.browser.delete(`/responders/${responder.responder_id}/sign-in`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.responder).toMatchObject({ available: false, standing: 'verified' });
    expect((await responderCall(server, token)('/me')).status).toBe(401);
    const issued = await admin.browser.post(`/responders/${responder.responder_id}/sign-in`);
    expect(issued.status).toBe(201);
    expect(issued.body.sign_in_url).toContain(`/responder/#token=${issued.body.token}`);
    expect((await responderCall(server, issued.body.token)('/me')).body.responder.responder_id).toBe(responder.responder_id);
    expect((await controller.browser.post(`/responders/${responder.responder_id}/sign-in`)).status).toBe(403);
  });

  it("a network admin changes a profile; a bad field is a 400 naming it; the audit log records who did what", async () => {
    const { responder } = await verifiedAt('Pat Profile', place(2));
    const changed = await admin.browser.patch(`/responders/${responder.responder_id}`, { skills: ['armed_response', 'patrol'], vehicle_plate: 'LND-123-XY', base: 'Lekki Phase 1' });
    expect(changed.status).toBe(200);
    expect(changed.body.responder).toMatchObject({ skills: ['armed_response', 'patrol'], vehicle_plate: 'LND-123-XY', base: 'Lekki Phase 1', standing: 'verified' });
    const bad = await admin.browser.patch(`/responders/${responder.responder_id}`, { licence_expires: '30/06/2027' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('licence_expires');
    expect((await admin.browser.patch('/responders/rsp_nobody', { base: 'x' })).status).toBe(404);
    const log = (await supervisor.browser.get(`/audit-log?subject_id=${responder.responder_id}`)).body.entries as any[];
    expect(log).toEqual([expect.objectContaining({ action: 'updateResponder', actor: 'Musa Garba (network_admin)', staff_id: admin.staffId, subject_type: 'responder' })]);
  });
});

describe('the queue and manual dispatch', () => {
  it('lists live incidents across organizations, most urgent first, and never sandbox', async () => {
    const here = place(3);
    const oldest = (await report(here)).body.incident.incident_id;
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
    const halfSpent = (await report(here, otherOrg.live)).body.incident.incident_id;
    server.clock.advance(31_000);
    const fresh = (await report(here)).body.incident.incident_id;
    const sandbox = (await report(here, org.sandbox)).body.incident.incident_id;
    const queue = (await controller.browser.get('/queue')).body.incidents as any[];
    const mine = queue.filter((item) => [oldest, halfSpent, fresh, sandbox].includes(item.incident_id));
    expect(mine.map((item) => [item.incident_id, item.urgency])).toEqual([
      [oldest, 'escalated'],
      [halfSpent, 'window_half_spent'],
      [fresh, 'other'],
    ]);
    expect(mine[1]).toMatchObject({ organization_id: otherOrg.organizationId, owner: null, status: 'dispatching' });
    expect((await controller.browser.get(`/incidents/${sandbox}`)).status).toBe(404);
    for (const id of [oldest, halfSpent, fresh]) await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
  });

  it('a decline carries its reason to the timeline; the decliner is asked again in a later round; a controller takes, offers by hand (the phone sees it), reassigns, notes and closes; the partner sees each step and its event', async () => {
    const here = place(4);
    const exact = await org.live.post('/webhook-endpoints', {
      url: 'https://8.8.8.8/tsaro/hooks',
      events: ['incident.offer_declined', 'incident.control_taken', 'incident.control_offered', 'incident.control_reassigned', 'incident.control_note', 'incident.control_closed'],
    });
    expect(exact.status, JSON.stringify(exact.body)).toBe(201);
    const wildcard = await org.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/tsaro/hooks2', events: ['incident.*'] });
    const near = await verifiedAt('Emeka Near', east(here, 2));
    const far = await verifiedAt('Tunde Far', east(here, 60));
    const id = (await report(here)).body.incident.incident_id;

    // Declined with a reason: shown to the partner.
    const [offer] = await openOffers(near.token);
    const declined = await responderCall(server, near.token)(`/offers/${offer.offer_id}/decline`, { method: 'POST', body: { reason: 'Flat tyre' } });
    expect(declined.status).toBe(200);
    expect((await timelineOf(id)).at(-1)).toMatchObject({ event: 'offer_declined', status: 'dispatching', message: 'Declined by Emeka Near: Flat tyre' });
    expect(await openOffers(near.token)).toEqual([]);
    // Escalated: round 2 asks the decliner again, still the nearest.
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
    const again = await openOffers(near.token);
    expect(again.map((o) => o.incident.incident_id)).toEqual([id]);
    expect(again[0].offer_id).not.toBe(offer.offer_id);

    // The controller takes it, and sees the nearest verified responders.
    const taken = await controller.browser.post(`/incidents/${id}/take`);
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ owner: { staff_id: controller.staffId, name: 'Tsaro control (Kemi)' }, urgency: 'escalated' });
    expect(taken.body.offers).toEqual(expect.arrayContaining([expect.objectContaining({ responder_name: 'Emeka Near', status: 'pending', round: 2 })]));
    const queued = ((await controller.browser.get('/queue')).body.incidents as any[]).find((item) => item.incident_id === id);
    expect(queued.owner).toMatchObject({ name: 'Tsaro control (Kemi)' });
    const candidates = (await controller.browser.get(`/incidents/${id}/candidates`)).body.candidates as any[];
    const farCandidate = candidates.find((c) => c.responder_id === far.responder.responder_id);
    expect(candidates.find((c) => c.responder_id === near.responder.responder_id)).toMatchObject({ status: 'offered', fix_age_s: 61 });
    expect(farCandidate).toMatchObject({ status: 'available', skills: [] });
    expect(farCandidate.distance_km).toBeGreaterThan(50);

    // Offered by hand to the far one (outside every automatic round): their phone sees it as any offer.
    const manual = await controller.browser.post(`/incidents/${id}/offers`, { responder_id: far.responder.responder_id });
    expect(manual.status).toBe(201);
    const farOffers = await openOffers(far.token);
    expect(farOffers).toEqual([expect.objectContaining({ offer_id: manual.body.offer_id, incident: expect.objectContaining({ incident_id: id }) })]);
    expect((await responderCall(server, far.token)(`/offers/${manual.body.offer_id}/accept`, { method: 'POST' })).status).toBe(200);

    // Reassigned: back to dispatch, the responder free again; then a note, and closed.
    const reassigned = await controller.browser.post(`/incidents/${id}/reassign`, { reason: 'Stuck in traffic on the bridge' });
    expect(reassigned.status).toBe(200);
    const afterReassign = (await org.live.get(`/incidents/${id}`)).body.incident;
    expect(afterReassign).toMatchObject({ status: 'dispatching', responder: null });
    expect((await responderCall(server, far.token)('/me')).body.responder.available).toBe(true);
    expect((await controller.browser.post(`/incidents/${id}/reassign`, { reason: 'again' })).status).toBe(409);
    expect((await controller.browser.post(`/incidents/${id}/notes`, { message: 'Police on the way' })).status).toBe(200);
    expect((await controller.browser.post(`/incidents/${id}/close`, { outcome: 'referred_to_authorities', notes: 'Police took over' })).status).toBe(200);
    expect((await controller.browser.post(`/incidents/${id}/close`, { outcome: 'assisted' })).status).toBe(409);

    const timeline = await timelineOf(id);
    const control = timeline.filter((entry) => entry.message.includes('Tsaro control (Kemi)'));
    expect(control.map((entry) => [entry.event, entry.message])).toEqual([
      ['control_taken', 'Tsaro control (Kemi) is handling it'],
      ['control_offered', 'Tsaro control (Kemi) offered it to Tunde Far, 60 km away'.replace('60 km', `${farCandidate.distance_km} km`)],
      ['dispatched', 'Tsaro control (Kemi) stood Tunde Far down and sent it back to dispatch: Stuck in traffic on the bridge'],
      ['control_note', 'Tsaro control (Kemi): Police on the way'],
      ['resolved', 'Tsaro control (Kemi) closed it: referred to authorities (Police took over)'],
    ]);
    expect((await org.live.get(`/incidents/${id}`)).body.incident).toMatchObject({ status: 'resolved', resolution_outcome: 'referred_to_authorities' });

    // Events of their own types, to the endpoint that names them; `incident.*` keeps the reference's types.
    const events = (await org.live.get(`/events?resource_id=${id}&limit=100`)).body.results as any[];
    const controlEvents = events.filter((event) => event.type.startsWith('incident.control_') || event.type === 'incident.offer_declined');
    expect(controlEvents.map((event) => event.type).sort()).toEqual(
      ['incident.control_closed', 'incident.control_note', 'incident.control_offered', 'incident.control_reassigned', 'incident.control_taken', 'incident.offer_declined'].sort(),
    );
    expect(controlEvents.find((event) => event.type === 'incident.control_note').data.control).toMatchObject({ action: 'note', by: 'Tsaro control (Kemi)', message: 'Police on the way' });
    expect(controlEvents.find((event) => event.type === 'incident.offer_declined').data.declined).toMatchObject({ responder_name: 'Emeka Near', reason: 'Flat tyre' });
    const queuedFor = async (endpointId: string) =>
      [
        ...new Set(
          (
            await server.running.database.db
              .selectFrom('webhook_jobs')
              .innerJoin('events', 'events.event_id', 'webhook_jobs.event_id')
              .select('events.type')
              .where('webhook_jobs.endpoint_id', '=', endpointId)
              .where('events.resource_id', '=', id)
              .execute()
          ).map((row) => row.type),
        ),
      ].sort();
    expect(await queuedFor(exact.body.webhook_endpoint.endpoint_id)).toEqual(controlEvents.map((event) => event.type).sort());
    const wild = await queuedFor(wildcard.body.webhook_endpoint.endpoint_id);
    expect(wild).toEqual(expect.arrayContaining(['incident.created', 'incident.escalated', 'incident.updated', 'incident.resolved']));
    expect(wild.filter((type) => type.includes('control') || type.includes('declined'))).toEqual([]);

    // Every action and every opening is in the service audit log.
    const log = (await supervisor.browser.get(`/audit-log?subject_id=${id}`)).body.entries as any[];
    expect(log.map((entry) => entry.action).reverse()).toEqual(['takeIncident', 'openIncident', 'offerIncident', 'reassignIncident', 'noteIncident', 'closeIncident']);
    expect(log.every((entry) => entry.staff_id === controller.staffId && entry.organization_id === org.organizationId)).toBe(true);
  });
});

describe("the phone's words when stood down", () => {
  it('what became of an offer: withdrawn by Tsaro control with who and why; taken back from the responder who held it; asked again under a new id; closed by control; another responder\'s is a 404', async () => {
    const here = place(20);
    const ada = await verifiedAt('Ada Near', east(here, 1));
    const ben = await verifiedAt('Ben Second', east(here, 2));
    const id = (await report(here)).body.incident.incident_id as string;
    const adaCall = responderCall(server, ada.token);
    const benCall = responderCall(server, ben.token);
    const [adaOffer] = await openOffers(ada.token);
    const [benOffer] = await openOffers(ben.token);
    expect([adaOffer.incident.incident_id, benOffer.incident.incident_id]).toEqual([id, id]);
    expect((await adaCall(`/offers/${adaOffer.offer_id}`)).body.offer).toEqual({ offer_id: adaOffer.offer_id, incident_id: id, status: 'pending', incident_status: 'dispatching', yours: false, stood_down: null });

    // Offered to several, one is enough: Ben's offer is withdrawn, and his phone can say who and why.
    expect((await controller.browser.post(`/incidents/${id}/take`)).status).toBe(200);
    const withdrawn = await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: ben.responder.responder_id, reason: 'One is enough' });
    expect(withdrawn.body).toMatchObject({ released: 'offer' });
    expect(await openOffers(ben.token)).toEqual([]);
    const benSees = (await benCall(`/offers/${benOffer.offer_id}`)).body.offer;
    expect(benSees).toMatchObject({ status: 'withdrawn', incident_status: 'dispatching', yours: false, stood_down: { by: 'Tsaro control (Kemi)', reason: 'One is enough', at: expect.any(String) } });

    // Ada takes it, and is then pulled out: the incident leaves her assignments, and her accepted offer says why.
    expect((await adaCall(`/offers/${adaOffer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await adaCall(`/offers/${adaOffer.offer_id}`)).body.offer).toMatchObject({ status: 'accepted', incident_status: 'assigned', yours: true, stood_down: null });
    expect((await controller.browser.post(`/incidents/${id}/stand-down`, { responder_id: ada.responder.responder_id, reason: 'Pulled out for your safety' })).body).toMatchObject({ released: 'assignment' });
    expect(((await adaCall('/assignments')).body.incidents as any[]).map((incident) => incident.incident_id)).not.toContain(id);
    expect((await adaCall(`/offers/${adaOffer.offer_id}`)).body.offer).toMatchObject({ status: 'accepted', incident_status: 'dispatching', yours: false, stood_down: { by: 'Tsaro control (Kemi)', reason: 'Pulled out for your safety' } });

    // Ben asked again by hand: a new offer id, nothing stood down on it; the old id is gone.
    expect((await controller.browser.post(`/incidents/${id}/offers`, { responder_id: ben.responder.responder_id })).status).toBe(201);
    const [again] = await openOffers(ben.token);
    expect(again.offer_id).not.toBe(benOffer.offer_id);
    expect((await benCall(`/offers/${benOffer.offer_id}`)).status).toBe(404);
    expect((await benCall(`/offers/${again.offer_id}`)).body.offer).toMatchObject({ status: 'pending', stood_down: null });
    // Another responder's offer is none of Ada's business.
    expect((await adaCall(`/offers/${again.offer_id}`)).status).toBe(404);

    // Ben takes it and the controller closes it while he is there: his phone hears how it ended.
    expect((await benCall(`/offers/${again.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await controller.browser.post(`/incidents/${id}/close`, { outcome: 'referred_to_authorities', notes: 'Police took over' })).status).toBe(200);
    expect((await benCall(`/offers/${again.offer_id}`)).body.offer).toMatchObject({
      status: 'accepted',
      incident_status: 'resolved',
      yours: false,
      stood_down: { by: 'Tsaro control (Kemi)', reason: 'the incident is closed: referred to authorities (Police took over)' },
    });
    expect((await responderCall(server, 'rtk_' + 'x'.repeat(40))(`/offers/${again.offer_id}`)).status).toBe(401);
  });
});
