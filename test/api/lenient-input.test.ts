import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

/**
 * Lenient where the reference is silent (null for an optional field, dates without a time or a
 * zone), strict where it matters (unknown fields, numbers that are not decimal text).
 */
describe('what partners\' clients send', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Lekki Gardens' });
  });
  afterAll(() => server.stop());

  const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001' };

  describe('null for an optional field means the field is absent', () => {
    it('an incident with null phone, email, reference, metadata, address, landmark, title, description, idempotency_key and is_drill is created as if they were left out', async () => {
      const body = incidentBody({
        subject: { name: 'Amaka Obi', phone: null, email: null, reference: null, metadata: null },
        location: { coordinates: [3.3792, 6.5244], address: null, landmark: null },
        title: null,
        description: null,
        idempotency_key: null,
        is_drill: null,
      });
      const res = await org.sandbox.post('/incidents', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const incident = res.body.incident;
      expect(incident.subject).toMatchObject({ name: 'Amaka Obi', phone: null, email: null, reference: null, metadata: {} });
      expect(incident.title).toBe(`[${String(body.severity).toUpperCase()}] SOS Emergency`);
      expect(incident.is_drill).toBe(false);
      expect(incident.description).toBeNull();
      expect(incident.idempotency_key).toBeNull();
    });

    it('null on a required field is still a 400 naming it, and a wrong type beside null still says what was expected', async () => {
      const noName = await org.sandbox.post('/incidents', incidentBody({ subject: { name: null } }));
      expect(noName.status).toBe(400);
      expectErrorBody(noName.body, 400, expect.stringMatching(/^subject\.name/));
      const wrongPhone = await org.sandbox.post('/incidents', incidentBody({ subject: { name: 'A', phone: 42 } }));
      expect(wrongPhone.status).toBe(400);
      expect(wrongPhone.body.message).toMatch(/^subject\.phone: .*expected string/);
    });

    it('unknown fields stay a 400 naming them, null or not', async () => {
      const res = await org.sandbox.post('/incidents', incidentBody({ priority: null }));
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'priority: unknown field');
      const nested = await org.sandbox.post('/incidents', incidentBody({ subject: { name: 'A', nickname: 'x' } }));
      expect(nested.body.message).toBe('subject.nickname: unknown field');
    });

    it('an access code with null email, purpose, validity and max_uses gets the defaults: one use, valid 24 h from now', async () => {
      const res = await org.live.post('/access-codes', {
        ...visitor,
        visitor_email: null,
        purpose: null,
        entry_point: null,
        host_user_id: null,
        valid_from: null,
        valid_until: null,
        max_uses: null,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const code = res.body.access_code;
      expect(code.max_uses).toBe(1);
      expect(code.valid_from).toBe(server.clock.now().toISOString());
      expect(Date.parse(code.valid_until) - Date.parse(code.valid_from)).toBe(24 * 3600_000);
      expect(code.purpose).toBeNull();
    });

    it('a walk-in and a checkout with null optional fields are recorded', async () => {
      const walkIn = await org.live.post('/access-logs', { ...visitor, entry_point: null, host_user_id: null, notes: null, recorded_by: null, checked_in_at: null });
      expect(walkIn.status, JSON.stringify(walkIn.body)).toBe(201);
      const out = await org.live.patch(`/access-logs/${walkIn.body.access_log.log_id}/checkout`, { checkout_notes: null, recorded_by: null, checked_out_at: null });
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect(out.body.access_log.status).toBe('checked_out');
    });

    it('on a webhook endpoint update, null still clears the description (there null is a value, not an absence)', async () => {
      const created = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/tsaro', events: ['*'], description: 'ops' });
      if (created.status !== 201) return expect.fail(JSON.stringify(created.body));
      const id = created.body.webhook_endpoint.endpoint_id;
      const cleared = await org.sandbox.patch(`/webhook-endpoints/${id}`, { description: null, status: null });
      expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
      expect(cleared.body.webhook_endpoint).toMatchObject({ description: null, status: 'enabled' });
    });
  });

  describe('dates as people type them', () => {
    it('valid_until=YYYY-MM-DD is the end of that day, UTC; valid_from=YYYY-MM-DD its start', async () => {
      const res = await org.live.post('/access-codes', { ...visitor, valid_from: '2026-11-23', valid_until: '2026-11-24' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.access_code.valid_from).toBe('2026-11-23T00:00:00.000Z');
      expect(res.body.access_code.valid_until).toBe('2026-11-24T23:59:59.999Z');
    });

    it('a date-time without a zone is UTC; one with an offset keeps it', async () => {
      const plain = await org.live.post('/access-codes', { ...visitor, valid_until: '2026-11-22T18:30:00' });
      expect(plain.body.access_code.valid_until).toBe('2026-11-22T18:30:00.000Z');
      const lagos = await org.live.post('/access-codes', { ...visitor, valid_until: '2026-11-22T18:30:00+01:00' });
      expect(lagos.body.access_code.valid_until).toBe('2026-11-22T17:30:00.000Z');
    });

    it('from_date=D and to_date=D list exactly what was created on day D (UTC), in every list', async () => {
      const day = (iso: string) => {
        server.clock.set(iso);
      };
      const ids: Record<string, string> = {};
      for (const at of ['2026-11-20T23:59:59.999Z', '2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z', '2026-11-22T00:00:00.000Z']) {
        day(at);
        const incident = await org.live.post('/incidents', incidentBody({ is_drill: true }));
        const code = await org.live.post('/access-codes', visitor);
        const log = await org.live.post('/access-logs', visitor);
        ids[at] = `${incident.body.incident.incident_id} ${code.body.access_code.code_id} ${log.body.access_log.log_id}`;
      }
      server.clock.set('2026-11-22T10:00:00.000Z');
      const inside = ['2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z'];
      const expected = (column: number) => inside.map((at) => ids[at]!.split(' ')[column]).reverse();
      const list = async (path: string, idField: string) => {
        const res = await org.live.get(`${path}?from_date=2026-11-21&to_date=2026-11-21&limit=100`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.results.map((item: Record<string, string>) => item[idField]);
      };
      expect(await list('/incidents', 'incident_id')).toEqual(expected(0));
      expect(await list('/access-codes', 'code_id')).toEqual(expected(1));
      expect(await list('/access-logs', 'log_id')).toEqual(expected(2));
      const stats = await org.live.get('/access-codes/stats?from_date=2026-11-21&to_date=2026-11-21');
      expect(stats.body.total_generated).toBe(2);
    });

    it('a day that does not exist, or text that is no date, is a 400 naming the field', async () => {
      for (const [query, field] of [
        ['from_date=2026-02-30', 'from_date'],
        ['to_date=22-11-2026', 'to_date'],
        ['from_date=yesterday', 'from_date'],
        ['to_date=', 'to_date'],
      ]) {
        const res = await org.live.get(`/incidents?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.message, query).toMatch(new RegExp(`^${field}: expected an ISO 8601`));
      }
      const scanned = await org.live.post('/access-codes/validate', { code: 'LEKK-AAAA', scanned_at: '2026-11-22' });
      expect(scanned.status).toBe(400);
      expect(scanned.body.message).toMatch(/^scanned_at: expected an ISO 8601 date-time/);
    });
  });

  describe('numbers in query strings: decimal text only', () => {
    it.each([
      ['/incidents?limit=0x10', 'limit'],
      ['/incidents?limit=%205', 'limit'],
      ['/incidents?limit=1e2', 'limit'],
      ['/incidents?limit=', 'limit'],
      ['/incidents?page=', 'page'],
      ['/incidents?page=1.5', 'page'],
      ['/safety/score?latitude=6.5&longitude=3.4&radius_km=1e1', 'radius_km'],
      ['/safety/score?latitude=%206.5&longitude=3.4', 'latitude'],
      ['/safety/route?from_lat=6.5&from_lng=3.4&to_lat=7.4&to_lng=3.9&checkpoints=0x5', 'checkpoints'],
      ['/danger-zones/heatmap?bounds=4,2.6,14,14.7&days=', 'days'],
      ['/danger-zones?severity_min=+', 'severity_min'],
    ])('%s is a 400 naming %s', async (path, field) => {
      const res = await org.live.get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expectErrorBody(res.body, 400, expect.stringMatching(new RegExp(`^${field}: `)));
    });

    it('plain decimals are read as the numbers they are', async () => {
      const page = await org.live.get('/incidents?page=2&limit=3');
      expect(page.body).toMatchObject({ page: 2, limit: 3 });
      const score = await org.live.get('/safety/score?latitude=6.4541&longitude=3.3947&radius_km=2.5');
      expect(score.status, JSON.stringify(score.body)).toBe(200);
      expect(score.body).toMatchObject({ location: { latitude: 6.4541, longitude: 3.3947 }, radius_km: 2.5 });
    });
  });

  describe('a search box sends what the guard typed, stray spaces and all', () => {
    it('every list ignores spaces at either end of search, and spaces only is no search (not a 400)', async () => {
      const bola = { visitor_name: 'Bola Ahmed Lawal', visitor_phone: '+2348030000077' };
      expect((await org.live.post('/access-logs', bola)).status).toBe(201);
      expect((await org.live.post('/access-codes', bola)).status).toBe(201);
      expect((await org.live.post('/incidents', incidentBody({ subject: { name: 'Bola Ahmed Lawal' } }))).status).toBe(201);
      for (const list of ['/incidents', '/access-logs', '/access-codes', '/access-logs/current-visitors']) {
        const key = list.endsWith('current-visitors') ? 'visitors' : 'results';
        const all = await org.live.get(list);
        const blank = await org.live.get(`${list}?search=${encodeURIComponent('   ')}`);
        expect(blank.status, `${list}: ${JSON.stringify(blank.body)}`).toBe(200);
        expect(blank.body[key], list).toEqual(all.body[key]);
        // "Bola" at the start of a name: typed with a space before it, it is still found.
        const found = await org.live.get(`${list}?search=${encodeURIComponent(' Bola Ahmed ')}`);
        expect(found.status, `${list}: ${JSON.stringify(found.body)}`).toBe(200);
        const names = (found.body[key] as Array<{ visitor_name?: string; subject?: { name: string } }>).map((row) => row.visitor_name ?? row.subject?.name);
        expect(names, list).toEqual(['Bola Ahmed Lawal']);
      }
    });
  });
});
