import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase } from '../support/database.ts';

describe('kiosk outages with several hosts on one PostgreSQL database', () => {
  it('hosts sweeping together raise kiosk.offline once per silent kiosk, and kiosk.online once on its return', async () => {
    const database = await createMigratedDatabase();
    const clock = new ManualClock();
    const hosts = [await startTestServer({ database, clock }), await startTestServer({ database, clock }), await startTestServer({ database, clock })];
    try {
      const org = await hosts[0]!.createOrganization();
      const ids = Array.from({ length: 20 }, (_, i) => `kiosk_01JD7ZK3Q0C7W5N2Y8S4V${String(i).padStart(5, '0')}`);
      const beat = (host: number, id: string) =>
        hosts[host]!.client(org.keys.live).request('PUT', `/kiosks/${id}/heartbeat`, {
          body: { entry_point: 'Gate A', app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: clock.now().toISOString() },
        });
      for (const [i, id] of ids.entries()) expect((await beat(i % 3, id)).status).toBe(200);
      clock.advance(121_000);
      await Promise.all(hosts.flatMap((host) => [host.running.runSweeps(), host.running.runSweeps()]));
      await Promise.all(ids.map((id, i) => beat((i + 1) % 3, id)));
      await Promise.all(ids.map((id, i) => beat((i + 2) % 3, id)));
      const events = await hosts[0]!.running.database.db.selectFrom('events').select(['type', 'resource_id']).where('resource_id', 'in', ids).execute();
      for (const id of ids) {
        expect(events.filter((e) => e.resource_id === id).map((e) => e.type).sort(), id).toEqual(['kiosk.offline', 'kiosk.online']);
      }
    } finally {
      for (const host of hosts) await host.stop();
      await database.drop();
    }
  });
});
