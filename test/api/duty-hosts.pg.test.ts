import { describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { incidentBody, startTestServer } from '../support/server.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase } from '../support/database.ts';
import { responderCall } from '../support/responder.ts';

describe('the duty job with several hosts on one PostgreSQL database', () => {
  it('hosts looking together open each alert once, count a missed check-in once, and raise the case once', async () => {
    const database = await createMigratedDatabase();
    const clock = new ManualClock();
    const hosts = [await startTestServer({ database, clock }), await startTestServer({ database, clock }), await startTestServer({ database, clock })];
    try {
      const db = hosts[0]!.running.database.db;
      const org = await hosts[0]!.createOrganization();
      const here = { latitude: 6.4474, longitude: 3.4739 };
      const quiet = await addResponder(db, clock, { name: 'Quiet Phone', phone: '+2348030000001', latitude: here.latitude + 2, longitude: here.longitude, environment: 'live' });
      const { token } = await addResponder(db, clock, { name: 'On Scene', phone: '+2348030000002', latitude: here.latitude, longitude: here.longitude + 0.01, environment: 'live' });
      const id = (await org.live.post('/incidents', incidentBody({ location: { coordinates: [here.longitude, here.latitude] } }))).body.incident.incident_id as string;
      const call = responderCall(hosts[1]!, token);
      const [offer] = (await call('/offers')).body.offers as { offer_id: string }[];
      await call(`/offers/${offer!.offer_id}/accept`, { method: 'POST' });
      await call(`/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
      await call(`/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } });

      const lookTogether = () => Promise.all(hosts.map((host) => host.running.runJob('duty-alerts')));
      clock.advance(301_000);
      await lookTogether();
      clock.advance(300_000);
      await lookTogether();
      await lookTogether();

      const alerts = await db.selectFrom('staff_alerts').select(['kind', 'responder_id']).where('cleared_at', 'is', null).execute();
      expect(alerts.filter((a) => a.responder_id === quiet.responder.responder_id).map((a) => a.kind)).toEqual(['no_fix']);
      expect(alerts.filter((a) => a.kind === 'missed_check_in')).toHaveLength(1);
      expect((await db.selectFrom('safety_checks').select(['missed', 'raised_why']).where('incident_id', '=', id).executeTakeFirstOrThrow())).toEqual({ missed: 2, raised_why: 'missed_check_ins' });
      const timeline = (await org.live.get(`/incidents/${id}`)).body.incident.timeline as { event: string }[];
      expect(timeline.filter((entry) => entry.event === 'control_alert')).toHaveLength(1);
      const audit = await db.selectFrom('service_audit_log').select('detail').where('action', '=', 'alertRaised').execute();
      expect(audit.filter((row) => row.detail!.includes('missed_check_in'))).toHaveLength(1);
    } finally {
      for (const host of hosts) await host.stop();
      await database.drop();
    }
  });
});
