import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Every list answers `next_cursor` and takes `cursor` (issue #45): the next page at any depth, by
 * an index seek rather than an offset. Walking a list by cursor gives exactly what walking it by
 * page gives, in the same order, each row once, and ends with a null cursor.
 */
describe('pages by cursor', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
    for (let i = 0; i < 13; i++) {
      // Some share a timestamp: the id orders them, and no row of a tie is lost between pages.
      if (i % 3 === 0) server.clock.advance(1000);
      await org.live.post('/incidents', incidentBody({ category: i % 2 ? 'medical' : 'sos' }));
      const code = await org.live.post('/access-codes', { visitor_name: `Visitor ${i}`, visitor_phone: `+23480300000${String(i).padStart(2, '0')}` });
      await org.live.post('/access-codes/validate', { code: code.body.access_code.code, entry_point: 'Main Gate' });
      await org.live.post('/access-logs', { visitor_name: `Walk-in ${i}`, entry_point: 'Back Gate' });
    }
  }, 120_000);
  afterAll(() => server.stop());

  const LISTS: Array<[string, string]> = [
    ['/incidents', 'incident_id'],
    ['/incidents?category=medical', 'incident_id'],
    ['/access-codes', 'code_id'],
    ['/access-logs', 'log_id'],
    ['/access-logs?entry_point=Back%20Gate', 'log_id'],
    ['/events', 'id'],
    ['/audit-log', 'audit_id'],
  ];

  const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

  it.each(LISTS)('%s: the cursor walk equals the page walk, each row once, and ends with a null cursor', async (path, id) => {
    const byPage: string[] = [];
    const total = (await org.live.get(join(path, 'limit=4'))).body.totalResults as number;
    for (let page = 1; page <= Math.ceil(total / 4); page++) byPage.push(...(await org.live.get(join(path, `limit=4&page=${page}`))).body.results.map((item: Record<string, string>) => item[id]));
    expect(byPage).toHaveLength(total);

    const byCursor: string[] = [];
    let answer = (await org.live.get(join(path, 'limit=4'))).body;
    const pages = [answer.page];
    byCursor.push(...answer.results.map((item: Record<string, string>) => item[id]));
    while (answer.next_cursor) {
      answer = (await org.live.get(join(path, `limit=4&cursor=${encodeURIComponent(answer.next_cursor)}`))).body;
      expect(answer.totalResults).toBe(total);
      pages.push(answer.page);
      byCursor.push(...answer.results.map((item: Record<string, string>) => item[id]));
    }
    expect(byCursor).toEqual(byPage);
    expect(new Set(byCursor).size).toBe(byCursor.length);
    expect(pages).toEqual(pages.map((_, i) => i + 1));
  });

  it('a cursor page is stable: rows made after the first page do not shift the next one', async () => {
    const first = (await org.live.get('/access-logs?limit=5')).body;
    const expected = (await org.live.get('/access-logs?limit=5&page=2')).body.results.map((log: { log_id: string }) => log.log_id);
    server.clock.advance(1000);
    await org.live.post('/access-logs', { visitor_name: 'Late arrival' });
    const next = (await org.live.get(`/access-logs?limit=5&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    expect(next.results.map((log: { log_id: string }) => log.log_id)).toEqual(expected);
  });

  it('the limit may change between cursor pages', async () => {
    const first = (await org.live.get('/incidents?limit=3')).body;
    const next = (await org.live.get(`/incidents?limit=7&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    const all = (await org.live.get('/incidents?limit=10')).body.results.map((incident: { incident_id: string }) => incident.incident_id);
    expect(next.results.map((incident: { incident_id: string }) => incident.incident_id)).toEqual(all.slice(3, 10));
  });

  it('a cursor with a page is a 400 naming both; a cursor this list never gave is a 400 naming cursor', async () => {
    const cursor = encodeURIComponent((await org.live.get('/access-logs?limit=2')).body.next_cursor);
    const both = await org.live.get(`/access-logs?limit=2&page=2&cursor=${cursor}`);
    expectErrorBody(both.body, 400, expect.stringMatching(/^cursor: .*page/));
    expect(both.body.errors.map((problem: { field: string }) => problem.field)).toEqual(['cursor', 'page']);
    for (const bad of ['nonsense', encodeURIComponent(Buffer.from('{"l":"access_logs","p":0}').toString('base64url'))]) {
      expectErrorBody((await org.live.get(`/access-logs?cursor=${bad}`)).body, 400, expect.stringMatching(/^cursor: /));
    }
    // Another list's cursor.
    expectErrorBody((await org.live.get(`/incidents?cursor=${cursor}`)).body, 400, expect.stringMatching(/^cursor: /));
  });

  it("another organization's cursor pages that organization's rows only, never the maker's", async () => {
    const other = await server.createOrganization();
    const cursor = encodeURIComponent((await org.live.get('/access-logs?limit=2')).body.next_cursor);
    const answer = (await other.live.get(`/access-logs?limit=2&cursor=${cursor}`)).body;
    expect(answer.results).toEqual([]);
    expect(answer.totalResults).toBe(0);
  });
});
