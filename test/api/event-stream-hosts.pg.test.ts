import pg from 'pg';
import { ulid } from 'ulidx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { ManualClock } from '../support/clock.ts';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { ApiClient, incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The event stream across PostgreSQL hosts: an event written on one host reaches a stream on
 * another within a second, and a transaction that holds an earlier event id while later ones
 * commit is still delivered, live and on resume (ids are made before commit; the feed position
 * is given after it).
 */

let database: TestDatabase;
let hostA: TestServer;
let hostB: TestServer;
let org: TestOrganization;
let viaB: ApiClient;
const streams: OpenStream[] = [];

beforeAll(async () => {
  database = await createMigratedDatabase();
  const clock = new ManualClock();
  hostA = await startTestServer({ database, clock });
  hostB = await startTestServer({ database, clock });
  org = await hostA.createOrganization();
  viaB = new ApiClient(hostB.baseUrl, org.keys.live);
});

afterAll(async () => {
  for (const stream of streams) stream.close();
  await hostA?.stop();
  await hostB?.stop();
  await database?.drop();
});

async function streamOn(host: TestServer, headers: Record<string, string> = {}): Promise<OpenStream> {
  const opened = await openStream(`${host.baseUrl}/events/stream`, { authorization: `Bearer ${org.keys.live}`, ...headers });
  expect(opened.status).toBe(200);
  streams.push(opened);
  return opened;
}

describe('the event stream on two PostgreSQL hosts', () => {
  it('an SOS written on host A reaches a stream on host B within a second', async () => {
    const onB = await streamOn(hostB);
    for (let i = 0; i < 5; i++) {
      const sent = performance.now();
      const res = await org.live.post('/incidents', incidentBody());
      expect(res.status).toBe(201);
      const [event] = (await onB.waitForEvents(i + 1, 1000)).slice(i);
      expect(event!.data.data.incident_id).toBe(res.body.incident.incident_id);
      expect(event!.at - sent).toBeLessThan(1000);
    }
    onB.close();
  });

  it('a transaction holding an earlier event id that commits after later ones is delivered, live and on resume', async () => {
    const live = await streamOn(hostB);
    const first = await viaB.post('/incidents', incidentBody());
    await live.waitForEvents(1);
    const resumeFrom = live.events[0]!.id;

    // A writer that made its event id and holds its transaction open.
    const held = new pg.Client({ connectionString: database.url });
    held.on('error', () => undefined);
    await held.connect();
    // Made before the later writes' ids (the servers' ids follow their clock).
    const earlierId = `evt_${ulid(hostA.clock.now().getTime() - 1000)}`;
    await held.query('begin');
    await held.query(
      `insert into events (event_id, organization_id, environment, type, resource_id, data, created_at) values ($1, $2, 'live', 'incident.updated', $3, $4, $5)`,
      [earlierId, org.organizationId, first.body.incident.incident_id, JSON.stringify({ incident_id: first.body.incident.incident_id }), new Date().toISOString()],
    );
    // Meanwhile later ids commit, on both hosts, and are streamed.
    const later = [await org.live.post('/incidents', incidentBody()), await viaB.post('/incidents', incidentBody())];
    await live.waitForEvents(3);
    expect(live.events.slice(1).map((e) => e.data.data.incident_id)).toEqual(later.map((res) => res.body.incident.incident_id));
    expect(live.events[1]!.id > earlierId).toBe(true);
    // A stream resuming now (before the held commit) must not step over it either.
    const resumedBefore = await streamOn(hostA, { 'last-event-id': resumeFrom });
    await resumedBefore.waitForEvents(2);

    await held.query('commit');
    await held.end();
    await live.waitForEvents(4);
    expect(live.events[3]!.id).toBe(earlierId);
    await resumedBefore.waitForEvents(3);
    expect(resumedBefore.events.map((e) => e.id)).toEqual(live.events.slice(1).map((e) => e.id));

    // Resuming from the first event after the fact: every later one, once, in the order they became visible.
    const resumed = await streamOn(hostA, { 'last-event-id': resumeFrom });
    await resumed.waitForEvents(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed.events.map((e) => e.id)).toEqual(live.events.slice(1).map((e) => e.id));
    for (const s of [live, resumedBefore, resumed]) s.close();
  });

  it('writes from both hosts at once, one held open throughout: a stream and a resume each get every event exactly once', { timeout: 30_000 }, async () => {
    const live = await streamOn(hostA);
    const start = await org.live.post('/incidents', incidentBody());
    await live.waitForEvents(1);
    const resumeFrom = live.events[0]!.id;
    const held = new pg.Client({ connectionString: database.url });
    held.on('error', () => undefined);
    await held.connect();
    const heldId = `evt_${ulid(hostA.clock.now().getTime() - 1000)}`;
    await held.query('begin');
    await held.query(
      `insert into events (event_id, organization_id, environment, type, resource_id, data, created_at) values ($1, $2, 'live', 'incident.updated', $3, '{}', $4)`,
      [heldId, org.organizationId, start.body.incident.incident_id, new Date().toISOString()],
    );
    const writes = Array.from({ length: 40 }, (_, i) => (i % 2 ? viaB : org.live).post('/incidents', incidentBody()));
    const ids = (await Promise.all(writes)).map((res) => res.body.incident.incident_id as string);
    await held.query('commit');
    await held.end();
    await live.waitForEvents(42, 10_000);
    const resumed = await streamOn(hostB, { 'last-event-id': resumeFrom });
    await resumed.waitForEvents(41, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = live.events.slice(1).map((e) => e.id);
    expect(new Set(seen).size).toBe(41);
    expect(seen).toContain(heldId);
    expect(new Set(live.events.slice(1).filter((e) => e.id !== heldId).map((e) => e.data.data.incident_id))).toEqual(new Set(ids));
    expect(resumed.events.map((e) => e.id)).toEqual(seen);
    live.close();
    resumed.close();
  });
});
