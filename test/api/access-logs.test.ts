import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

interface WalkInBody {
  visitor_name?: string;
  visitor_phone?: string;
  [field: string]: unknown;
}

/** A walk-in as a gatehouse records it; override what the test is about. */
function walkInBody(overrides: WalkInBody = {}) {
  return { visitor_name: 'Ada Obi', visitor_phone: '+2348012345678', ...overrides };
}

describe('access logs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  // Tests move the clock; each starts at the same instant and with an organization of its own.
  beforeEach(() => server.clock.set(START));

  const walkIn = async (client: ApiClient, overrides: WalkInBody = {}) => {
    const res = await client.post('/access-logs', walkInBody(overrides));
    expect(res.status).toBe(201);
    return res.body.access_log;
  };

  /** A visitor with a code: the code is generated, then validated at a gate, which checks them in. */
  const codeEntry = async (
    client: ApiClient,
    visitor: { visitor_name: string; visitor_phone: string; host_user_id?: string },
    entryPoint?: string,
  ) => {
    const created = await client.post('/access-codes', visitor);
    expect(created.status).toBe(201);
    const validation = await client.post('/access-codes/validate', {
      code: created.body.access_code.code,
      ...(entryPoint !== undefined && { entry_point: entryPoint }),
    });
    expect(validation.status).toBe(200);
    expect(validation.body.valid).toBe(true);
    expect(validation.body.log_id).toMatch(/^log_/);
    return { logId: validation.body.log_id as string, codeId: created.body.access_code.code_id as string };
  };

  const checkout = (client: ApiClient, logId: string, body: Record<string, unknown> = {}) =>
    client.patch(`/access-logs/${logId}/checkout`, body);

  const getLog = async (client: ApiClient, logId: string) => {
    const res = await client.get(`/access-logs/${logId}`);
    expect(res.status).toBe(200);
    return res.body.access_log;
  };

  const countVisits = async (client: ApiClient) => (await client.get('/access-logs?limit=1')).body.totalResults as number;

  const eventsOf = (logId: string) =>
    server.running.database.db.selectFrom('events').selectAll().where('resource_id', '=', logId).orderBy('event_id').execute();

  describe('walk-in check-in', () => {
    let org: TestOrganization;
    beforeEach(async () => {
      org = await server.createOrganization();
    });

    it('answers 201 with the whole access log: a walk-in, checked in now, nothing on premises yet', async () => {
      const res = await org.live.post(
        '/access-logs',
        walkInBody({ entry_point: 'Main Gate', host_user_id: 'resident-12B', notes: 'Delivering a parcel', recorded_by: 'Guard Musa' }),
      );
      expect(res.status).toBe(201);
      // A walk-in that names no site happened at the organization's default site (issue #34).
      const defaultSite = (await org.live.get('/sites')).body.results.find((site: { is_default: boolean }) => site.is_default);
      expect(res.body).toEqual({
        access_log: {
          log_id: expect.stringMatching(/^log_[0-9A-Z]{26}$/),
          code_id: null,
          method: 'walk_in',
          visitor_name: 'Ada Obi',
          visitor_phone: '+2348012345678',
          entry_point: 'Main Gate',
          host_user_id: 'resident-12B',
          notes: 'Delivering a parcel',
          status: 'checked_in',
          checked_in_at: START,
          checked_out_at: null,
          checkout_notes: null,
          recorded_by: 'Guard Musa',
          auto_checked_out: false,
          already_inside_override: false,
          admitted_offline: null,
          site_id: defaultSite.site_id,
          duration_minutes: 0,
        },
      });
    });

    it('optional fields left out are null, and the log reads back the same', async () => {
      const log = await walkIn(org.live);
      expect(log).toMatchObject({ entry_point: null, host_user_id: null, notes: null, recorded_by: null });
      expect(await getLog(org.live, log.log_id)).toEqual(log);
    });

    it.each([
      [{ visitor_name: undefined }, 'visitor_name is required'],
      [{ visitor_phone: undefined }, 'visitor_phone is required'],
      [{ visitor_name: '' }, 'visitor_name'],
      [{ status: 'checked_out' }, 'status: unknown field'],
      [{ notes: 'n'.repeat(2001) }, 'notes'],
    ] as Array<[WalkInBody, string]>)('an invalid body %j answers 400 naming %s and records nothing', async (overrides, field) => {
      const res = await org.live.post('/access-logs', walkInBody(overrides));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain(field);
      expect(await countVisits(org.live)).toBe(0);
    });

    it('an offline kiosk may replay a walk-in 3 days old: it is recorded at the time the kiosk saw it', async () => {
      const threeDaysAgo = at(-3 * DAY);
      const log = await walkIn(org.live, { checked_in_at: threeDaysAgo });
      expect(log.checked_in_at).toBe(threeDaysAgo);
      expect(log.duration_minutes).toBe(3 * 24 * 60);
      expect(log.status).toBe('checked_in');
    });

    it('a replayed check-in time with an offset is stored in UTC', async () => {
      const log = await walkIn(org.live, { checked_in_at: '2026-11-22T09:30:00+01:00' });
      expect(log.checked_in_at).toBe('2026-11-22T08:30:00.000Z');
      expect(log.duration_minutes).toBe(90);
    });

    it.each([
      ['8 days old', at(-8 * DAY)],
      ['2 minutes in the future', at(2 * MINUTE)],
      ['a day in the future', at(DAY)],
      ['not a timestamp', 'yesterday'],
    ])('a check-in time %s answers 400 naming checked_in_at and records nothing', async (_what, checkedInAt) => {
      const res = await org.live.post('/access-logs', walkInBody({ checked_in_at: checkedInAt }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain('checked_in_at');
      expect(await countVisits(org.live)).toBe(0);
    });
  });

  describe('current visitors', () => {
    it('lists walk-ins and code entries, longest on premises first, with durations that grow with the clock', async () => {
      const org = await server.createOrganization();
      const walker = await walkIn(org.live, { visitor_name: 'Ada Obi', visitor_phone: '+2348010000001', entry_point: 'Main Gate' });

      const early = await org.live.get('/access-logs/current-visitors');
      expect(early.status).toBe(200);
      expect(early.body).toEqual({
        visitors: [
          {
            log_id: walker.log_id,
            code_id: null,
            visitor_name: 'Ada Obi',
            visitor_phone: '+2348010000001',
            entry_point: 'Main Gate',
            host_user_id: null,
            checked_in_at: START,
            duration_minutes: 0,
            already_inside_override: false,
            admitted_offline: null,
          },
        ],
        count: 1,
      });

      server.clock.advance(20 * MINUTE);
      const guest = await codeEntry(
        org.live,
        { visitor_name: 'Fatima Bello', visitor_phone: '+2348010000002', host_user_id: 'resident-4A' },
        'North Gate',
      );
      server.clock.advance(75 * MINUTE);

      const res = await org.live.get('/access-logs/current-visitors');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        visitors: [
          {
            log_id: walker.log_id,
            code_id: null,
            visitor_name: 'Ada Obi',
            visitor_phone: '+2348010000001',
            entry_point: 'Main Gate',
            host_user_id: null,
            checked_in_at: START,
            duration_minutes: 95,
            already_inside_override: false,
            admitted_offline: null,
          },
          {
            log_id: guest.logId,
            code_id: guest.codeId,
            visitor_name: 'Fatima Bello',
            visitor_phone: '+2348010000002',
            entry_point: 'North Gate',
            host_user_id: 'resident-4A',
            checked_in_at: at(20 * MINUTE),
            duration_minutes: 75,
            already_inside_override: false,
            admitted_offline: null,
          },
        ],
        count: 2,
      });
    });

    describe('filters', () => {
      let org: TestOrganization;
      let ids: Record<string, string>;
      beforeAll(async () => {
        server.clock.set(START);
        org = await server.createOrganization();
        ids = {};
        ids.ada = (await walkIn(org.live, { visitor_name: 'Ada Obi', visitor_phone: '+2348010000011', entry_point: 'Main Gate' })).log_id;
        server.clock.advance(5 * MINUTE);
        ids.chinedu = (
          await walkIn(org.live, { visitor_name: 'Chinedu Eze', visitor_phone: '+2348010000012', entry_point: 'North Gate' })
        ).log_id;
        server.clock.advance(5 * MINUTE);
        ids.nwosu = (
          await codeEntry(org.live, { visitor_name: 'Grace Nwosu-ADAMS', visitor_phone: '+2348010000013' }, 'Main Gate')
        ).logId;
        server.clock.advance(5 * MINUTE);
        ids.musa = (await walkIn(org.live, { visitor_name: 'Musa Danjuma', visitor_phone: '+2348010000014' })).log_id;
      });

      it.each([
        ['', ['ada', 'chinedu', 'nwosu', 'musa']],
        ['entry_point=Main%20Gate', ['ada', 'nwosu']],
        ['entry_point=North%20Gate', ['chinedu']],
        ['entry_point=Side%20Gate', []],
        ['search=ada', ['ada', 'nwosu']],
        ['search=EZE', ['chinedu']],
        ['search=nJuM', ['musa']],
        ['entry_point=Main%20Gate&search=obi', ['ada']],
        ['search=nobody', []],
        ['search=%25', []],
        ['search=_', []],
        // A phone's digits; and a name's end with a phone's start is in no column (PostgreSQL's text index joins them, migration 0063).
        ['search=0000011', ['ada']],
        ['search=Obi%2B234', []],
        ['search=Obi%1F%2B23', []],
      ])('?%s lists only the matching visitors', async (query, expected) => {
        const res = await org.live.get(`/access-logs/current-visitors?${query}`);
        expect(res.status).toBe(200);
        expect(res.body.visitors.map((v: { log_id: string }) => v.log_id)).toEqual(expected.map((name) => ids[name]));
        expect(res.body.count).toBe(expected.length);
      });
    });

    it('a visitor who checked out is no longer on premises', async () => {
      const org = await server.createOrganization();
      const leaving = await walkIn(org.live, { visitor_name: 'Leaving Soon' });
      const staying = await walkIn(org.live, { visitor_name: 'Staying On' });
      expect((await org.live.get('/access-logs/current-visitors')).body.count).toBe(2);
      server.clock.advance(10 * MINUTE);
      expect((await checkout(org.live, leaving.log_id)).status).toBe(200);
      const res = await org.live.get('/access-logs/current-visitors');
      expect(res.body.count).toBe(1);
      expect(res.body.visitors.map((v: { log_id: string }) => v.log_id)).toEqual([staying.log_id]);
    });

    it('never shows another organization or the other environment', async () => {
      const org = await server.createOrganization();
      await walkIn(org.live);
      const other = await server.createOrganization();
      expect((await other.live.get('/access-logs/current-visitors')).body).toEqual({ visitors: [], count: 0 });
      expect((await org.sandbox.get('/access-logs/current-visitors')).body).toEqual({ visitors: [], count: 0 });
    });
  });

  describe('checkout', () => {
    let org: TestOrganization;
    beforeEach(async () => {
      org = await server.createOrganization();
    });

    it('answers 200 with the log checked out now, the notes kept and the duration frozen at checkout', async () => {
      const log = await walkIn(org.live, { entry_point: 'Main Gate', recorded_by: 'Guard Musa' });
      server.clock.advance(42 * MINUTE);
      const res = await checkout(org.live, log.log_id, { checkout_notes: 'Left through the north gate' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_log: {
          ...log,
          status: 'checked_out',
          checked_out_at: at(42 * MINUTE),
          checkout_notes: 'Left through the north gate',
          duration_minutes: 42,
        },
      });

      server.clock.advance(3 * HOUR);
      expect(await getLog(org.live, log.log_id)).toEqual(res.body.access_log);
    });

    it('checking out twice answers 409 in the error shape and changes nothing', async () => {
      const log = await walkIn(org.live);
      server.clock.advance(15 * MINUTE);
      const first = await checkout(org.live, log.log_id, { checkout_notes: 'first' });
      expect(first.status).toBe(200);
      server.clock.advance(15 * MINUTE);
      const second = await checkout(org.live, log.log_id, { checkout_notes: 'second' });
      expect(second.status).toBe(409);
      expect(second.body).toEqual({ code: 409, message: expect.stringContaining('already checked out') });
      expect(await getLog(org.live, log.log_id)).toEqual(first.body.access_log);
    });

    it('an unknown id answers 404', async () => {
      const res = await checkout(org.live, 'log_01JD7ZK3Q0C7W5N2Y8S4V6X9AB');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Access log not found' });
      expect((await org.live.get('/access-logs/log_01JD7ZK3Q0C7W5N2Y8S4V6X9AB')).status).toBe(404);
    });

    it("another organization's visit answers 404 and stays open", async () => {
      const log = await walkIn(org.live);
      const other = await server.createOrganization();
      const res = await checkout(other.live, log.log_id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Access log not found' });
      expect((await other.live.get(`/access-logs/${log.log_id}`)).status).toBe(404);
      expect((await getLog(org.live, log.log_id)).status).toBe('checked_in');
    });

    it('a live visit is not found with a sandbox key, and stays open', async () => {
      const log = await walkIn(org.live);
      const res = await checkout(org.sandbox, log.log_id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Access log not found' });
      expect((await org.sandbox.get(`/access-logs/${log.log_id}`)).status).toBe(404);
      expect((await getLog(org.live, log.log_id)).status).toBe('checked_in');
    });

    it('an offline checkout time is kept when it is after the check-in', async () => {
      const log = await walkIn(org.live);
      server.clock.advance(2 * HOUR);
      const res = await checkout(org.live, log.log_id, { checked_out_at: at(30 * MINUTE) });
      expect(res.status).toBe(200);
      expect(res.body.access_log.checked_out_at).toBe(at(30 * MINUTE));
      expect(res.body.access_log.duration_minutes).toBe(30);
    });

    it('an offline checkout time earlier than the check-in is clamped to the check-in', async () => {
      const log = await walkIn(org.live);
      server.clock.advance(HOUR);
      const res = await checkout(org.live, log.log_id, { checked_out_at: at(-30 * MINUTE) });
      expect(res.status).toBe(200);
      expect(res.body.access_log.checked_out_at).toBe(START);
      expect(res.body.access_log.duration_minutes).toBe(0);
    });

    it('a checkout time in the future answers 400 naming checked_out_at and leaves the visit open', async () => {
      const log = await walkIn(org.live);
      const res = await checkout(org.live, log.log_id, { checked_out_at: at(HOUR) });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('checked_out_at');
      expect((await getLog(org.live, log.log_id)).status).toBe('checked_in');
    });

    it('two gates checking out one visit at once: exactly one 200, the others 409, one departure event', async () => {
      const log = await walkIn(org.live);
      server.clock.advance(10 * MINUTE);
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => checkout(org.live, log.log_id, { checkout_notes: `gate ${i}` })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      const winner = answers.find((res) => res.status === 200)!;
      expect(await getLog(org.live, log.log_id)).toEqual(winner.body.access_log);
      const departed = (await eventsOf(log.log_id)).filter((e) => e.type === 'visitor.departed');
      expect(departed).toHaveLength(1);
    });
  });

  describe('list and get', () => {
    let org: TestOrganization;
    const ids: Record<string, string> = {};
    const names: Record<string, string> = {};

    // V1..V6, oldest first; V2, V3 and V5 have left. V3 came with a code.
    beforeAll(async () => {
      org = await server.createOrganization();
      const visit = async (key: string, when: string, body: WalkInBody) => {
        server.clock.set(when);
        ids[key] = (await walkIn(org.live, body)).log_id;
        names[ids[key]!] = key;
      };
      const leave = async (key: string, when: string) => {
        server.clock.set(when);
        expect((await checkout(org.live, ids[key]!)).status).toBe(200);
      };
      await visit('V1', '2026-11-20T08:00:00.000Z', { visitor_name: 'Ada Obi', visitor_phone: '+2348010000001', entry_point: 'Main Gate' });
      await visit('V2', '2026-11-20T09:30:00.000Z', { visitor_name: 'Chinedu Eze', visitor_phone: '+2348010000002', entry_point: 'North Gate' });
      await leave('V2', '2026-11-20T11:00:00.000Z');
      server.clock.set('2026-11-21T08:00:00.000Z');
      ids.V3 = (await codeEntry(org.live, { visitor_name: 'Fatima Bello', visitor_phone: '+2348010000003' }, 'Main Gate')).logId;
      names[ids.V3] = 'V3';
      await leave('V3', '2026-11-21T09:15:00.000Z');
      await visit('V4', '2026-11-21T12:00:00.000Z', { visitor_name: 'Ngozi Okafor', visitor_phone: '+2348010000004', entry_point: 'North Gate' });
      await visit('V5', '2026-11-22T07:00:00.000Z', { visitor_name: 'Ada Nwosu', visitor_phone: '+2348010000005', entry_point: 'Main Gate' });
      await leave('V5', '2026-11-22T07:15:00.000Z');
      await visit('V6', '2026-11-22T09:00:00.000Z', { visitor_name: 'Musa Danjuma', visitor_phone: '+2348010000006' });
      server.clock.set(START);
    });

    const keysOf = (results: Array<{ log_id: string }>) => results.map((log) => names[log.log_id]);

    it('answers the page shape, newest check-in first', async () => {
      const res = await org.live.get('/access-logs');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 6 });
      expect(Object.keys(res.body).sort()).toEqual(['limit', 'next_cursor', 'page', 'results', 'totalPages', 'totalResults']);
      expect(keysOf(res.body.results)).toEqual(['V6', 'V5', 'V4', 'V3', 'V2', 'V1']);
    });

    it('open visits count their time to now, closed ones to their checkout', async () => {
      const res = await org.live.get('/access-logs');
      const byKey = Object.fromEntries(res.body.results.map((log: { log_id: string }) => [names[log.log_id], log]));
      expect(byKey.V6).toMatchObject({ status: 'checked_in', checked_out_at: null, duration_minutes: 60 });
      expect(byKey.V1).toMatchObject({ status: 'checked_in', duration_minutes: 2 * 24 * 60 + 120 });
      expect(byKey.V2).toMatchObject({ status: 'checked_out', checked_out_at: '2026-11-20T11:00:00.000Z', duration_minutes: 90 });
      expect(byKey.V3).toMatchObject({ method: 'code', code_id: expect.stringMatching(/^code_/), duration_minutes: 75 });
    });

    it('pages with page and limit', async () => {
      const res = await org.live.get('/access-logs?limit=4&page=2');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 2, limit: 4, totalPages: 2, totalResults: 6 });
      expect(keysOf(res.body.results)).toEqual(['V2', 'V1']);
    });

    it.each([
      ['status=checked_out', ['V5', 'V3', 'V2']],
      ['status=checked_in', ['V6', 'V4', 'V1']],
      ['visitor_phone=%2B2348010000004', ['V4']],
      ['visitor_phone=%2B2348010000009', []],
      ['entry_point=Main%20Gate', ['V5', 'V3', 'V1']],
      ['entry_point=North%20Gate&status=checked_in', ['V4']],
      ['search=ada', ['V5', 'V1']],
      ['search=OKAFOR', ['V4']],
      ['search=0000003', ['V3']],
      ['from_date=2026-11-21T08:00:00.000Z', ['V6', 'V5', 'V4', 'V3']],
      ['to_date=2026-11-21T08:00:00.000Z', ['V2', 'V1']],
      ['from_date=2026-11-21T09:00:00%2B01:00&to_date=2026-11-22T07:00:00Z', ['V4', 'V3']],
    ])('filters with %s', async (query, expected) => {
      const res = await org.live.get(`/access-logs?${query}`);
      expect(res.status).toBe(200);
      expect(keysOf(res.body.results)).toEqual(expected);
      expect(res.body.totalResults).toBe(expected.length);
    });

    it.each([
      ['page=0', 'page'],
      ['page=-2', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['status=gone', 'status'],
      ['status=checked_in&status=checked_out', 'status'],
      ['from_date=yesterday', 'from_date'],
      ['to_date=2026-13-01', 'to_date'],
    ])('%s answers 400 naming %s', async (query, field) => {
      const res = await org.live.get(`/access-logs?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain(field);
    });

    it('GET /access-logs/{logId} answers that one log, as the list shows it', async () => {
      const list = await org.live.get('/access-logs');
      const fromList = list.body.results.find((log: { log_id: string }) => log.log_id === ids.V3);
      const res = await org.live.get(`/access-logs/${ids.V3}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_log: fromList });
      expect(res.body.access_log).toMatchObject({ visitor_name: 'Fatima Bello', method: 'code', entry_point: 'Main Gate' });
    });

    it('never shows another organization or the other environment', async () => {
      expect((await org.sandbox.get('/access-logs')).body.totalResults).toBe(0);
      const other = await server.createOrganization();
      expect((await other.live.get('/access-logs')).body.totalResults).toBe(0);
    });

    describe('stats', () => {
      it('counts check-ins, walk-ins, code entries, check-outs, who is on premises and the average completed visit', async () => {
        const res = await org.live.get('/access-logs/stats');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          total_check_ins: 6,
          total_check_outs: 3,
          currently_on_premises: 3,
          walk_ins: 5,
          code_entries: 1,
          // V2 90 min, V3 75 min, V5 15 min
          average_duration_minutes: 60,
          by_entry_point: [
            { entry_point: 'Main Gate', entry_point_id: null, check_ins: 3 },
            { entry_point: 'North Gate', entry_point_id: null, check_ins: 2 },
            { entry_point: null, entry_point_id: null, check_ins: 1 },
          ],
        });
      });

      it('counts only visits checked in within the window, from_date inclusive, to_date exclusive', async () => {
        const res = await org.live.get('/access-logs/stats?from_date=2026-11-21T08:00:00.000Z&to_date=2026-11-22T09:00:00.000Z');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          total_check_ins: 3,
          total_check_outs: 2,
          // who is on premises is a fact of now, not of the window
          currently_on_premises: 3,
          walk_ins: 2,
          code_entries: 1,
          // V3 75 min, V5 15 min
          average_duration_minutes: 45,
          by_entry_point: [
            { entry_point: 'Main Gate', entry_point_id: null, check_ins: 2 },
            { entry_point: 'North Gate', entry_point_id: null, check_ins: 1 },
          ],
        });
      });

      it('a window with no completed visit has a null average', async () => {
        const res = await org.live.get('/access-logs/stats?from_date=2026-11-22T08:00:00.000Z');
        expect(res.body).toMatchObject({ total_check_ins: 1, total_check_outs: 0, walk_ins: 1, code_entries: 0, average_duration_minutes: null });
        expect(res.body.by_entry_point).toEqual([{ entry_point: null, entry_point_id: null, check_ins: 1 }]);
      });

      it('an invalid window answers 400 naming the field', async () => {
        const res = await org.live.get('/access-logs/stats?from_date=last-week');
        expect(res.status).toBe(400);
        expect(res.body.message).toContain('from_date');
      });

      it('another environment has its own (empty) stats', async () => {
        const res = await org.sandbox.get('/access-logs/stats');
        expect(res.body).toEqual({
          total_check_ins: 0,
          total_check_outs: 0,
          currently_on_premises: 0,
          walk_ins: 0,
          code_entries: 0,
          average_duration_minutes: null,
          by_entry_point: [],
        });
      });
    });
  });

  describe('events', () => {
    it('a walk-in writes visitor.arrived and its checkout visitor.departed, each carrying the REST access log', async () => {
      const org = await server.createOrganization();
      const arrived = await walkIn(org.live, { entry_point: 'Main Gate', notes: 'Plumber' });
      server.clock.advance(30 * MINUTE);
      const departed = await checkout(org.live, arrived.log_id, { checkout_notes: 'Job done' });
      const events = await eventsOf(arrived.log_id);
      expect(events.map((e) => e.type)).toEqual(['visitor.arrived', 'visitor.departed']);
      expect(events.every((e) => /^evt_[0-9A-Z]{26}$/.test(e.event_id))).toBe(true);
      expect(events.every((e) => e.organization_id === org.organizationId && e.environment === 'live')).toBe(true);
      expect(JSON.parse(events[0]!.data)).toEqual(arrived);
      expect(JSON.parse(events[1]!.data)).toEqual(departed.body.access_log);
      expect(events.map((e) => e.created_at)).toEqual([START, at(30 * MINUTE)]);
    });

    it('a check-in by code writes visitor.arrived carrying the access log', async () => {
      const org = await server.createOrganization();
      const { logId } = await codeEntry(org.sandbox, { visitor_name: 'Fatima Bello', visitor_phone: '+2348010000003' }, 'Side Gate');
      const events = await eventsOf(logId);
      expect(events.map((e) => e.type)).toEqual(['visitor.arrived']);
      expect(events[0]!.environment).toBe('sandbox');
      expect(JSON.parse(events[0]!.data)).toEqual(await getLog(org.sandbox, logId));
    });

    it('a rejected checkout writes no event', async () => {
      const org = await server.createOrganization();
      const log = await walkIn(org.live);
      await checkout(org.live, log.log_id);
      await checkout(org.live, log.log_id);
      await checkout(org.sandbox, log.log_id);
      expect((await eventsOf(log.log_id)).map((e) => e.type)).toEqual(['visitor.arrived', 'visitor.departed']);
    });
  });

  describe('visitor policies', () => {
    it('are off by default', async () => {
      const org = await server.createOrganization();
      const res = await org.live.get('/visitor-policies');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ auto_checkout_hours: null, retention_days: null });
    });

    it('an admin key sets them; a partial change keeps the other; null turns one off', async () => {
      const org = await server.createOrganization();
      const set = await org.live.patch('/visitor-policies', { auto_checkout_hours: 4, retention_days: 30 });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ auto_checkout_hours: 4, retention_days: 30 });
      expect((await org.live.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: 4, retention_days: 30 });

      const partial = await org.live.patch('/visitor-policies', { retention_days: null });
      expect(partial.body).toEqual({ auto_checkout_hours: 4, retention_days: null });
      // One organization's policy, whichever environment's key reads it
      expect((await org.sandbox.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: 4, retention_days: null });
    });

    it("a read after a change shows the change while the key cache still holds the key's copy from before it", async () => {
      // What a PostgreSQL host sees until the change's NOTIFY arrives: the guard's copy of the
      // organization is the one cached before the PATCH. Here that moment is held open.
      const org = await server.createOrganization();
      const cache = server.running.keyCache;
      const live = cache.lookup;
      const frozen = new Map<string, Awaited<ReturnType<typeof live>>>();
      cache.lookup = async (hash, load) => {
        if (!frozen.has(hash)) frozen.set(hash, await live.call(cache, hash, load));
        return frozen.get(hash);
      };
      try {
        expect((await org.live.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: null, retention_days: null });
        const set = await org.live.patch('/visitor-policies', { auto_checkout_hours: 6 });
        expect(set.body).toEqual({ auto_checkout_hours: 6, retention_days: null });
        expect((await org.live.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: 6, retention_days: null });
        const partial = await org.live.patch('/visitor-policies', { retention_days: 14 });
        expect(partial.body).toEqual({ auto_checkout_hours: 6, retention_days: 14 });
      } finally {
        cache.lookup = live;
      }
    });

    it.each([
      [{ auto_checkout_hours: 0 }, 'auto_checkout_hours'],
      [{ auto_checkout_hours: 1000 }, 'auto_checkout_hours'],
      [{ auto_checkout_hours: 2.5 }, 'auto_checkout_hours'],
      [{ retention_days: 0 }, 'retention_days'],
      [{ retention_days: 'forever' }, 'retention_days'],
      [{ keep_forever: true }, 'keep_forever: unknown field'],
    ])('%j answers 400 naming %s and changes nothing', async (body, field) => {
      const org = await server.createOrganization();
      await org.live.patch('/visitor-policies', { auto_checkout_hours: 8 });
      const res = await org.live.patch('/visitor-policies', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain(field);
      expect((await org.live.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: 8, retention_days: null });
    });

    it('a key without admin answers 403 naming the scope, and changes nothing', async () => {
      const org = await server.createOrganization();
      const gate = await org.keyWith(['access_codes:write', 'access_codes:read', 'logs:read', 'access_codes:validate']);
      const read = await gate.get('/visitor-policies');
      expect(read.status).toBe(403);
      expect(read.body).toEqual({ code: 403, message: expect.stringContaining('admin') });
      const write = await gate.patch('/visitor-policies', { auto_checkout_hours: 1 });
      expect(write.status).toBe(403);
      expect(write.body.message).toContain('admin');
      expect((await org.live.get('/visitor-policies')).body).toEqual({ auto_checkout_hours: null, retention_days: null });
    });

    describe('auto-checkout', () => {
      it('checks out at arrival + N hours anyone still in after N hours, once, with a departure event', async () => {
        const org = await server.createOrganization();
        expect((await org.live.patch('/visitor-policies', { auto_checkout_hours: 4 })).status).toBe(200);
        const overdue = await walkIn(org.live, { visitor_name: 'Overdue Visitor', entry_point: 'Main Gate' });
        server.clock.advance(2 * HOUR);
        const recent = await walkIn(org.live, { visitor_name: 'Recent Visitor' });
        server.clock.advance(3 * HOUR); // 15:00: overdue in 5 h, recent in 3 h

        await server.running.runSweeps();

        const closed = await getLog(org.live, overdue.log_id);
        expect(closed).toEqual({
          ...overdue,
          status: 'checked_out',
          checked_out_at: '2026-11-22T14:00:00.000Z',
          checkout_notes: expect.stringMatching(/\b4 ?(h|hours?)\b/),
          auto_checked_out: true,
          duration_minutes: 240,
        });
        expect(await getLog(org.live, recent.log_id)).toMatchObject({
          status: 'checked_in',
          checked_out_at: null,
          auto_checked_out: false,
          duration_minutes: 180,
        });
        const current = await org.live.get('/access-logs/current-visitors');
        expect(current.body.visitors.map((v: { log_id: string }) => v.log_id)).toEqual([recent.log_id]);

        await server.running.runSweeps();
        const events = await eventsOf(overdue.log_id);
        expect(events.map((e) => e.type)).toEqual(['visitor.arrived', 'visitor.departed']);
        expect(JSON.parse(events[1]!.data)).toEqual(closed);
        expect((await eventsOf(recent.log_id)).map((e) => e.type)).toEqual(['visitor.arrived']);

        // A manual checkout afterwards finds the visit already closed.
        expect((await checkout(org.live, overdue.log_id)).status).toBe(409);
      });

      it('applies to the sandbox too, and the recent visitor goes when their own hours are up', async () => {
        const org = await server.createOrganization();
        await org.live.patch('/visitor-policies', { auto_checkout_hours: 4 });
        const sandboxVisit = await walkIn(org.sandbox);
        server.clock.advance(2 * HOUR);
        const later = await walkIn(org.live);
        server.clock.advance(3 * HOUR);
        await server.running.runSweeps();
        expect(await getLog(org.sandbox, sandboxVisit.log_id)).toMatchObject({ status: 'checked_out', auto_checked_out: true });
        expect((await getLog(org.live, later.log_id)).status).toBe('checked_in');
        server.clock.advance(2 * HOUR); // 17:00: later has been in 5 h
        await server.running.runSweeps();
        expect(await getLog(org.live, later.log_id)).toMatchObject({
          status: 'checked_out',
          checked_out_at: '2026-11-22T16:00:00.000Z',
          auto_checked_out: true,
          duration_minutes: 240,
        });
      });

      it('leaves alone visitors of an organization without the policy, and a manual checkout is not marked automatic', async () => {
        const withPolicy = await server.createOrganization();
        await withPolicy.live.patch('/visitor-policies', { auto_checkout_hours: 1 });
        const manual = await walkIn(withPolicy.live);
        const org = await server.createOrganization();
        const log = await walkIn(org.live);
        server.clock.advance(30 * MINUTE);
        const out = await checkout(withPolicy.live, manual.log_id);
        expect(out.body.access_log.auto_checked_out).toBe(false);
        server.clock.advance(10 * HOUR);
        await server.running.runSweeps();
        expect(await getLog(org.live, log.log_id)).toMatchObject({ status: 'checked_in', auto_checked_out: false, duration_minutes: 630 });
        expect(await getLog(withPolicy.live, manual.log_id)).toEqual(out.body.access_log);
      });
    });

    describe('retention', () => {
      it('erases names and phones of visits closed more than N days ago; counts stay; open and younger visits keep theirs', async () => {
        const org = await server.createOrganization();
        expect((await org.live.patch('/visitor-policies', { retention_days: 30 })).status).toBe(200);
        const old = await walkIn(org.live, { visitor_name: 'Old Visitor', visitor_phone: '+2348010000100', entry_point: 'Main Gate', notes: 'Delivery' });
        const open = await walkIn(org.live, { visitor_name: 'Long Stayer', visitor_phone: '+2348010000101', entry_point: 'North Gate' });
        server.clock.advance(HOUR);
        const oldClosed = (await checkout(org.live, old.log_id, { checkout_notes: 'Left' })).body.access_log;
        server.clock.advance(10 * DAY);
        const young = await walkIn(org.live, { visitor_name: 'Young Visitor', visitor_phone: '+2348010000102' });
        server.clock.advance(20 * MINUTE);
        const youngClosed = (await checkout(org.live, young.log_id)).body.access_log;

        server.clock.set(at(HOUR + 31 * DAY)); // the old visit closed 31 days ago, the young one about 21
        const statsBefore = (await org.live.get('/access-logs/stats')).body;
        expect(statsBefore.total_check_ins).toBe(3);

        await server.running.runSweeps();

        expect(await getLog(org.live, old.log_id)).toEqual({ ...oldClosed, visitor_name: null, visitor_phone: null });
        expect(await getLog(org.live, young.log_id)).toEqual(youngClosed);
        expect(await getLog(org.live, open.log_id)).toMatchObject({
          status: 'checked_in',
          visitor_name: 'Long Stayer',
          visitor_phone: '+2348010000101',
        });
        expect((await org.live.get('/access-logs/stats')).body).toEqual(statsBefore);
        expect((await org.live.get('/access-logs?search=Old%20Visitor')).body.totalResults).toBe(0);
        expect((await org.live.get('/access-logs')).body.totalResults).toBe(3);
      });

      it('erasure reaches the event log too: no event of an erased visit or code still names the visitor', async () => {
        const org = await server.createOrganization();
        await org.live.patch('/visitor-policies', { retention_days: 1 });
        const code = (await org.live.post('/access-codes', { visitor_name: 'Secret Name', visitor_phone: '+2348019999999', visitor_email: 's@example.ng' }))
          .body.access_code;
        const entry = await org.live.post('/access-codes/validate', { code: code.code });
        server.clock.advance(HOUR);
        await checkout(org.live, entry.body.log_id);
        server.clock.advance(3 * DAY);
        const report = await server.running.runSweeps();
        expect(report.erasedLogs).toBe(1);
        expect(report.erasedCodes).toBe(1);
        const rows = await server.running.database.db
          .selectFrom('events')
          .select(['type', 'data'])
          .where('resource_id', 'in', [code.code_id, entry.body.log_id])
          .execute();
        expect(rows.map((row) => row.type).sort()).toEqual(['access_code.created', 'access_code.used', 'visitor.arrived', 'visitor.departed']);
        for (const row of rows) {
          expect(row.data).not.toContain('Secret Name');
          expect(row.data).not.toContain('+2348019999999');
          expect(row.data).not.toContain('s@example.ng');
          expect(JSON.parse(row.data).visitor_name).toBeNull();
        }
        const erasedCode = (await org.live.get(`/access-codes/${code.code_id}`)).body.access_code;
        expect(erasedCode).toMatchObject({ visitor_name: null, visitor_phone: null, visitor_email: null, status: 'used' });
      });

      it('an organization without retention keeps every name', async () => {
        const org = await server.createOrganization();
        const log = await walkIn(org.live, { visitor_name: 'Kept Forever' });
        server.clock.advance(HOUR);
        await checkout(org.live, log.log_id);
        server.clock.advance(400 * DAY);
        await server.running.runSweeps();
        expect((await getLog(org.live, log.log_id)).visitor_name).toBe('Kept Forever');
      });
    });
  });

  describe('scopes', () => {
    let org: TestOrganization;
    beforeAll(async () => {
      org = await server.createOrganization();
    });

    it.each(['/access-logs', '/access-logs/current-visitors', '/access-logs/stats', '/access-logs/log_01JD7ZK3Q0C7W5N2Y8S4V6X9AB'])(
      'GET %s needs logs:read: a key with only access_codes:write answers 403 naming it',
      async (path) => {
        const writer = await org.keyWith(['access_codes:write']);
        const res = await writer.get(path);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 403, message: expect.stringContaining('logs:read') });
      },
    );

    it('a key with only logs:read lists, but can not check in or out (403 naming access_codes:write)', async () => {
      const reader = await org.keyWith(['logs:read']);
      const log = await walkIn(org.live);
      expect((await reader.get('/access-logs')).status).toBe(200);

      const create = await reader.post('/access-logs', walkInBody());
      expect(create.status).toBe(403);
      expect(create.body).toEqual({ code: 403, message: expect.stringContaining('access_codes:write') });
      const out = await checkout(reader, log.log_id);
      expect(out.status).toBe(403);
      expect(out.body.message).toContain('access_codes:write');
      expect((await getLog(org.live, log.log_id)).status).toBe('checked_in');
    });

    it('a key with only access_codes:write checks visitors in and out', async () => {
      const writer = await org.keyWith(['access_codes:write']);
      const created = await writer.post('/access-logs', walkInBody());
      expect(created.status).toBe(201);
      expect((await checkout(writer, created.body.access_log.log_id)).status).toBe(200);
    });
  });

  describe('Idempotency-Key', () => {
    const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

    it('a walk-in retried with the same key answers the same log, marked Idempotent-Replayed, and records one visit', async () => {
      const org = await server.createOrganization();
      const body = walkInBody({ entry_point: 'Main Gate', notes: 'kiosk offline retry' });
      const first = await org.live.post('/access-logs', body, withKey('kiosk-3-walkin-17'));
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      server.clock.advance(2 * MINUTE);
      const retry = await org.live.post('/access-logs', body, withKey('kiosk-3-walkin-17'));
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await countVisits(org.live)).toBe(1);
      expect((await org.live.get('/access-logs/current-visitors')).body.count).toBe(1);
      expect((await eventsOf(first.body.access_log.log_id)).map((e) => e.type)).toEqual(['visitor.arrived']);

      const fresh = await org.live.post('/access-logs', body, withKey('kiosk-3-walkin-18'));
      expect(fresh.status).toBe(201);
      expect(fresh.body.access_log.log_id).not.toBe(first.body.access_log.log_id);
      expect(await countVisits(org.live)).toBe(2);
    });

    it('concurrent retries of one keyed walk-in record one visit: every success names the same log, the rest are 409 in flight', async () => {
      const org = await server.createOrganization();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => org.live.post('/access-logs', walkInBody(), withKey('kiosk-9-burst'))),
      );
      const succeeded = answers.filter((res) => res.status === 201);
      expect(succeeded.length).toBeGreaterThanOrEqual(1);
      expect(answers.every((res) => res.status === 201 || res.status === 409)).toBe(true);
      expect(new Set(succeeded.map((res) => res.body.access_log.log_id)).size).toBe(1);
      expect(await countVisits(org.live)).toBe(1);
    });

    it('a checkout retried with the same key answers the first 200 again, marked replayed, not 409', async () => {
      const org = await server.createOrganization();
      const log = await walkIn(org.live);
      server.clock.advance(25 * MINUTE);
      const first = await org.live.patch(`/access-logs/${log.log_id}/checkout`, { checkout_notes: 'bye' }, withKey('co-1'));
      server.clock.advance(MINUTE);
      const again = await org.live.patch(`/access-logs/${log.log_id}/checkout`, { checkout_notes: 'bye' }, withKey('co-1'));
      expect(first.status).toBe(200);
      expect(first.body.access_log).toMatchObject({ status: 'checked_out', checked_out_at: at(25 * MINUTE), duration_minutes: 25 });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await eventsOf(log.log_id)).filter((e) => e.type === 'visitor.departed')).toHaveLength(1);

      // Without the key, the same checkout is a new request and meets the closed visit.
      expect((await checkout(org.live, log.log_id, { checkout_notes: 'bye' })).status).toBe(409);
    });
  });
});
