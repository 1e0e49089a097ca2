import { describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase } from '../support/database.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, startTestServer } from '../support/server.ts';
import { joinStaff } from '../support/staff.ts';
import { openLive, responderIn } from '../support/staff-live.ts';

describe('the staff channel and the offer bell with two hosts on one PostgreSQL database', () => {
  it("a phone waiting on host B gets the offer an SOS on host A made; a controller on host B sees host A's position report", async () => {
    const database = await createMigratedDatabase();
    const clock = new ManualClock();
    const [a, b] = [await startTestServer({ database, clock, config: { DISPATCH_RADIUS_KM: '15' } }), await startTestServer({ database, clock, config: { DISPATCH_RADIUS_KM: '15' } })];
    try {
      const db = a.running.database.db;
      const org = await a.createOrganization();
      const here = { latitude: 6.4474, longitude: 3.4739 };
      const { responder, token } = await addResponder(db, clock, { name: 'Host B Phone', phone: '+2348030000101', latitude: here.latitude, longitude: here.longitude + 0.01, environment: 'live' });

      const staff = await joinStaff(b, 'controller');
      const live = await openLive(staff.browser);
      await live.next((m) => m.event === 'snapshot' && responderIn(m, responder.responder_id));
      await responderCall(a, token)('/availability', { method: 'PUT', body: { available: true, latitude: 6.45, longitude: 3.48 } });
      await live.next((m) => m.event === 'responders' && responderIn(m, responder.responder_id)?.latitude === 6.45);

      const waiting = responderCall(b, token)('/offers?wait=30');
      for (let i = 0; i < 100 && b.running.offerBell.waiting < 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const id = (await org.live.post('/incidents', incidentBody({ location: { coordinates: [here.longitude, here.latitude] } }))).body.incident.incident_id;
      const answer = await waiting;
      expect(answer.body.offers).toEqual([expect.objectContaining({ incident: expect.objectContaining({ incident_id: id }) })]);
      await live.next((m) => m.event === 'queue' && m.data.queue.some((item: { incident_id: string }) => item.incident_id === id));
      live.close();
    } finally {
      await a.stop();
      await b.stop();
      await database.drop();
    }
  });
});
