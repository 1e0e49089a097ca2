import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONDER_LOCATION_EVERY_S } from '../../server/dispatch/responder-actions.ts';
import { addResponder } from '../../server/responders/service.ts';
import { Event, IncidentNote, ResponderLocation } from '../../shared/schemas/webhooks.ts';
import { Incident } from '../../shared/schemas/incidents.ts';
import { openStream } from '../support/event-stream.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The two incident events beyond the reference's: `incident.note_added` and
 * `incident.responder_location`. They reach GET /events and the stream; a webhook endpoint gets
 * them only when it names them exactly, never through `incident.*` or `*`.
 */

const LEKKI = { latitude: 6.4474, longitude: 3.4739 };
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startTestServer({ deliverWebhooks: false, config: { DISPATCH_RADIUS_KM: '15' } });
  org = await server.createOrganization();
});
afterAll(() => server?.stop());

const call = (token: string, path: string, init?: { method?: string; body?: unknown }) => responderCall(server, token)(path, init);

const eventsAbout = async (incidentId: string, type: string) =>
  (await org.live.get(`/events?resource_id=${incidentId}&type=${type}`)).body.results as any[];

async function endpoint(events: string[]): Promise<string> {
  // Sandbox: its endpoints may be on loopback.
  const res = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook_endpoint.endpoint_id;
}

/** The event types queued for an endpoint so far. */
async function queuedTypes(endpointId: string): Promise<string[]> {
  const rows = await server.running.database.db
    .selectFrom('webhook_jobs')
    .innerJoin('events', 'events.event_id', 'webhook_jobs.event_id')
    .select('events.type')
    .where('webhook_jobs.endpoint_id', '=', endpointId)
    .execute();
  return [...new Set(rows.map((row) => row.type))].sort();
}

describe('incident.note_added and incident.responder_location', () => {
  it('a note is an incident.note_added event: the incident and the note, in GET /events and on the stream', async () => {
    const stream = await openStream(`${server.baseUrl}/events/stream?types=incident.note_added`, { authorization: `Bearer ${org.keys.live}` });
    const created = await org.live.post('/incidents', incidentBody());
    const incidentId = created.body.incident.incident_id;
    const noted = await org.live.post(`/incidents/${incidentId}/notes`, { message: 'Gate 2 is locked; use the side entrance' });
    expect(noted.status).toBe(200);
    const [logged] = await eventsAbout(incidentId, 'incident.note_added');
    expect(Event.parse(logged)).toBeTruthy();
    expect(Incident.parse(logged.data).incident_id).toBe(incidentId);
    expect(IncidentNote.parse(logged.data.note)).toEqual({ message: 'Gate 2 is locked; use the side entrance', timestamp: server.clock.now().toISOString() });
    expect(logged.data.timeline.at(-1)).toMatchObject({ event: 'note', message: 'Gate 2 is locked; use the side entrance' });
    const [streamed] = await stream.waitForEvents(1);
    expect(streamed).toMatchObject({ id: logged.id, event: 'incident.note_added', data: logged });
    stream.close();
  });

  it("the assigned responder's heartbeat is an incident.responder_location with position and ETA, at most one per incident every 10 s", async () => {
    const responder = await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Near',
      phone: '+2348033333333',
      latitude: LEKKI.latitude,
      longitude: LEKKI.longitude + 3 / 110.5,
      environment: 'live',
    });
    const created = await org.live.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way' } }));
    const incidentId = created.body.incident.incident_id;
    // Not assigned yet: a heartbeat reports nothing about the incident.
    await call(responder.token, '/availability', { method: 'PUT', body: { available: true, ...LEKKI } });
    const [offer] = (await call(responder.token, '/offers?wait=5')).body.offers;
    expect((await call(responder.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    expect(await eventsAbout(incidentId, 'incident.responder_location')).toEqual([]);

    // About 1.1 km east: 25 km/h gives 3 minutes.
    const place = { latitude: LEKKI.latitude, longitude: LEKKI.longitude + 1.1 / 110.5 };
    expect((await call(responder.token, '/availability', { method: 'PUT', body: { available: false, ...place } })).status).toBe(200);
    const [first] = await eventsAbout(incidentId, 'incident.responder_location');
    expect(Incident.parse(first.data).incident_id).toBe(incidentId);
    expect(ResponderLocation.parse(first.data.responder_location)).toEqual({ ...place, eta_minutes: 3, reported_at: server.clock.now().toISOString() });
    expect(first.data.responder).toMatchObject({ location: place, eta_minutes: 3 });

    // Within the throttle: dropped. After it: reported.
    server.clock.advance((RESPONDER_LOCATION_EVERY_S - 1) * 1000);
    await call(responder.token, '/availability', { method: 'PUT', body: { available: false, ...LEKKI } });
    expect(await eventsAbout(incidentId, 'incident.responder_location')).toHaveLength(1);
    server.clock.advance(1000);
    await call(responder.token, '/availability', { method: 'PUT', body: { available: false, ...LEKKI } });
    const [latest] = await eventsAbout(incidentId, 'incident.responder_location');
    expect(latest.data.responder_location).toMatchObject({ ...LEKKI, eta_minutes: 1 });
    expect((await org.live.get(`/incidents/${incidentId}`)).body.incident.responder).toMatchObject({ location: LEKKI, eta_minutes: 1 });
  });

  it('an endpoint subscribed to incident.* or * never gets them; one naming them exactly does', async () => {
    const family = await endpoint(['incident.*']);
    const everything = await endpoint(['*']);
    const exact = await endpoint(['incident.note_added', 'incident.responder_location']);
    const created = await org.sandbox.post('/incidents', incidentBody());
    await org.sandbox.post(`/incidents/${created.body.incident.incident_id}/notes`, { message: 'On my way' });
    await org.sandbox.post(`/incidents/${created.body.incident.incident_id}/cancel`, { reason: 'false alarm' });
    expect(await queuedTypes(family)).toEqual(['incident.cancelled', 'incident.created']);
    expect(await queuedTypes(everything)).toEqual(['incident.cancelled', 'incident.created']);
    expect(await queuedTypes(exact)).toEqual(['incident.note_added']);
    // The event log's incident.* is the whole family.
    const family_ = (await org.sandbox.get(`/events?resource_id=${created.body.incident.incident_id}&type=incident.*`)).body.results.map((e: any) => e.type);
    expect(family_.sort()).toEqual(['incident.cancelled', 'incident.created', 'incident.note_added']);
  });
});
