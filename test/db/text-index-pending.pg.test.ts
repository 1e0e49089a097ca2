import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * A GIN text index takes new rows into a pending list that every search reads in full (up to
 * 4 MB), and the insert that fills it merges it all. The server merges it in the background
 * (`text-index-pending`, server/db/text-search.ts): after SOSs, one run merges their pages, the
 * next finds none, and searches answer the same before and after.
 */
describe("PostgreSQL's text indexes' pending lists", () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    // The job runs only when the test says, so what it merges is what the test made.
    server = await startTestServer({ textIndexMerge: false });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('are merged by the job, and searches answer the same before and after', async () => {
    await server.running.runJob('text-index-pending');
    for (let i = 0; i < 40; i++) await org.live.post('/incidents', incidentBody({ subject: { name: `Pending Person ${i}`, phone: `+2348031200${String(i).padStart(3, '0')}` } }));
    const db = server.running.database.db;
    const settings = await sql<{ fastupdate: string | null }>`select (select option_value from pg_options_to_table(c.reloptions) where option_name = 'fastupdate') as fastupdate from pg_class c where c.relname = 'incidents_text'`.execute(db);
    // The default (on): new entries go to the pending list.
    expect(settings.rows[0]?.fastupdate ?? 'on').toBe('on');
    const before = (await org.live.get('/incidents?search=pending%20person%201&limit=100')).body;
    expect(before.totalResults).toBe(11);
    const merged = await server.running.runJob<number>('text-index-pending');
    expect(merged).toBeGreaterThan(0);
    expect(await server.running.runJob<number>('text-index-pending')).toBe(0);
    const after = (await org.live.get('/incidents?search=pending%20person%201&limit=100')).body;
    expect(after.results.map((incident: { incident_id: string }) => incident.incident_id)).toEqual(before.results.map((incident: { incident_id: string }) => incident.incident_id));
    expect(after.totalResults).toBe(11);
  }, 60_000);
});
