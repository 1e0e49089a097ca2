import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourIn } from '../../server/duty/status.ts';
import { addResponder } from '../../server/responders/service.ts';
import { joinConsole } from '../support/console.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { joinStaff, staffBase } from '../support/staff.ts';
import { openLive, responderIn } from '../support/staff-live.ts';

/**
 * The staff channel, GET /v1/staff/live (issue #47): a snapshot, then responders' positions and
 * statuses, the queue and alerts as they change; staff only. And the waiting phones' bell: a long
 * poll answered by an offer without each phone reading the database on its own.
 */
let server: TestServer;
let org: TestOrganization;
beforeAll(async () => {
  server = await startTestServer({ config: { DISPATCH_RADIUS_KM: '15' } });
  org = await server.createOrganization();
});
afterAll(() => server?.stop());

const LEKKI = { latitude: 6.4474, longitude: 3.4739 };
let phones = 0;
const responderNear = (name: string, kmEast = 1) =>
  addResponder(server.running.database.db, server.clock, {
    name,
    phone: `+23480300${String(++phones).padStart(5, '0')}`,
    latitude: LEKKI.latitude,
    longitude: LEKKI.longitude + kmEast / 110.5,
    environment: 'live',
  });

describe('the staff channel', () => {
  it('a controller sees a responder on the map, then its new position and its new status, as they happen', async () => {
    const { responder, token } = await responderNear('Emeka <b>Okafor</b>');
    const staff = await joinStaff(server, 'controller');
    const live = await openLive(staff.browser);
    try {
      expect(live.status).toBe(200);
      const snapshot = await live.next((m) => m.event === 'snapshot');
      expect(responderIn(snapshot, responder.responder_id)).toMatchObject({ name: 'Emeka <b>Okafor</b>', duty_status: 'available', latitude: LEKKI.latitude });
      expect(snapshot.data).toMatchObject({ queue: expect.any(Array), alerts: expect.any(Array), areas: expect.any(Array), sites: expect.any(Array), uncovered: expect.any(Array), radius_km: 15 });

      const phone = responderCall(server, token);
      expect((await phone('/availability', { method: 'PUT', body: { available: true, latitude: 6.5, longitude: 3.5 } })).status).toBe(200);
      const moved = await live.next((m) => m.event === 'responders' && responderIn(m, responder.responder_id)?.latitude === 6.5);
      expect(responderIn(moved, responder.responder_id)).toMatchObject({ longitude: 3.5, duty_status: 'available', location_at: expect.any(String) });

      await phone('/availability', { method: 'PUT', body: { available: false, latitude: 6.5, longitude: 3.5 } });
      const off = await live.next((m) => m.event === 'responders' && responderIn(m, responder.responder_id)?.duty_status === 'off_duty');
      expect(responderIn(off, responder.responder_id)).toMatchObject({ latitude: 6.5 });
    } finally {
      live.close();
    }
  });

  it("a live SOS reaches the channel's queue, and the offer turns the responder 'offered'", async () => {
    const { responder, token } = await responderNear('Ngozi Eze', 2);
    const staff = await joinStaff(server, 'supervisor');
    const live = await openLive(staff.browser);
    try {
      await live.next((m) => m.event === 'snapshot');
      const id = (await org.live.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way' } }))).body.incident.incident_id;
      await live.next((m) => m.event === 'queue' && m.data.queue.some((item: any) => item.incident_id === id));
      await live.next((m) => m.event === 'responders' && responderIn(m, responder.responder_id)?.duty_status === 'offered');
      await org.live.post(`/incidents/${id}/cancel`, {});
      await live.next((m) => m.event === 'queue' && !m.data.queue.some((item: any) => item.incident_id === id));
      await responderCall(server, token)('/availability', { method: 'PUT', body: { available: false, latitude: 0, longitude: 0 } });
    } finally {
      live.close();
    }
  });

  it('an area with a shift now and nobody available inside it is a place out of reach, saying who is on shift and where; a responder arriving inside covers it', async () => {
    // Far from every other test's responders: 2 km around a point in the south.
    const centre = { latitude: -10, longitude: 30 };
    const east = (km: number) => ({ latitude: centre.latitude, longitude: centre.longitude + km / (111.1951 * Math.cos((centre.latitude * Math.PI) / 180)) });
    const admin = await joinStaff(server, 'network_admin');
    const area = (await admin.browser.post('/areas', { name: 'Far Field', shape: { type: 'Circle', center: [centre.longitude, centre.latitude], radius_m: 2000 } })).body.area;
    const { responder, token } = await addResponder(server.running.database.db, server.clock, { name: 'Ade Away', phone: '+2348039990001', ...east(10), environment: 'live' });
    const hour = hourIn(server.clock.now(), 'Africa/Lagos');
    const shift = (await admin.browser.post('/shifts', { responder_id: responder.responder_id, area_id: area.area_id, start_hour: hour, end_hour: (hour + 1) % 24 })).body.shift;
    const live = await openLive((await joinStaff(server, 'controller')).browser);
    try {
      const snapshot = await live.next((m) => m.event === 'snapshot');
      expect(snapshot.data.shifts).toEqual(expect.arrayContaining([expect.objectContaining({ shift_id: shift.shift_id, area_name: 'Far Field', on_now: true })]));
      const gap = (snapshot.data.uncovered as any[]).find((place) => place.kind === 'area' && place.id === area.area_id);
      expect(gap).toMatchObject({ name: 'Far Field', latitude: centre.latitude, longitude: centre.longitude, nearest_km: 8, note: 'On shift: Ade Away (available, 8.0 km outside)' });

      // The phone reports from inside the area: covered, and off the list.
      expect((await responderCall(server, token)('/availability', { method: 'PUT', body: { available: true, ...east(1) } })).status).toBe(200);
      await live.next((m) => m.event === 'uncovered' && !m.data.uncovered.some((place: any) => place.kind === 'area' && place.id === area.area_id));
      // Off duty inside it: nobody to send again.
      await responderCall(server, token)('/availability', { method: 'PUT', body: { available: false, ...east(1) } });
      const again = await live.next((m) => m.event === 'uncovered' && m.data.uncovered.some((place: any) => place.kind === 'area' && place.id === area.area_id));
      expect(again.data.uncovered.find((place: any) => place.id === area.area_id).note).toBe('On shift: Ade Away (off duty)');
      // The shift removed: nothing planned there now, and nothing listed.
      expect((await admin.browser.delete(`/shifts/${shift.shift_id}`)).status).toBe(200);
      const removed = await live.next((m) => m.event === 'shifts' && !m.data.shifts.some((s: any) => s.shift_id === shift.shift_id));
      expect(removed.data.shifts).toEqual(expect.any(Array));
      await live.next((m) => m.event === 'uncovered' && !m.data.uncovered.some((place: any) => place.id === area.area_id));
    } finally {
      live.close();
    }
  });

  it('every staff role may open it; a partner session or a partner key never reaches it (401)', async () => {
    for (const role of ['network_admin'] as const) {
      const live = await openLive((await joinStaff(server, role)).browser);
      expect(live.status).toBe(200);
      live.close();
    }
    const owner = await joinConsole(server, org.organizationId, 'owner');
    const asStaff = Object.assign(Object.create(Object.getPrototypeOf(owner.browser)), owner.browser, { baseUrl: staffBase(server) });
    expect((await openLive(asStaff)).status).toBe(401);
    const keyed = await fetch(`${staffBase(server)}/live`, { headers: { authorization: `Bearer ${org.keys.live}` } });
    expect(keyed.status).toBe(401);
    expect((await fetch(`${staffBase(server)}/live`)).status).toBe(401);
  });

  it('a signed-out staff session is refused, and its open stream closes', async () => {
    const staff = await joinStaff(server, 'controller');
    const live = await openLive(staff.browser);
    expect(live.status).toBe(200);
    await live.next((m) => m.event === 'snapshot');
    expect((await staff.browser.post('/sign-out')).status).toBeLessThan(300);
    expect((await openLive(staff.browser)).status).toBe(401);
    // The stream asks every second whether its session stands: it ends by itself.
    await live.ended;
  });
});

describe("the waiting phones' bell", () => {
  it('a phone waiting on a long poll gets an offer made meanwhile, without reading the database once per phone', async () => {
    const near = await responderNear('Bisi Waiting', 1);
    // Fifty other phones wait too, with no offer coming.
    const others = await Promise.all(Array.from({ length: 50 }, (_, i) => responderNear(`Far Phone ${i}`, 400 + i)));
    const bell = server.running.offerBell;
    const checksBefore = bell.checks;
    const idle = others.map((other) => responderCall(server, other.token)('/offers?wait=3'));
    const waiting = responderCall(server, near.token)('/offers?wait=30');
    // Everyone is waiting on the bell before the SOS.
    for (let i = 0; i < 100 && bell.waiting < 51; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bell.waiting).toBe(51);
    const id = (await org.live.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way' } }))).body.incident.incident_id;
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.offers).toEqual([expect.objectContaining({ incident: expect.objectContaining({ incident_id: id }) })]);
    for (const quiet of await Promise.all(idle)) expect(quiet.body.offers).toEqual([]);
    // 51 phones for about 3 s: under the old 500 ms polling, 300 reads of offers; the bell checks for all of them at once.
    expect(bell.checks - checksBefore).toBeLessThan(20);
    await org.live.post(`/incidents/${id}/cancel`, {});
    for (const phone of [near, ...others]) await responderCall(server, phone.token)('/availability', { method: 'PUT', body: { available: false, latitude: 0, longitude: 0 } });
  });

  it("a phone signed out by staff while waiting gets its 401 from the bell's check, not at the end of the wait", async () => {
    const { responder, token } = await responderNear('Tayo Signed-Out', 300);
    const waiting = responderCall(server, token)('/offers?wait=30');
    for (let i = 0; i < 100 && server.running.offerBell.waiting < 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await server.running.database.db.updateTable('responders').set({ token_hash: 'revoked' }).where('responder_id', '=', responder.responder_id).execute();
    const answer = await waiting;
    expect(answer.status).toBe(401);
  });
});
