import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { countingRelay } from '../support/counting-relay.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/** Lekki, Lagos: where the SOSs of these tests are raised, a responder 2 km east. */
const LEKKI = { latitude: 6.4474, longitude: 3.4739 };

/**
 * An SOS on PostgreSQL costs two round trips: its BEGIN and one statement (the incident, its
 * timeline, its event and webhook deliveries, and dispatch's search), then the first offers and
 * the audit entry with the COMMIT (issue #33). The server talks to PostgreSQL through a relay
 * that logs what each connection sent; the SOS's connection is the one that sent its id.
 */
describe('an SOS on PostgreSQL: written in two round trips, and whole', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let server: TestServer;
  let org: TestOrganization;
  let endpointId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await countingRelay(new URL(database.url));
    server = await startTestServer({ database, deliverWebhooks: false, config: { DATABASE_URL: relay.url, DISPATCH_RADIUS_KM: '15' } });
    org = await server.createOrganization();
    await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Near',
      phone: '+2348031234567',
      latitude: LEKKI.latitude,
      longitude: LEKKI.longitude + 2 / 110.5,
      environment: 'live',
    });
    const endpoint = await org.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/tsaro/hooks', events: ['incident.*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    endpointId = endpoint.body.webhook_endpoint.endpoint_id;
  });
  afterAll(async () => {
    await server.stop();
    await relay.close();
    await database.drop();
  });

  const sos = () => org.live.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way, Lekki' } }));

  /** What the SOS wrote, read back from the database. */
  const written = async (incidentId: string) => {
    const db = server.running.database.db;
    const events = await db.selectFrom('events').select(['event_id', 'type']).where('resource_id', '=', incidentId).execute();
    return {
      timeline: (await db.selectFrom('incident_timeline').select('event').where('incident_id', '=', incidentId).orderBy('seq').execute()).map((row) => row.event),
      events: events.map((event) => event.type),
      deliveries: events.length
        ? (await db.selectFrom('webhook_jobs').select('endpoint_id').where('event_id', 'in', events.map((event) => event.event_id)).execute()).map((job) => job.endpoint_id)
        : [],
      offers: (await db.selectFrom('dispatch_offers').select('round').where('incident_id', '=', incidentId).execute()).length,
      audit: (await db.selectFrom('audit_log').select('action').where('resource_id', '=', incidentId).execute()).map((row) => row.action),
    };
  };

  it('the SOS connection makes two flights: BEGIN with the one statement, then the offers and audit entry with the COMMIT', async () => {
    // Warm: the destinations cached, the statements prepared on the connections.
    for (let i = 0; i < 3; i++) expect((await sos()).status).toBe(201);
    const from = relay.log().length;
    const created = await sos();
    expect(created.status).toBe(201);
    const incidentId: string = created.body.incident.incident_id;
    const flights = relay.log().slice(from);
    const carriers = new Set(flights.filter((flight) => flight.bytes.includes(incidentId)).map((flight) => flight.connection));
    expect(carriers.size, 'one connection wrote the SOS').toBe(1);
    const [connection] = carriers;
    expect(flights.filter((flight) => flight.connection === connection)).toHaveLength(2);
    expect(await written(incidentId)).toEqual({
      timeline: ['created', 'dispatched'],
      events: ['incident.created'],
      deliveries: [endpointId],
      offers: 1,
      audit: ['createIncident'],
    });
  });

  it('SOSs that arrive together share a transaction, and each is written whole, with its own audit entry, event, delivery and offer', async () => {
    const db = server.running.database.db;
    let shared = false;
    // A burst is read in one round of the event loop as a rule; three tries make "as a rule" certain enough.
    for (let burst = 0; burst < 3 && !shared; burst++) {
      const answers = await Promise.all(Array.from({ length: 12 }, () => sos()));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
      const ids: string[] = answers.map((answer) => answer.body.incident.incident_id);
      for (const id of ids) {
        expect(await written(id)).toEqual({ timeline: ['created', 'dispatched'], events: ['incident.created'], deliveries: [endpointId], offers: 1, audit: ['createIncident'] });
      }
      // Rows one transaction inserted carry its id (xmin).
      const transactions = await sql<{ tx: string }>`select distinct xmin::text as tx from incidents where incident_id in (${sql.join(ids)})`.execute(db);
      shared = transactions.rows.length < ids.length;
    }
    expect(shared, 'some SOSs of a burst shared a transaction').toBe(true);
  });

  it('after an endpoint changed (its cached destinations stale), the SOS still writes its event with the deliveries of the endpoints as they are now', async () => {
    const second = await org.live.post('/webhook-endpoints', { url: 'https://8.8.4.4/tsaro/hooks', events: ['incident.created'] });
    expect(second.status).toBe(201);
    const created = await sos();
    expect(created.status).toBe(201);
    const found = await written(created.body.incident.incident_id);
    expect(found.events).toEqual(['incident.created']);
    expect(found.deliveries.sort()).toEqual([endpointId, second.body.webhook_endpoint.endpoint_id].sort());
    expect(found.offers).toBe(1);
  });

  it('a sandbox SOS searches no live responder, and an idempotency_key taken writes nothing more', async () => {
    const first = await org.sandbox.post('/incidents', incidentBody({ idempotency_key: 'gate-1-press-7' }));
    expect(first.status).toBe(201);
    const again = await org.sandbox.post('/incidents', incidentBody({ idempotency_key: 'gate-1-press-7', title: 'Another body' }));
    expect(again.status).toBe(200);
    expect(again.body.incident.incident_id).toBe(first.body.incident.incident_id);
    const found = await written(first.body.incident.incident_id);
    expect(found).toMatchObject({ timeline: ['created', 'dispatched'], events: ['incident.created'], offers: 0 });
  });
});
