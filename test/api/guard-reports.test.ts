import { describe, expect, it } from 'vitest';
import { expectErrorBody, incidentBody, serverForSuite } from '../support/server.ts';

/**
 * The gate guard's truth about an SOS (issue #35): "I called for help" and "False alarm" are
 * recorded on the incident, never change its status (operators close it), and arrive as
 * `incident.updated` to the board and webhooks.
 */
describe('a guard reports what they did about an SOS', () => {
  const suite = serverForSuite();

  it('called for help and false alarm are timeline entries naming the guard, at the current status; the incident stays open', async () => {
    const org = await suite.server.createOrganization();
    const id = (await org.live.post('/incidents', incidentBody())).body.incident.incident_id as string;
    const called = await org.live.post(`/incidents/${id}/guard-report`, { report: 'called_for_help', guard: 'Musa Bello', note: 'Called Lekki police, 112' });
    expect(called.status).toBe(200);
    expect(called.body.incident.status).toBe('dispatching');
    expect(called.body.incident.timeline.at(-1)).toMatchObject({ event: 'called_for_help', status: 'dispatching', message: 'Musa Bello called for help: Called Lekki police, 112' });
    const falseAlarm = await org.live.post(`/incidents/${id}/guard-report`, { report: 'false_alarm' });
    expect(falseAlarm.body.incident.timeline.at(-1)).toMatchObject({ event: 'false_alarm', message: 'The guard reported a false alarm' });
    expect(falseAlarm.body.incident.status).toBe('dispatching');
    expect(falseAlarm.body.incident.version).toBe(called.body.incident.version + 1);
    const events = (await org.live.get(`/events?resource_id=${id}&type=incident.updated`)).body.results;
    expect(events).toHaveLength(2);
  });

  it('an offline kiosk says when the guard reported it; a time in the future, an unknown report, or a finished incident is refused', async () => {
    const org = await suite.server.createOrganization();
    const id = (await org.live.post('/incidents', incidentBody())).body.incident.incident_id as string;
    const earlier = new Date(suite.server.clock.now().getTime() - 5 * 60_000).toISOString();
    const late = await org.live.post(`/incidents/${id}/guard-report`, { report: 'called_for_help', reported_at: earlier });
    expect(late.body.incident.timeline.at(-1).timestamp).toBe(earlier);
    const future = new Date(suite.server.clock.now().getTime() + 3_600_000).toISOString();
    expect((await org.live.post(`/incidents/${id}/guard-report`, { report: 'called_for_help', reported_at: future })).status).toBe(400);
    const unknown = await org.live.post(`/incidents/${id}/guard-report`, { report: 'panicked' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^report: /);
    await org.live.post(`/incidents/${id}/cancel`, { reason: 'Test' });
    expectErrorBody((await org.live.post(`/incidents/${id}/guard-report`, { report: 'false_alarm' })).body, 409, 'Incident is already cancelled');
    const other = await suite.server.createOrganization();
    expect((await other.live.post(`/incidents/${id}/guard-report`, { report: 'false_alarm' })).status).toBe(404);
  });
});
