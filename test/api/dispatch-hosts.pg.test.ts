import { describe, expect, it } from 'vitest';
import { incidentBody, startTestServer } from '../support/server.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase } from '../support/database.ts';

describe('dispatch deadlines with several hosts on one PostgreSQL database', () => {
  it('hosts sweeping together escalate and mark unresponsive once each', async () => {
    const database = await createMigratedDatabase();
    const clock = new ManualClock();
    const hosts = [await startTestServer({ database, clock }), await startTestServer({ database, clock }), await startTestServer({ database, clock })];
    try {
      const org = await hosts[0]!.createOrganization();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await org.live.post('/incidents', incidentBody())).body.incident.incident_id);
      clock.advance(60_000);
      await Promise.all(hosts.map((host) => host.running.advanceDispatch()));
      await Promise.all(hosts.map((host) => host.running.advanceDispatch()));
      clock.advance(300_000);
      await Promise.all(hosts.map((host) => host.running.advanceDispatch()));
      for (const id of ids) {
        const incident = (await org.live.get(`/incidents/${id}`)).body.incident;
        expect(incident.status).toBe('unresponsive');
        expect(incident.timeline.map((e: { event: string }) => e.event)).toEqual(['created', 'dispatched', 'escalated', 'unresponsive']);
      }
      const events = await hosts[0]!.running.database.db.selectFrom('events').select(['type']).where('resource_id', 'in', ids).execute();
      expect(events.filter((e) => e.type === 'incident.escalated')).toHaveLength(20);
      expect(events.filter((e) => e.type === 'incident.unresponsive')).toHaveLength(20);
    } finally {
      for (const host of hosts) await host.stop();
      await database.drop();
    }
  });
});
