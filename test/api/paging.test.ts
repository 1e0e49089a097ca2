import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inDeepPagePlace, pagedRows, searchedPage } from '../../server/db/paged.ts';
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
    // A search reads its page and total in one statement (server/db/paged.ts, searchedPage).
    ['/access-logs?search=itor', 'log_id'],
    ['/access-codes?search=VISITOR', 'code_id'],
    ['/incidents?search=ada%20obi', 'incident_id'],
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

  it('a search answers the rows of the whole list that hold the text, in its order, and its total on every page, past the last too', async () => {
    const all = (await org.live.get('/access-logs?limit=100')).body.results as Array<{ log_id: string; visitor_name: string }>;
    for (const text of ['visitor 1', 'VISITOR', 'itor 1', 'nobody here']) {
      const holding = all.filter((log) => log.visitor_name.toLowerCase().includes(text.toLowerCase())).map((log) => log.log_id);
      const answer = (await org.live.get(`/access-logs?limit=100&search=${encodeURIComponent(text)}`)).body;
      expect(answer.results.map((log: { log_id: string }) => log.log_id), text).toEqual(holding);
      expect(answer.totalResults, text).toBe(holding.length);
      const past = (await org.live.get(`/access-logs?limit=4&page=9&search=${encodeURIComponent(text)}`)).body;
      expect(past.results).toEqual([]);
      expect(past.totalResults, text).toBe(holding.length);
    }
  });

  it('past its ceiling a searched page is read from every match, and its total says capped', async () => {
    const db = server.running.database.db;
    const matching = () => db.selectFrom('access_logs').where('organization_id', '=', org.organizationId).where('environment', '=', 'live').where('visitor_name', 'like', 'Visitor%');
    const order = { name: 'access_logs', kind: 'keyset', column: 'checked_in_at', id: 'log_id', direction: 'desc' } as const;
    const plain = await pagedRows(matching().selectAll(), order, { limit: 4 });
    const [under, underTotal] = await searchedPage(db, 'access_logs', matching(), order, { limit: 4 }, 20);
    expect(under.rows).toEqual(plain.rows);
    expect(under.nextCursor).toBe(plain.nextCursor);
    expect(underTotal).toEqual({ n: 13, capped: false });
    const [over, overTotal] = await searchedPage(db, 'access_logs', matching(), order, { limit: 4 }, 5);
    expect(over.rows).toEqual(plain.rows);
    expect(overTotal).toEqual({ n: 5, capped: true });
    // Its next page by cursor, and a page by offset past the ceiling, are the list's.
    const [next] = await searchedPage(db, 'access_logs', matching(), order, { limit: 4, cursor: over.nextCursor! }, 5);
    expect(next.rows).toEqual((await pagedRows(matching().selectAll(), order, { limit: 4, page: 2 })).rows);
    const [deep, deepTotal] = await searchedPage(db, 'access_logs', matching(), order, { limit: 4, page: 3 }, 5);
    expect(deep.rows).toEqual((await pagedRows(matching().selectAll(), order, { limit: 4, page: 3 })).rows);
    expect(deepTotal).toEqual({ n: 5, capped: true });
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

/**
 * A page by `page` deep into a list is an OFFSET that walks every row before it (issue #45): such
 * pages take a few places of their own (DATABASE_READ_DEEP_PAGES), so ten of them never hold
 * every place of the read lane. One more than the places waits a second, then is told to retry
 * or page by cursor; a shallow page never waits for them.
 */
describe('deep pages by page number', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    // "Deep" from the sixth row, one at a time.
    server = await startTestServer({ config: { DATABASE_READ_DEEP_FROM_ROWS: '6', DATABASE_READ_DEEP_PAGES: '1' } });
    org = await server.createOrganization();
    for (let i = 0; i < 12; i++) {
      const made = await org.live.post('/access-logs', { visitor_name: `Walk-in ${i}`, visitor_phone: `+23480311000${String(i).padStart(2, '0')}`, entry_point: 'Back Gate' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
  }, 120_000);
  afterAll(() => server.stop());

  it('while every deep-page place is taken, a deep page is a 503 with Retry-After saying to use the cursor, a shallow one answers; then the deep page answers what the cursor walk does', async () => {
    let release!: () => void;
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const place = inDeepPagePlace(() => {
      held();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await holding;
    try {
      const deep = await org.live.get('/access-logs?limit=3&page=3');
      expectErrorBody(deep.body, 503, expect.stringContaining('cursor'));
      expect(deep.headers.get('retry-after')).toBe('1');
      const shallow = await org.live.get('/access-logs?limit=3&page=2');
      expect(shallow.status).toBe(200);
      expect(shallow.body.results).toHaveLength(3);
    } finally {
      release();
      await place;
    }
    const byCursor: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 3; pages++) {
      const { body }: { body: { results: Array<{ log_id: string }>; next_cursor: string | null } } = await org.live.get(`/access-logs?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (pages === 2) byCursor.push(...body.results.map((log) => log.log_id));
      cursor = body.next_cursor;
    }
    const deep = await org.live.get('/access-logs?limit=3&page=3');
    expect(deep.status).toBe(200);
    expect(deep.body.results.map((log: { log_id: string }) => log.log_id)).toEqual(byCursor);
    expect(deep.body.totalResults).toBe(12);
  });

  it.each(['/access-logs?limit=2', '/access-logs?limit=5&entry_point=Back%20Gate', '/access-logs?limit=4&status=checked_in'])(
    '%s: deep pages (their skipped rows walked in the index, only the page read whole) are the cursor walk, ties by time included',
    async (path) => {
      const byCursor: string[][] = [];
      let answer = (await org.live.get(path)).body;
      byCursor.push(answer.results.map((log: { log_id: string }) => log.log_id));
      while (answer.next_cursor) {
        answer = (await org.live.get(`${path}&cursor=${encodeURIComponent(answer.next_cursor)}`)).body;
        byCursor.push(answer.results.map((log: { log_id: string }) => log.log_id));
      }
      const byPage: string[][] = [];
      for (let page = 1; page <= byCursor.length; page++) {
        const { body } = await org.live.get(`${path}&page=${page}`);
        byPage.push(body.results.map((log: { log_id: string }) => log.log_id));
        expect(body.next_cursor === null).toBe(page === byCursor.length);
      }
      expect(byPage).toEqual(byCursor);
      expect(byPage.flat()).toHaveLength(12);
    },
  );
});
