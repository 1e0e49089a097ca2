import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findIncidentWithTimeline } from '../../server/incidents/store.ts';
import { testEngine } from '../support/database.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

// GET /incidents/{id} under concurrency: on PostgreSQL the reads of requests that arrive
// together are one query (server/db/coalesced-read.ts). Each key carries its own tenant, so an
// incident shared in a batch with another organization's request still answers only its own.
describe('incident reads made at once', () => {
  let server: TestServer;
  let ada: TestOrganization;
  let bola: TestOrganization;
  const ids: Record<'adaLive' | 'adaSandbox' | 'bolaLive', string[]> = { adaLive: [], adaSandbox: [], bolaLive: [] };

  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.createOrganization({ name: 'Ada Estates' });
    bola = await server.createOrganization({ name: 'Bola Towers' });
    for (let i = 0; i < 4; i++) {
      ids.adaLive.push((await ada.live.post('/incidents', incidentBody({ description: `ada live ${i}` }))).body.incident.incident_id);
      ids.adaSandbox.push((await ada.sandbox.post('/incidents', incidentBody({ description: `ada sandbox ${i}` }))).body.incident.incident_id);
      ids.bolaLive.push((await bola.live.post('/incidents', incidentBody({ description: `bola live ${i}` }))).body.incident.incident_id);
    }
  });
  afterAll(() => server.stop());

  it('answers each caller its own incident, and another tenant’s as not found, from one query on PostgreSQL', async () => {
    const db = server.running.database.db;
    const adaLive = { organizationId: ada.organizationId, environment: 'live' };
    const adaSandbox = { organizationId: ada.organizationId, environment: 'sandbox' };
    const bolaLive = { organizationId: bola.organizationId, environment: 'live' };
    const asks = [
      ...ids.adaLive.map((id) => ({ tenant: adaLive, id, own: true })),
      ...ids.bolaLive.map((id) => ({ tenant: bolaLive, id, own: true })),
      ...ids.adaSandbox.map((id) => ({ tenant: adaSandbox, id, own: true })),
      // The same incidents asked for by the wrong organization or environment, in the same batch.
      ...ids.bolaLive.map((id) => ({ tenant: adaLive, id, own: false })),
      ...ids.adaLive.map((id) => ({ tenant: bolaLive, id, own: false })),
      ...ids.adaLive.map((id) => ({ tenant: adaSandbox, id, own: false })),
      { tenant: adaLive, id: 'inc_00000000000000000000000000', own: false },
      // One incident asked for twice in the batch.
      { tenant: adaLive, id: ids.adaLive[0]!, own: true },
    ];
    // SQLite: one read per request, each on the query-only connection without Kysely (server/db/direct-read.ts).
    const queries = testEngine() === 'postgres' ? vi.spyOn(db, 'executeQuery') : vi.spyOn(server.running.database.groupCommit!, 'readDirect');
    try {
      const found = await Promise.all(asks.map((ask) => findIncidentWithTimeline(db, ask.tenant, ask.id)));
      found.forEach((answer, i) => {
        const ask = asks[i]!;
        if (!ask.own) return expect(answer, `${ask.id} for ${ask.tenant.organizationId}/${ask.tenant.environment}`).toBeUndefined();
        expect(answer?.row).toMatchObject({ incident_id: ask.id, organization_id: ask.tenant.organizationId, environment: ask.tenant.environment });
        expect(answer?.timeline.map((entry) => entry.event)).toEqual(['created', 'dispatched']);
      });
      expect(queries).toHaveBeenCalledTimes(testEngine() === 'postgres' ? 1 : asks.length);
    } finally {
      queries.mockRestore();
    }
  });

  it('gives fifty clients reading at once the same answers as one client reading alone', async () => {
    const alone = new Map<string, unknown>();
    for (const id of ids.adaLive) alone.set(id, (await ada.live.get(`/incidents/${id}`)).body);
    const reads = Array.from({ length: 50 }, (_, i) => {
      const id = [...ids.adaLive, ...ids.bolaLive][i % 8]!;
      const client = i % 3 === 0 ? bola.live : ada.live;
      return { id, mine: client === ada.live ? ids.adaLive.includes(id) : ids.bolaLive.includes(id), response: client.get(`/incidents/${id}`) };
    });
    const answers = await Promise.all(reads.map((read) => read.response));
    reads.forEach((read, i) => {
      const res = answers[i]!;
      if (!read.mine) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ code: 404, message: 'Incident not found' });
        return;
      }
      expect(res.status).toBe(200);
      if (alone.has(read.id)) expect(res.body).toEqual(alone.get(read.id));
      else expect(res.body.incident.incident_id).toBe(read.id);
    });
    expect(reads.filter((read) => !read.mine)).toHaveLength(25);
  });
});
