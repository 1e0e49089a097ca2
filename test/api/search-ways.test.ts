import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchScanRows, setSearchScanRows } from '../../server/db/text-search.ts';
import { checkProperty } from '../support/property.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * A search of a list of few rows reads those rows; of many, the text index shared by every
 * organization (DATABASE_SEARCH_SCAN_ROWS, server/db/text-search.ts `SearchWay`, issue #45). A
 * person cannot tell which way answered: for any text, in any case, with accents, spaces, quotes
 * and LIKE's own characters, on visits, codes and incidents, both ways give the same rows in the
 * same order and the same total.
 */
const NAMES = ['Émeka Ọkafor', 'Ngozi Eze', 'Ọlá Adébáyọ̀', 'ADA OBI', 'Chiamaka "Chi" Nwosu', 'Musa 100%_Bello', 'Zainab Ụmar', 'Ìfẹ́oluwa Ṣàngó', 'obi ada', 'Tunde O\'Neil'];
const PURPOSES = ['Delivery: DHL', 'Plumber (kitchen)', 'Visiting Émeka', 'Party 50% off', null];

describe('a search answers the same whichever way it is looked up', () => {
  let server: TestServer;
  let org: TestOrganization;
  let before: number;

  beforeAll(async () => {
    before = searchScanRows();
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Search Ways Estate' });
    for (let i = 0; i < 40; i++) {
      const name = NAMES[i % NAMES.length]!;
      const phone = `+2348${String(30_000_000 + i * 7919).padStart(9, '0')}`;
      expect((await org.live.post('/access-logs', { visitor_name: `${name} ${i % 3 ? '' : i}`.trim(), visitor_phone: phone })).status).toBe(201);
      if (i % 2 === 0) {
        const purpose = PURPOSES[i % PURPOSES.length];
        expect((await org.live.post('/access-codes', { visitor_name: name, visitor_phone: phone, ...(purpose && { purpose }) })).status).toBe(201);
      }
      if (i % 3 === 0) {
        const created = await org.live.post('/incidents', {
          category: 'medical',
          severity: 'high',
          subject: { name, phone },
          location: { coordinates: [3.4751, 6.4493], address: '14 Admiralty Way, Lekki Phase 1' },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
    }
  }, 120_000);
  afterAll(async () => {
    setSearchScanRows(before);
    await server.stop();
  });

  /** Part of a name or phone, its letters' case changed at random; or a few of the awkward characters. */
  const text = fc.oneof(
    fc.record({ from: fc.nat(), start: fc.nat(), length: fc.integer({ min: 1, max: 7 }), flips: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }) }).map(({ from, start, length, flips }) => {
      const source = [...[...NAMES, ...PURPOSES.filter(Boolean), '+2348030007919'][from % (NAMES.length + 5)]!];
      const at = start % source.length;
      return source
        .slice(at, at + length)
        .map((char, i) => (flips[i] ? (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) : char))
        .join('');
    }),
    fc.array(fc.constantFrom('a', 'É', 'é', 'ọ', 'Ọ', '%', '_', '"', ' ', '0', '1', "'", 'bi'), { minLength: 1, maxLength: 5 }).map((chars) => chars.join('')),
  );

  it('visits, codes and incidents: the same rows, order and total by reading the rows as by the text index', async () => {
    await checkProperty(
      fc.asyncProperty(fc.constantFrom('access-logs', 'access-codes', 'incidents'), text, fc.integer({ min: 1, max: 15 }), async (list, search, limit) => {
        const path = `/${list}?${new URLSearchParams({ search, limit: String(limit) })}`;
        const answers = [];
        for (const rows of [0, 5_000]) {
          setSearchScanRows(rows);
          answers.push(await org.live.get(path));
        }
        // Every list trims a search alike (searchQuery): spaces only is no search, and no text is refused.
        expect(answers.map((answer) => answer.status), path).toEqual([200, 200]);
        const [indexed, scanned] = answers.map((answer) => answer.body);
        expect(scanned.results, `${path} read from the rows, against the text index`).toEqual(indexed.results);
        expect(scanned.totalResults, path).toBe(indexed.totalResults);
        expect(scanned.next_cursor === null, path).toBe(indexed.next_cursor === null);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('finds a name whatever the case of its accented letters, both ways', async () => {
    for (const rows of [0, 5_000]) {
      setSearchScanRows(rows);
      const answer = await org.live.get(`/access-logs?${new URLSearchParams({ search: 'ÉMEKA ọK', limit: '100' })}`);
      expect(answer.body.totalResults, `DATABASE_SEARCH_SCAN_ROWS=${rows}`).toBe(4);
      for (const visit of answer.body.results) expect(visit.visitor_name).toMatch(/^Émeka Ọkafor/);
    }
  });
});
