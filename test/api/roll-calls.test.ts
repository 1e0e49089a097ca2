import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { joinConsole } from '../support/console.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const MINUTE = 60_000;
let kioskSerial = 0;
const newKioskId = () => `kiosk_01JD7ZK3Q0C7W5N2Y8S4W${String(++kioskSerial).padStart(5, '0')}`;

describe('roll calls', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.clock.set(START);
    org = await server.createOrganization({ name: 'Roll Call Estate' });
  });

  const walkIn = async (client: ApiClient, name: string, phone: string, entryPoint?: string) => {
    const res = await client.post('/access-logs', { visitor_name: name, visitor_phone: phone, ...(entryPoint ? { entry_point: entryPoint } : {}) });
    expect(res.status).toBe(201);
    return res.body.access_log as { log_id: string; checked_in_at: string };
  };
  const beat = async (client: ApiClient, kioskId: string, overrides: Record<string, unknown> = {}) => {
    const res = await client.request('PUT', `/kiosks/${kioskId}/heartbeat`, {
      body: {
        entry_point: 'Gate A',
        app_version: '0.1.0',
        queued_operations: 0,
        oldest_queued_at: null,
        last_sync_at: null,
        needs_attention: 0,
        clock: server.clock.now().toISOString(),
        ...overrides,
      },
    });
    expect(res.status).toBe(200);
  };

  it('is a snapshot of everyone on site, with phone, entry point, check-in time and log id, longest on site first', async () => {
    const ada = await walkIn(org.live, 'Ada Obi', '+2348012345678', 'Gate A');
    server.clock.advance(MINUTE);
    const musa = await walkIn(org.live, 'Musa Bello', '+2348030000001', 'Gate B');
    server.clock.advance(MINUTE);
    const gone = await walkIn(org.live, 'Left Early', '+2348030000009', 'Gate A');
    expect((await org.live.patch(`/access-logs/${gone.log_id}/checkout`, {})).status).toBe(200);

    const res = await org.live.post('/roll-calls', {});
    expect(res.status).toBe(201);
    const rollCall = res.body.roll_call;
    expect(rollCall).toMatchObject({
      roll_call_id: expect.stringMatching(/^rcl_/),
      entry_points: null,
      created_at: '2026-11-22T10:02:00.000Z',
      created_by: { type: 'key', id: expect.stringMatching(/^key_/), label: expect.any(String) },
      total: 2,
      accounted_for: 0,
      warnings: [],
    });
    expect(rollCall.entries).toEqual([
      { log_id: ada.log_id, visitor_name: 'Ada Obi', visitor_phone: '+2348012345678', entry_point: 'Gate A', checked_in_at: START, accounted_for: false, accounted_by: null, accounted_at: null },
      { log_id: musa.log_id, visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', entry_point: 'Gate B', checked_in_at: '2026-11-22T10:01:00.000Z', accounted_for: false, accounted_by: null, accounted_at: null },
    ]);

    // The list is what the marshals work from: a later checkout does not change it.
    expect((await org.live.patch(`/access-logs/${musa.log_id}/checkout`, {})).status).toBe(200);
    const read = await org.live.get(`/roll-calls/${rollCall.roll_call_id}`);
    expect(read.status).toBe(200);
    expect(read.body.roll_call).toEqual(rollCall);
  });

  it('takes only the entry points asked for', async () => {
    await walkIn(org.live, 'Ada Obi', '+2348012345678', 'Gate A');
    const musa = await walkIn(org.live, 'Musa Bello', '+2348030000001', 'Gate B');
    await walkIn(org.live, 'No Gate', '+2348030000003');
    const res = await org.live.post('/roll-calls', { entry_points: ['Gate B', 'Gate C'] });
    expect(res.status).toBe(201);
    expect(res.body.roll_call).toMatchObject({ entry_points: ['Gate B', 'Gate C'], total: 1 });
    expect(res.body.roll_call.entries.map((entry: { log_id: string }) => entry.log_id)).toEqual([musa.log_id]);
  });

  it('ticks are shared state: who ticked and when, counted on the roll call, undone with false', async () => {
    const ada = await walkIn(org.live, 'Ada Obi', '+2348012345678', 'Gate A');
    await walkIn(org.live, 'Musa Bello', '+2348030000001', 'Gate A');
    const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
    const marshal = await org.keyWith(['access_codes:write', 'logs:read']);
    server.clock.advance(MINUTE);

    const ticked = await marshal.patch(`/roll-calls/${rollCallId}/entries/${ada.log_id}`, { accounted_for: true });
    expect(ticked.status).toBe(200);
    expect(ticked.body.entry).toMatchObject({
      log_id: ada.log_id,
      accounted_for: true,
      accounted_by: { type: 'key', id: expect.stringMatching(/^key_/) },
      accounted_at: '2026-11-22T10:01:00.000Z',
    });
    expect(ticked.body.roll_call).toMatchObject({ roll_call_id: rollCallId, total: 2, accounted_for: 1 });
    // Another person working the same roll call sees it.
    const seen = (await org.live.get(`/roll-calls/${rollCallId}`)).body.roll_call;
    expect(seen.accounted_for).toBe(1);
    expect(seen.entries.find((entry: { log_id: string }) => entry.log_id === ada.log_id)).toEqual(ticked.body.entry);

    const undone = await org.live.patch(`/roll-calls/${rollCallId}/entries/${ada.log_id}`, { accounted_for: false });
    expect(undone.body.entry).toMatchObject({ accounted_for: false, accounted_by: null, accounted_at: null });
    expect(undone.body.roll_call.accounted_for).toBe(0);

    const list = await org.live.get('/roll-calls');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 1 });
    expect(list.body.results[0]).toMatchObject({ roll_call_id: rollCallId, total: 2, accounted_for: 0 });
    expect(list.body.results[0]).not.toHaveProperty('entries');
  });

  it('says which gates were offline or had queued operations when it was taken, so the list may be incomplete', async () => {
    const quiet = newKioskId();
    const busy = newKioskId();
    const fine = newKioskId();
    const elsewhere = newKioskId();
    const retired = newKioskId();
    await beat(org.live, quiet, { entry_point: 'Gate A' });
    await beat(org.live, retired, { entry_point: 'Gate A' });
    expect((await org.live.delete(`/kiosks/${retired}`)).status).toBe(200);
    server.clock.advance(3 * MINUTE);
    await beat(org.live, busy, { entry_point: 'Gate A', queued_operations: 5, oldest_queued_at: '2026-11-22T10:01:30.000Z' });
    await beat(org.live, fine, { entry_point: 'Gate A' });
    await beat(org.live, elsewhere, { entry_point: 'Gate B', queued_operations: 1, oldest_queued_at: '2026-11-22T10:02:00.000Z' });

    const atGateA = (await org.live.post('/roll-calls', { entry_points: ['Gate A'] })).body.roll_call;
    // In the order of their entry point and id (quiet's id sorts first).
    expect(atGateA.warnings).toEqual([
      { kiosk_id: quiet, name: null, entry_point: 'Gate A', reason: 'offline', last_seen_at: START, queued_operations: 0, oldest_queued_at: null },
      { kiosk_id: busy, name: null, entry_point: 'Gate A', reason: 'queued_operations', last_seen_at: '2026-11-22T10:03:00.000Z', queued_operations: 5, oldest_queued_at: '2026-11-22T10:01:30.000Z' },
    ]);
    const everywhere = (await org.live.post('/roll-calls', {})).body.roll_call;
    expect(everywhere.warnings.map((w: { kiosk_id: string; reason: string }) => `${w.kiosk_id} ${w.reason}`).sort()).toEqual(
      [`${busy} queued_operations`, `${quiet} offline`, `${elsewhere} queued_operations`].sort(),
    );
    // The warnings are what was true then.
    await beat(org.live, quiet, { entry_point: 'Gate A' });
    expect((await org.live.get(`/roll-calls/${atGateA.roll_call_id}`)).body.roll_call.warnings).toEqual(atGateA.warnings);
  });

  it("a visit erased under the retention policy leaves no name or phone on a roll call", async () => {
    await org.live.patch('/visitor-policies', { retention_days: 1 });
    const visit = await walkIn(org.live, 'Secret Name', '+2348019999999', 'Gate A');
    const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
    server.clock.advance(60 * MINUTE);
    expect((await org.live.patch(`/access-logs/${visit.log_id}/checkout`, {})).status).toBe(200);
    server.clock.advance(3 * 24 * 60 * MINUTE);
    expect((await server.running.runSweeps()).erasedLogs).toBe(1);
    const [entry] = (await org.live.get(`/roll-calls/${rollCallId}`)).body.roll_call.entries;
    expect(entry).toMatchObject({ log_id: visit.log_id, visitor_name: null, visitor_phone: null, entry_point: 'Gate A' });
  });

  describe('boundaries', () => {
    it("another organization's roll call, and the other environment's, are a 404 to read or tick", async () => {
      const visit = await walkIn(org.live, 'Ada Obi', '+2348012345678');
      const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
      const other = await server.createOrganization({ name: 'Other Estate' });
      for (const client of [other.live, org.sandbox]) {
        const read = await client.get(`/roll-calls/${rollCallId}`);
        expect(read.status).toBe(404);
        expect(read.body).toEqual({ code: 404, message: 'Roll call not found' });
        const tick = await client.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, { accounted_for: true });
        expect(tick.status).toBe(404);
        expect((await client.get('/roll-calls')).body.totalResults).toBe(0);
      }
      expect((await org.live.get(`/roll-calls/${rollCallId}`)).body.roll_call.accounted_for).toBe(0);
      // Another organization's roll call takes only its own visitors.
      await walkIn(other.live, 'Their Visitor', '+2348030000004');
      const theirs = (await other.live.post('/roll-calls', {})).body.roll_call;
      expect(theirs.entries.map((entry: { visitor_name: string }) => entry.visitor_name)).toEqual(['Their Visitor']);
    });

    it('a log that is not on the roll call is a 404', async () => {
      const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
      const later = await walkIn(org.live, 'Came Later', '+2348030000005');
      const res = await org.live.patch(`/roll-calls/${rollCallId}/entries/${later.log_id}`, { accounted_for: true });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Roll call entry not found' });
    });
  });

  describe('validation names the field', () => {
    it.each([
      ['entry_points that is not a list', { entry_points: 'Gate A' }, /entry_points/],
      ['an empty entry_points', { entry_points: [] }, /entry_points/],
      ['an unknown field', { everyone: true }, /everyone/],
    ])('a roll call with %s is a 400 naming it', async (_title, body, field) => {
      const res = await org.live.post('/roll-calls', body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, expect.stringMatching(field));
    });

    it('a tick without a boolean accounted_for is a 400 naming it', async () => {
      const visit = await walkIn(org.live, 'Ada Obi', '+2348012345678');
      const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
      for (const body of [{}, { accounted_for: 'yes' }]) {
        const res = await org.live.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, body);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/accounted_for/);
      }
    });
  });

  describe('scopes', () => {
    it('taking and ticking need access_codes:write and logs:read; reading needs logs:read', async () => {
      const visit = await walkIn(org.live, 'Ada Obi', '+2348012345678');
      const writeOnly = await org.keyWith(['access_codes:write']);
      const readOnly = await org.keyWith(['logs:read']);
      const taken = await writeOnly.post('/roll-calls', {});
      expect(taken.status).toBe(403);
      expect(taken.body.message).toMatch(/logs:read/);
      expect((await readOnly.post('/roll-calls', {})).body).toEqual({ code: 403, message: expect.stringMatching(/access_codes:write/) });
      const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
      expect((await writeOnly.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, { accounted_for: true })).status).toBe(403);
      expect((await readOnly.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, { accounted_for: true })).status).toBe(403);
      expect((await readOnly.get(`/roll-calls/${rollCallId}`)).status).toBe(200);
      expect((await writeOnly.get(`/roll-calls/${rollCallId}`)).status).toBe(403);
    });
  });

  describe('people, by role (the console)', () => {
    it('an operator, admin or owner takes and ticks roll calls and renames or retires kiosks; a viewer or developer only reads', async () => {
      const visit = await walkIn(org.live, 'Ada Obi', '+2348012345678');
      const kioskIds = [newKioskId(), newKioskId(), newKioskId()];
      for (const kioskId of kioskIds) await beat(org.live, kioskId);
      for (const [i, role] of (['operator', 'admin', 'owner'] as const).entries()) {
        const { browser } = await joinConsole(server, org.organizationId, role);
        const taken = await browser.post('/roll-calls', {});
        expect(taken.status, role).toBe(201);
        expect(taken.body.roll_call.created_by).toMatchObject({ type: 'person', id: expect.stringMatching(/^per_/) });
        const rollCallId = taken.body.roll_call.roll_call_id as string;
        const ticked = await browser.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, { accounted_for: true });
        expect(ticked.status, role).toBe(200);
        expect(ticked.body.entry.accounted_by).toMatchObject({ type: 'person' });
        expect((await browser.patch(`/kiosks/${kioskIds[i]}`, { name: `Gate ${role}` })).status, role).toBe(200);
        expect((await browser.delete(`/kiosks/${kioskIds[i]}`)).status, role).toBe(200);
      }
      const rollCallId = (await org.live.post('/roll-calls', {})).body.roll_call.roll_call_id as string;
      for (const role of ['viewer', 'developer'] as const) {
        const { browser } = await joinConsole(server, org.organizationId, role);
        expect((await browser.get('/roll-calls')).status, role).toBe(200);
        expect((await browser.get(`/roll-calls/${rollCallId}`)).status, role).toBe(200);
        expect((await browser.get('/kiosks')).status, role).toBe(200);
        expect((await browser.post('/roll-calls', {})).status, role).toBe(403);
        expect((await browser.patch(`/roll-calls/${rollCallId}/entries/${visit.log_id}`, { accounted_for: true })).status, role).toBe(403);
        expect((await browser.patch(`/kiosks/${kioskIds[0]}`, { name: 'No' })).status, role).toBe(403);
        expect((await browser.delete(`/kiosks/${kioskIds[0]}`)).status, role).toBe(403);
      }
    });
  });
});
