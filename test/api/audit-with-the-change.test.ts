import { describe, expect, it } from 'vitest';
import { incidentBody, serverForSuite } from '../support/server.ts';

/**
 * An SOS's audit entry commits with the SOS (issue #33): it is in the log as soon as the answer
 * is, once, with the incident's id, whether or not the request carried an Idempotency-Key, and a
 * replay adds no second entry for the same incident.
 */
describe('the audit entry of an SOS commits with it', () => {
  const suite = serverForSuite();

  const entriesFor = async (incidentId: string) =>
    (await suite.server.running.database.db.selectFrom('audit_log').selectAll().where('resource_id', '=', incidentId).execute()).map((row) => ({
      action: row.action,
      actor_type: row.actor_type,
      environment: row.environment,
    }));

  it('is there when the answer is, with the incident as its resource', async () => {
    const created = await suite.org.live.post('/incidents', incidentBody());
    expect(created.status).toBe(201);
    // Read at once: an entry written after the answer could still be missing here.
    expect(await entriesFor(created.body.incident.incident_id)).toEqual([{ action: 'createIncident', actor_type: 'key', environment: 'live' }]);
  });

  it('with an Idempotency-Key, once, and a replay of the same request adds none', async () => {
    const headers = { 'idempotency-key': `sos-${Math.random()}` };
    const first = await suite.org.live.request('POST', '/incidents', { body: incidentBody(), headers });
    const again = await suite.org.live.request('POST', '/incidents', { body: incidentBody(), headers });
    expect(first.status).toBe(201);
    expect(again.body.incident.incident_id).toBe(first.body.incident.incident_id);
    expect(await entriesFor(first.body.incident.incident_id)).toEqual([{ action: 'createIncident', actor_type: 'key', environment: 'live' }]);
  });

  it('a body idempotency_key seen before answers 200 and records that call too, as before', async () => {
    const key = `body-${Math.random()}`;
    const first = await suite.org.live.post('/incidents', incidentBody({ idempotency_key: key }));
    const second = await suite.org.live.post('/incidents', incidentBody({ idempotency_key: key }));
    expect([first.status, second.status]).toEqual([201, 200]);
    await expect.poll(async () => (await entriesFor(first.body.incident.incident_id)).length).toBe(2);
  });
});
