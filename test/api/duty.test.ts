import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourIn } from '../../server/duty/status.ts';
import { addResponder } from '../../server/responders/service.ts';
import { joinConsole } from '../support/console.ts';
import { responderCall } from '../support/responder.ts';
import { joinStaff, staffBase, type JoinedStaff } from '../support/staff.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Duty (issue #47): dispatch ranks by the freshest position only; statuses with their age;
 * areas and shifts a network admin plans; alerts for staff; on-scene check-ins and the
 * responder's panic, which put the case at the top of the staff queue.
 */

/** Each test works in a place of its own, far from the others (and from operations-centre.test.ts's). */
const place = (n: number) => ({ latitude: -20 + n, longitude: 20.5 });
const east = (at: { latitude: number; longitude: number }, km: number) => ({ latitude: at.latitude, longitude: at.longitude + km / 104.5 });

let server: TestServer;
let org: TestOrganization;
let controller: JoinedStaff;
let supervisor: JoinedStaff;
let admin: JoinedStaff;

beforeAll(async () => {
  server = await startTestServer({
    deliverWebhooks: false,
    config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '3600', DISPATCH_RADIUS_KM: '15', DISPATCH_OFFER_COUNT: '3', STATUS_LIMIT_OFFERED_S: '120' },
  });
  org = await server.createOrganization();
  controller = await joinStaff(server, 'controller', 'Kemi Adeyemi');
  supervisor = await joinStaff(server, 'supervisor', 'Bisi Ola');
  admin = await joinStaff(server, 'network_admin', 'Musa Garba');
});
afterAll(() => server?.stop());

const verifiedAt = async (name: string, at: { latitude: number; longitude: number }) =>
  addResponder(server.running.database.db, server.clock, { name, phone: `+23480${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`, ...at, environment: 'live' });
const report = async (at: { latitude: number; longitude: number }) =>
  (await org.live.post('/incidents', incidentBody({ location: { coordinates: [at.longitude, at.latitude], address: 'Admiralty Way, Lekki' } }))).body.incident.incident_id as string;
const offersOf = async (token: string) => ((await responderCall(server, token)('/offers')).body.offers as any[]).map((offer) => offer.incident.incident_id as string);
const beat = (token: string, at: { latitude: number; longitude: number }, available = true) => responderCall(server, token)('/availability', { method: 'PUT', body: { available, ...at } });
const rosterEntry = async (responderId: string) => ((await controller.browser.get('/responders?environment=live')).body.responders as any[]).find((r) => r.responder_id === responderId);
const alertsOf = async (responderId: string, state = 'open') => ((await controller.browser.get(`/alerts?state=${state}`)).body.alerts as any[]).filter((a) => a.responder_id === responderId);
const queue = async () => (await controller.browser.get('/queue')).body.incidents as any[];
const timelineOf = async (id: string) => (await org.live.get(`/incidents/${id}`)).body.incident.timeline as { event: string; message: string }[];
const now = () => server.clock.now().toISOString();

/** Offered, accepted, on the way and on scene: the responder's incident. */
async function onScene(token: string, incidentId: string) {
  const call = responderCall(server, token);
  const [offer] = (await call('/offers')).body.offers as any[];
  expect(offer.incident.incident_id).toBe(incidentId);
  expect((await call(`/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 5 } })).status).toBe(200);
  expect((await call(`/incidents/${incidentId}/status`, { method: 'POST', body: { status: 'on_scene' } })).status).toBe(200);
}

describe('the job runner', () => {
  it("holds the server's timers, each feature's job by name; a test runs one by hand", async () => {
    const textIndexes = server.running.database.engine === 'postgres' ? ['text-index-pending'] : [];
    expect(server.running.jobNames()).toEqual(['fold-tallies', ...textIndexes, 'sweeps', 'threat-index', 'duty-alerts', 'dispatch']);
    expect(await server.running.runJob('duty-alerts')).toMatchObject({ missedCheckIns: 0, raised: 0 });
  });
});

describe('dispatch ranks by the freshest position', () => {
  it('a stale fix is never used to rank: that responder is left out until the phone reports, and listed after every fresh fix; the position typed at add counts as a fix then', async () => {
    const here = place(1);
    const near = await verifiedAt('Nora Near', east(here, 1));
    const far = await verifiedAt('Femi Far', east(here, 5));
    server.clock.advance(6 * 60_000);
    // Femi's phone reported a minute ago; Nora's has been silent six minutes (the limit is five).
    expect((await beat(far.token, east(here, 5))).status).toBe(200);
    const fresh = await verifiedAt('Fola Fresh', east(here, 8));
    const id = await report(here);
    expect(await offersOf(near.token)).toEqual([]);
    expect(await offersOf(far.token)).toEqual([id]);
    expect(await offersOf(fresh.token)).toEqual([id]);

    const ours = [near, far, fresh].map((r) => r.responder.responder_id);
    const candidates = ((await controller.browser.get(`/incidents/${id}/candidates`)).body.candidates as any[]).filter((c) => ours.includes(c.responder_id));
    expect(candidates.map((c) => [c.name, c.fix_stale])).toEqual([
      ['Femi Far', false],
      ['Fola Fresh', false],
      ['Nora Near', true],
    ]);
    expect(candidates[2]).toMatchObject({ fix_age_s: 360, duty_status: 'available' });

    // Escalated, the wider round still leaves the stale fix out...
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
    expect(await offersOf(near.token)).toEqual([]);
    // ...until the phone reports: the next re-offer asks her.
    expect((await beat(near.token, east(here, 1))).status).toBe(200);
    server.clock.advance(31_000);
    await server.running.advanceDispatch();
    expect(await offersOf(near.token)).toEqual([id]);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
  });
});

describe('statuses with their age', () => {
  it('available, offered, en route, on scene, and back: each with when it began, in the roster and to the app', async () => {
    const here = place(2);
    const added = now();
    const { responder, token } = await verifiedAt('Sade Status', east(here, 1));
    const id0 = responder.responder_id;
    expect(await rosterEntry(id0)).toMatchObject({ duty_status: 'available', status_since: added, out_of_service_reason: null });
    server.clock.advance(10_000);
    const offeredAt = now();
    const id = await report(here);
    expect(await rosterEntry(id0)).toMatchObject({ duty_status: 'offered', status_since: offeredAt });
    server.clock.advance(10_000);
    const call = responderCall(server, token);
    const [offer] = (await call('/offers')).body.offers as any[];
    const acceptedAt = now();
    await call(`/offers/${offer.offer_id}/accept`, { method: 'POST' });
    expect(await rosterEntry(id0)).toMatchObject({ duty_status: 'en_route', status_since: acceptedAt });
    server.clock.advance(10_000);
    await call(`/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
    expect((await rosterEntry(id0)).duty_status).toBe('en_route');
    const arrivedAt = now();
    await call(`/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } });
    const duty = await call('/duty');
    expect(duty.body).toMatchObject({
      duty: { duty_status: 'on_scene', status_since: arrivedAt },
      check_in: { incident_id: id, due_at: new Date(Date.parse(arrivedAt) + 300_000).toISOString(), missed: 0, every_s: 300 },
    });
    server.clock.advance(10_000);
    const freeAt = now();
    expect((await call(`/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'assisted' } })).status).toBe(200);
    expect(await rosterEntry(id0)).toMatchObject({ duty_status: 'available', status_since: freeAt });
    expect((await call('/duty')).body.check_in).toBeNull();
  });

  it('out of service with a reason, from the app or by a supervisor: offered nothing, and the heartbeat does not undo it', async () => {
    const here = place(3);
    const { responder, token } = await verifiedAt('Oke Out', east(here, 1));
    const call = responderCall(server, token);
    expect((await call('/out-of-service', { method: 'PUT', body: {} })).status).toBe(400);
    const out = await call('/out-of-service', { method: 'PUT', body: { reason: 'Flat tyre' } });
    expect(out.status).toBe(200);
    expect(out.body.duty).toMatchObject({ duty_status: 'out_of_service', out_of_service_reason: 'Flat tyre', status_since: now() });
    expect((await beat(token, east(here, 1), true)).body.responder.available).toBe(false);
    const id = await report(here);
    expect(await offersOf(token)).toEqual([]);
    const candidate = ((await controller.browser.get(`/incidents/${id}/candidates`)).body.candidates as any[]).find((c) => c.responder_id === responder.responder_id);
    expect(candidate).toMatchObject({ duty_status: 'out_of_service', out_of_service_reason: 'Flat tyre' });
    expect((await call('/out-of-service', { method: 'DELETE' })).body.duty).toMatchObject({ duty_status: 'off_duty', out_of_service_reason: null });
    expect((await beat(token, east(here, 1), true)).body.responder.available).toBe(true);

    // A supervisor, saying why; a controller may not.
    const path = `/responders/${responder.responder_id}/out-of-service`;
    expect((await controller.browser.post(path, { reason: 'x' })).status).toBe(403);
    const missing = await supervisor.browser.post(path, {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('reason');
    const bySupervisor = await supervisor.browser.post(path, { reason: 'Vehicle in repair' });
    expect(bySupervisor.body.duty).toMatchObject({ duty_status: 'out_of_service', out_of_service_reason: 'Vehicle in repair' });
    expect((await rosterEntry(responder.responder_id)).out_of_service_reason).toBe('Vehicle in repair');
    expect((await supervisor.browser.delete(path)).body.duty.duty_status).toBe('off_duty');
    const log = (await supervisor.browser.get(`/audit-log?subject_id=${responder.responder_id}`)).body.entries as any[];
    expect(log.map((entry) => [entry.action, entry.staff_id])).toEqual([
      ['backInService', supervisor.staffId],
      ['outOfService', supervisor.staffId],
    ]);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
  });
});

describe('responder safety on scene', () => {
  it('a missed check-in alerts the controllers; a check-in clears it; two missed put the case at the top of the queue, in the timeline and as an event', async () => {
    const here = place(4);
    const { responder, token } = await verifiedAt('Chidi Checkin', east(here, 1));
    const rid = responder.responder_id;
    const id = await report(here);
    await onScene(token, id);
    const call = responderCall(server, token);
    const first = await call('/duty');
    expect(first.body.check_in.missed).toBe(0);

    server.clock.advance(301_000);
    await server.running.runJob('duty-alerts');
    const missed = await alertsOf(rid);
    expect(missed).toEqual([expect.objectContaining({ kind: 'missed_check_in', incident_id: id, organization_id: org.organizationId, responder_name: 'Chidi Checkin', cleared_at: null })]);
    expect(missed[0].message).toContain("missed an \"I'm OK\" check-in");
    expect((await queue()).find((item) => item.incident_id === id).urgency).not.toBe('responder_in_danger');

    // "I'm OK": the alert clears and the next is due a period from now.
    const ok = await call(`/incidents/${id}/check-in`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(ok.body.check_in).toMatchObject({ missed: 0, due_at: new Date(server.clock.now().getTime() + 300_000).toISOString() });
    expect(await alertsOf(rid)).toEqual([]);

    // Then two missed in a row.
    server.clock.advance(301_000);
    await server.running.runJob('duty-alerts');
    expect((await alertsOf(rid)).map((a) => a.kind)).toEqual(['missed_check_in']);
    server.clock.advance(301_000);
    await server.running.runJob('duty-alerts');
    await server.running.runJob('duty-alerts');
    const top = (await queue())[0];
    expect(top).toMatchObject({ incident_id: id, urgency: 'responder_in_danger' });
    const alerted = (await timelineOf(id)).filter((entry) => entry.event === 'control_alert');
    expect(alerted.map((entry) => entry.message)).toEqual(['Tsaro control alerted: Chidi Checkin missed two "I\'m OK" check-ins on scene']);
    const events = (await org.live.get(`/events?resource_id=${id}&type=incident.control_alert`)).body.results as any[];
    expect(events.map((event) => event.data.control)).toEqual([expect.objectContaining({ action: 'alert', by: 'Tsaro control' })]);
    const log = (await supervisor.browser.get(`/audit-log?subject_id=${rid}`)).body.entries as any[];
    expect(log.filter((entry) => entry.action === 'alertRaised').every((entry) => entry.actor === 'system' && entry.detail.kind === 'missed_check_in')).toBe(true);
    expect(log.filter((entry) => entry.action === 'alertRaised')).toHaveLength(2);

    // Closed, the case leaves the queue and its alert clears.
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'assisted' });
    await server.running.runJob('duty-alerts');
    expect((await alertsOf(rid)).filter((a) => a.kind === 'missed_check_in')).toEqual([]);
    expect((await queue()).some((item) => item.incident_id === id)).toBe(false);
    // Free again with a fix fifteen minutes old: that is an alert of its own.
    expect((await alertsOf(rid)).map((a) => a.message)).toEqual(['Chidi Checkin is available with no fix for 15 min']);
  });

  it("the responder's panic does the same at once: an alert, the top of the queue, a timeline entry and the event; without an incident, an alert", async () => {
    const here = place(5);
    const other = await report(place(6));
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
    const { responder, token } = await verifiedAt('Pam Panic', east(here, 1));
    const id = await report(here);
    const call = responderCall(server, token);
    const [offer] = (await call('/offers')).body.offers as any[];
    await call(`/offers/${offer.offer_id}/accept`, { method: 'POST' });
    await call(`/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
    const pressed = await call('/panic', { method: 'POST', body: { message: 'Being chased' } });
    expect(pressed.status).toBe(200);
    expect(pressed.body).toEqual({ raised: id });
    // Above an escalated incident waiting longer.
    const ordered = (await queue()).filter((item) => [id, other].includes(item.incident_id));
    expect(ordered.map((item) => [item.incident_id, item.urgency])).toEqual([
      [id, 'responder_in_danger'],
      [other, 'escalated'],
    ]);
    expect((await timelineOf(id)).at(-1)).toMatchObject({ event: 'control_alert', message: 'Tsaro control alerted: Pam Panic pressed panic on the way: Being chased' });
    expect((await controller.browser.get(`/incidents/${id}`)).body.urgency).toBe('responder_in_danger');
    const [alert] = await alertsOf(responder.responder_id);
    expect(alert).toMatchObject({ kind: 'panic', incident_id: id, message: 'Pam Panic pressed panic on the way: Being chased' });
    // Pressed again: one alert.
    await call('/panic', { method: 'POST', body: {} });
    expect(await alertsOf(responder.responder_id)).toHaveLength(1);
    // A controller deals with it; only controllers and supervisors acknowledge.
    expect((await admin.browser.post(`/alerts/${alert.alert_id}/acknowledge`)).status).toBe(403);
    expect((await controller.browser.post(`/alerts/${alert.alert_id}/acknowledge`)).status).toBe(200);
    expect((await controller.browser.post('/alerts/alrt_nobody/acknowledge')).status).toBe(404);
    expect(await alertsOf(responder.responder_id)).toEqual([]);
    expect((await alertsOf(responder.responder_id, 'all'))[0]).toMatchObject({ alert_id: alert.alert_id, cleared_at: now() });

    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'assisted' });
    await controller.browser.post(`/incidents/${other}/close`, { outcome: 'no_action_required' });
    // Free, a panic still reaches the controllers.
    expect((await call('/panic', { method: 'POST', body: {} })).body).toEqual({ raised: null });
    expect(await alertsOf(responder.responder_id)).toEqual([expect.objectContaining({ kind: 'panic', incident_id: null, message: 'Pam Panic pressed panic' })]);
  });
});

describe('areas and shifts', () => {
  const circle = { type: 'Circle', center: [3.4739, 6.4474], radius_m: 3000 };
  const polygon = { type: 'Polygon', coordinates: [[[3.40, 6.43], [3.50, 6.43], [3.50, 6.47], [3.40, 6.47], [3.40, 6.43]]] };

  it('a network admin draws areas and plans shifts; controllers and supervisors read them; bad input is a 400 naming the field', async () => {
    const drawn = await admin.browser.post('/areas', { name: 'Lekki Phase 1', shape: circle });
    expect(drawn.status).toBe(201);
    expect(drawn.body.area).toMatchObject({ name: 'Lekki Phase 1', shape: circle, created_by: admin.staffId, shifts: 0 });
    const ikoyi = await admin.browser.post('/areas', { name: 'Ikoyi', shape: polygon });
    expect(ikoyi.status).toBe(201);

    const bad = async (body: unknown, field: string) => {
      const answer = await admin.browser.post('/areas', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ code: 400 });
      expect(answer.body.errors.map((e: any) => e.field)).toContain(field);
      expect(answer.body.message).toContain(field);
    };
    await bad({ name: 'Open ring', shape: { type: 'Polygon', coordinates: [[[3.4, 6.4], [3.5, 6.4], [3.5, 6.5], [3.4, 6.5]]] } }, 'shape.coordinates[0]');
    await bad({ name: 'Tiny', shape: { ...circle, radius_m: 5 } }, 'shape.radius_m');
    await bad({ name: 'Off the map', shape: { ...circle, center: [3.4, 95] } }, 'shape.center[1]');
    await bad({ name: 'Square', shape: { type: 'Square', side: 3 } }, 'shape.type');
    await bad({ name: '', shape: circle }, 'name');

    const { responder } = await verifiedAt('Shola Shift', place(7));
    const planned = await admin.browser.post('/shifts', { responder_id: responder.responder_id, area_id: drawn.body.area.area_id, start_hour: 22, end_hour: 6 });
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect(planned.body.shift).toMatchObject({ responder_name: 'Shola Shift', area_name: 'Lekki Phase 1', start_hour: 22, end_hour: 6 });
    const badShift = async (body: Record<string, unknown>, field: string) => {
      const answer = await admin.browser.post('/shifts', { responder_id: responder.responder_id, area_id: drawn.body.area.area_id, start_hour: 8, end_hour: 16, ...body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.errors[0].field).toBe(field);
      expect(answer.body.message).toContain(field);
    };
    await badShift({ start_hour: 25 }, 'start_hour');
    await badShift({ end_hour: 8 }, 'end_hour');
    await badShift({ responder_id: 'rsp_nobody' }, 'responder_id');
    await badShift({ area_id: 'area_nowhere' }, 'area_id');

    for (const reader of [controller, supervisor, admin]) {
      const shifts = (await reader.browser.get(`/shifts?responder_id=${responder.responder_id}`)).body.shifts as any[];
      expect(shifts.map((s) => s.shift_id)).toEqual([planned.body.shift.shift_id]);
      expect(((await reader.browser.get('/areas')).body.areas as any[]).find((a) => a.area_id === drawn.body.area.area_id)).toMatchObject({ shifts: 1 });
    }
    // Only a network admin plans.
    for (const other of [controller, supervisor]) {
      expect((await other.browser.post('/areas', { name: 'Mine', shape: circle })).status).toBe(403);
      expect((await other.browser.post('/shifts', { responder_id: responder.responder_id, area_id: drawn.body.area.area_id, start_hour: 1, end_hour: 2 })).status).toBe(403);
      expect((await other.browser.delete(`/shifts/${planned.body.shift.shift_id}`)).status).toBe(403);
      expect((await other.browser.delete(`/areas/${ikoyi.body.area.area_id}`)).status).toBe(403);
    }
    // An area with a shift is kept until its shifts go.
    expect((await admin.browser.delete(`/areas/${drawn.body.area.area_id}`)).status).toBe(409);
    expect((await admin.browser.delete(`/shifts/${planned.body.shift.shift_id}`)).status).toBe(200);
    expect((await admin.browser.delete(`/shifts/${planned.body.shift.shift_id}`)).status).toBe(404);
    expect((await admin.browser.delete(`/areas/${drawn.body.area.area_id}`)).status).toBe(200);
    expect((await admin.browser.delete(`/areas/${ikoyi.body.area.area_id}`)).status).toBe(200);
    const log = (await supervisor.browser.get(`/audit-log?subject_id=${drawn.body.area.area_id}`)).body.entries as any[];
    expect(log.map((entry) => entry.action)).toEqual(['removeArea', 'createArea']);
  });

  it("a partner's session or key never reaches them (401)", async () => {
    const owner = await joinConsole(server, org.organizationId, 'owner');
    for (const [method, path] of [['GET', '/areas'], ['POST', '/areas'], ['GET', '/shifts'], ['POST', '/shifts'], ['GET', '/alerts']] as const) {
      const onStaff = new (owner.browser.constructor as any)(staffBase(server), new URL(server.baseUrl).origin);
      onStaff.cookie = owner.browser.cookie;
      onStaff.csrf = owner.browser.csrf;
      expect((await onStaff.request(method, path, method === 'POST' ? { name: 'x', shape: circle } : undefined)).status, `${method} ${path}`).toBe(401);
      const keyed = await fetch(staffBase(server) + path, { method, headers: { authorization: `Bearer ${org.keys.live}`, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      expect(keyed.status, `${method} ${path} with a key`).toBe(401);
    }
  });
});

describe('alerts for staff', () => {
  it('on shift but not on duty; available with no fix for five minutes; a status past its limit: each opened by the job, and cleared when it ends', async () => {
    const here = place(8);
    const area = (await admin.browser.post('/areas', { name: 'Alert Town', shape: { type: 'Circle', center: [here.longitude, here.latitude], radius_m: 5000 } })).body.area;
    const idle = await verifiedAt('Ife Idle', east(here, 1));
    const hour = hourIn(server.clock.now(), 'Africa/Lagos');
    await admin.browser.post('/shifts', { responder_id: idle.responder.responder_id, area_id: area.area_id, start_hour: hour, end_hour: (hour + 2) % 24 });
    expect((await beat(idle.token, east(here, 1), false)).status).toBe(200);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([expect.objectContaining({ kind: 'on_shift_off_duty', message: 'Ife Idle is on shift now and not on duty' })]);
    await beat(idle.token, east(here, 1), true);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([]);

    // Available, and the phone goes quiet for five minutes.
    server.clock.advance(300_000);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([expect.objectContaining({ kind: 'no_fix', message: 'Ife Idle is available with no fix for 5 min' })]);
    await beat(idle.token, east(here, 1), true);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([]);

    // An offer held longer than STATUS_LIMIT_OFFERED_S (120 s here).
    const id = await report(here);
    server.clock.advance(60_000);
    await beat(idle.token, east(here, 1), true);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([]);
    server.clock.advance(61_000);
    await beat(idle.token, east(here, 1), true);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([expect.objectContaining({ kind: 'status_overdue', message: 'Ife Idle has been offered for 2 min (limit 2 min)' })]);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(idle.responder.responder_id)).toEqual([]);
    const all = await alertsOf(idle.responder.responder_id, 'all');
    expect(all.map((a) => a.kind).sort()).toEqual(['no_fix', 'on_shift_off_duty', 'status_overdue']);
    expect(all.every((a) => a.cleared_at !== null)).toBe(true);
  });

  it("on shift, on duty and outside the area's shape: an alert naming the area; inside a polygon, or a phone's error past a circle's edge, none; busy elsewhere, none", async () => {
    const here = place(9);
    const hour = hourIn(server.clock.now(), 'Africa/Lagos');
    // Kilometres east on the sphere, to the metre (east() is rounder).
    const exactlyEast = (at: { latitude: number; longitude: number }, km: number) => ({ latitude: at.latitude, longitude: at.longitude + km / (111.1951 * Math.cos((at.latitude * Math.PI) / 180)) });
    // A square of about 4.4 km a side around `here`.
    const d = 0.02;
    const square = [[here.longitude - d, here.latitude - d], [here.longitude + d, here.latitude - d], [here.longitude + d, here.latitude + d], [here.longitude - d, here.latitude + d], [here.longitude - d, here.latitude - d]];
    const area = (await admin.browser.post('/areas', { name: 'Square Town', shape: { type: 'Polygon', coordinates: [square] } })).body.area;
    const rover = await verifiedAt('Rita Rover', here);
    await admin.browser.post('/shifts', { responder_id: rover.responder.responder_id, area_id: area.area_id, start_hour: hour, end_hour: (hour + 2) % 24 });
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(rover.responder.responder_id)).toEqual([]);

    // 5 km east of the centre: about 2.8 km past the square's east edge (0.02° of longitude there is 2.18 km).
    await beat(rover.token, exactlyEast(here, 5));
    await server.running.runJob('duty-alerts');
    const [outside] = await alertsOf(rover.responder.responder_id);
    expect(outside).toMatchObject({ kind: 'on_shift_outside_area' });
    expect(outside.message).toBe('Rita Rover is on shift for Square Town and on duty outside it (2.8 km from its edge when seen)');
    // Back inside (near a corner): cleared.
    await beat(rover.token, { latitude: here.latitude + d * 0.9, longitude: here.longitude - d * 0.9 });
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(rover.responder.responder_id)).toEqual([]);

    // Out again, but offered an incident there: busy is their work, wherever it takes them.
    await beat(rover.token, exactlyEast(here, 5));
    const id = await report(exactlyEast(here, 5.5));
    expect(await offersOf(rover.token)).toEqual([id]);
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(rover.responder.responder_id)).toEqual([]);
    await controller.browser.post(`/incidents/${id}/close`, { outcome: 'no_action_required' });

    // A circle of 1 km: 50 m past its edge is a phone's error and counts as inside; 400 m past it does not.
    const there = place(10);
    const ring = (await admin.browser.post('/areas', { name: 'Round Town', shape: { type: 'Circle', center: [there.longitude, there.latitude], radius_m: 1000 } })).body.area;
    const edge = await verifiedAt('Eddie Edge', exactlyEast(there, 1.05));
    await admin.browser.post('/shifts', { responder_id: edge.responder.responder_id, area_id: ring.area_id, start_hour: hour, end_hour: (hour + 2) % 24 });
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(edge.responder.responder_id)).toEqual([]);
    await beat(edge.token, exactlyEast(there, 1.4));
    await server.running.runJob('duty-alerts');
    expect(await alertsOf(edge.responder.responder_id)).toEqual([expect.objectContaining({ kind: 'on_shift_outside_area', message: 'Eddie Edge is on shift for Round Town and on duty outside it (400 m from its edge when seen)' })]);
    // A stale fix says nothing of where they are: no_fix's alert, not this one.
    server.clock.advance(301_000);
    await server.running.runJob('duty-alerts');
    expect((await alertsOf(edge.responder.responder_id)).map((a) => a.kind)).toEqual(['no_fix']);
    for (const phone of [rover, edge]) await beat(phone.token, east(here, 0), false);
  });
});
