import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type ApiResponse, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const SECOND = 1000;
let kioskSerial = 0;

/** A kiosk id as a kiosk makes it at its first start (`kiosk_` and a ULID). */
function newKioskId(): string {
  kioskSerial++;
  return `kiosk_01JD7ZK3Q0C7W5N2Y8S4V${String(kioskSerial).padStart(5, '0')}`;
}

function heartbeatBody(overrides: Record<string, unknown> = {}) {
  return {
    entry_point: 'Gate A',
    app_version: '0.1.0',
    queued_operations: 0,
    oldest_queued_at: null,
    last_sync_at: '2026-11-22T09:59:50.000Z',
    needs_attention: 0,
    clock: START,
    ...overrides,
  };
}

const put = (client: ApiClient, path: string, body: unknown): Promise<ApiResponse> => client.request('PUT', path, { body });

describe('kiosk heartbeats', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.clock.set(START);
    org = await server.createOrganization({ name: 'Heartbeat Estate' });
  });

  const beat = async (client: ApiClient, kioskId: string, overrides: Record<string, unknown> = {}) => {
    const res = await put(client, `/kiosks/${kioskId}/heartbeat`, heartbeatBody({ clock: server.clock.now().toISOString(), ...overrides }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.kiosk;
  };
  const eventsOf = async (client: ApiClient, kioskId: string) => {
    const res = await client.get(`/events?resource_id=${kioskId}&limit=100`);
    expect(res.status).toBe(200);
    return (res.body.results as Array<{ type: string; data: Record<string, unknown> }>).reverse();
  };

  it('the first heartbeat makes the kiosk, later ones update it; the list shows it online with what it reported', async () => {
    const gateKey = await org.keyWith(['access_codes:validate']);
    const kioskId = newKioskId();
    const first = await beat(gateKey, kioskId, { queued_operations: 3, oldest_queued_at: '2026-11-22T09:58:00Z', needs_attention: 1 });
    expect(first).toMatchObject({
      kiosk_id: kioskId,
      name: null,
      status: 'online',
      entry_point: 'Gate A',
      app_version: '0.1.0',
      queued_operations: 3,
      oldest_queued_at: '2026-11-22T09:58:00.000Z',
      needs_attention: 1,
      last_seen_at: START,
      first_seen_at: START,
      retired_at: null,
      offline_since: null,
    });
    server.clock.advance(30 * SECOND);
    await beat(gateKey, kioskId, { app_version: '0.2.0' });
    const list = await org.live.get('/kiosks');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 1 });
    expect(list.body.results[0]).toMatchObject({
      kiosk_id: kioskId,
      status: 'online',
      app_version: '0.2.0',
      queued_operations: 0,
      oldest_queued_at: null,
      last_seen_at: '2026-11-22T10:00:30.000Z',
      first_seen_at: START,
    });
    expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk).toEqual(list.body.results[0]);
  });

  it("keeps the kiosk's raw clock and its skew against the server's receive time", async () => {
    const kioskId = newKioskId();
    const kiosk = await beat(org.live, kioskId, { clock: '2026-11-22T09:59:47.500Z' });
    expect(kiosk).toMatchObject({ clock: '2026-11-22T09:59:47.500Z', clock_skew_seconds: -12.5, last_seen_at: START });
  });

  it('a kiosk whose clock is decades off still reports itself, its skew exact, on both engines (issue #46)', async () => {
    const kioskId = newKioskId();
    for (const clock of ['1970-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z', '2019-12-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', '9999-12-31T23:59:59.900Z']) {
      const kiosk = await beat(org.live, kioskId, { clock });
      expect(kiosk.clock, clock).toBe(clock);
      expect(kiosk.clock_skew_seconds, clock).toBe((Date.parse(clock) - Date.parse(START)) / 1000);
      expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk.clock_skew_seconds, clock).toBe(kiosk.clock_skew_seconds);
    }
  });

  it('is offline after KIOSK_OFFLINE_AFTER_S, raises kiosk.offline exactly once per outage, and kiosk.online on its return', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId);
    server.clock.advance(119 * SECOND);
    await server.running.runSweeps();
    expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk.status).toBe('online');
    expect(await eventsOf(org.live, kioskId)).toEqual([]);

    server.clock.advance(1 * SECOND);
    expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk.status).toBe('offline');
    const report = await server.running.runSweeps();
    expect(report.kiosksOffline).toBeGreaterThanOrEqual(1);
    await Promise.all([server.running.runSweeps(), server.running.runSweeps()]);
    server.clock.advance(600 * SECOND);
    await server.running.runSweeps();
    const offline = await eventsOf(org.live, kioskId);
    expect(offline.map((event) => event.type)).toEqual(['kiosk.offline']);
    expect(offline[0]!.data).toMatchObject({ kiosk_id: kioskId, status: 'offline', last_seen_at: START, offline_since: '2026-11-22T10:02:00.000Z' });
    expect((await org.live.get(`/kiosks?status=offline`)).body.results.map((k: { kiosk_id: string }) => k.kiosk_id)).toEqual([kioskId]);

    const back = await beat(org.live, kioskId);
    expect(back).toMatchObject({ status: 'online', offline_since: null });
    await beat(org.live, kioskId);
    const events = await eventsOf(org.live, kioskId);
    expect(events.map((event) => event.type)).toEqual(['kiosk.offline', 'kiosk.online']);
    expect(events[1]!.data).toMatchObject({ kiosk_id: kioskId, status: 'online', was_offline_since: '2026-11-22T10:02:00.000Z', offline_since: null });

    // A second outage is a second alert.
    server.clock.advance(121 * SECOND);
    await server.running.runSweeps();
    expect((await eventsOf(org.live, kioskId)).map((event) => event.type)).toEqual(['kiosk.offline', 'kiosk.online', 'kiosk.offline']);
  });

  it('a retired kiosk raises no offline alert; its heartbeats are recorded and it stays retired', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId);
    const retired = await org.live.delete(`/kiosks/${kioskId}`);
    expect(retired.status).toBe(200);
    expect(retired.body.kiosk).toMatchObject({ status: 'retired', retired_at: START });
    const again = await org.live.delete(`/kiosks/${kioskId}`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ code: 409, message: 'Kiosk is already retired' });

    server.clock.advance(600 * SECOND);
    await server.running.runSweeps();
    expect(await eventsOf(org.live, kioskId)).toEqual([]);
    const heard = await beat(org.live, kioskId, { app_version: '0.3.0' });
    expect(heard).toMatchObject({ status: 'retired', app_version: '0.3.0', last_seen_at: '2026-11-22T10:10:00.000Z' });
    expect(await eventsOf(org.live, kioskId)).toEqual([]);
    expect((await org.live.get('/kiosks?status=retired')).body.totalResults).toBe(1);
  });

  it('retiring a kiosk that is offline closes the outage without kiosk.online', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId);
    server.clock.advance(200 * SECOND);
    await server.running.runSweeps();
    expect((await org.live.delete(`/kiosks/${kioskId}`)).body.kiosk).toMatchObject({ status: 'retired', offline_since: null });
    await beat(org.live, kioskId);
    expect((await eventsOf(org.live, kioskId)).map((event) => event.type)).toEqual(['kiosk.offline']);
  });

  it('renames a kiosk with PATCH {name}', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId);
    const renamed = await org.live.patch(`/kiosks/${kioskId}`, { name: 'North gatehouse' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.kiosk).toMatchObject({ kiosk_id: kioskId, name: 'North gatehouse' });
    // A heartbeat leaves the name alone.
    expect(await beat(org.live, kioskId)).toMatchObject({ name: 'North gatehouse' });
  });

  describe('boundaries', () => {
    it("another organization's kiosk is a 404 to read, rename or retire, and its id heartbeated here is a kiosk of this organization", async () => {
      const other = await server.createOrganization({ name: 'Other Estate' });
      const kioskId = newKioskId();
      await beat(other.live, kioskId, { entry_point: 'Their gate' });
      for (const res of [
        await org.live.get(`/kiosks/${kioskId}`),
        await org.live.patch(`/kiosks/${kioskId}`, { name: 'Hijacked' }),
        await org.live.delete(`/kiosks/${kioskId}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ code: 404, message: 'Kiosk not found' });
      }
      expect((await org.live.get('/kiosks')).body.totalResults).toBe(0);
      // The same id sent here is this organization's own kiosk: theirs is neither read nor changed.
      const mine = await beat(org.live, kioskId, { entry_point: 'My gate' });
      expect(mine).toMatchObject({ entry_point: 'My gate', name: null });
      const theirs = (await other.live.get(`/kiosks/${kioskId}`)).body.kiosk;
      expect(theirs).toMatchObject({ entry_point: 'Their gate', name: null, retired_at: null });
      server.clock.advance(200 * SECOND);
      await server.running.runSweeps();
      expect((await eventsOf(other.live, kioskId)).map((event) => event.type)).toEqual(['kiosk.offline']);
      expect((await eventsOf(org.live, kioskId)).map((event) => event.type)).toEqual(['kiosk.offline']);
    });

    it("the other environment's kiosk is a 404", async () => {
      const kioskId = newKioskId();
      await beat(org.sandbox, kioskId);
      expect((await org.live.get(`/kiosks/${kioskId}`)).status).toBe(404);
      expect((await org.live.delete(`/kiosks/${kioskId}`)).status).toBe(404);
      expect((await org.live.get('/kiosks')).body.totalResults).toBe(0);
      expect((await org.sandbox.get('/kiosks')).body.totalResults).toBe(1);
    });
  });

  describe('validation names the field', () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['a kiosk id not in the kiosk format', 'kiosk_nope', heartbeatBody(), /kioskId/],
      ['a missing entry_point', 'ok', { ...heartbeatBody(), entry_point: undefined }, /entry_point/],
      ['a negative queued_operations', 'ok', heartbeatBody({ queued_operations: -1 }), /queued_operations/],
      ['a fractional needs_attention', 'ok', heartbeatBody({ needs_attention: 1.5 }), /needs_attention/],
      ['a clock that is no time', 'ok', heartbeatBody({ clock: 'yesterday' }), /clock/],
      ['an oldest_queued_at that is no time', 'ok', heartbeatBody({ oldest_queued_at: 'soon' }), /oldest_queued_at/],
      ['an unknown field', 'ok', heartbeatBody({ battery: 80 }), /battery/],
    ];
    it.each(cases)('a heartbeat with %s is a 400 naming it', async (_title, id, body, field) => {
      const res = await put(org.live, `/kiosks/${id === 'ok' ? newKioskId() : id}/heartbeat`, body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, expect.stringMatching(field));
    });

    it('a rename without a name, or the list with an unknown status, is a 400 naming the field', async () => {
      const kioskId = newKioskId();
      await beat(org.live, kioskId);
      const rename = await org.live.patch(`/kiosks/${kioskId}`, { name: '   ' });
      expect(rename.status).toBe(400);
      expect(rename.body.message).toMatch(/name/);
      const list = await org.live.get('/kiosks?status=asleep');
      expect(list.status).toBe(400);
      expect(list.body.message).toMatch(/status/);
    });
  });

  describe('scopes', () => {
    it('a heartbeat needs access_codes:validate, the list logs:read, a rename or retirement access_codes:write', async () => {
      const kioskId = newKioskId();
      const readOnly = await org.keyWith(['logs:read']);
      expect((await put(readOnly, `/kiosks/${kioskId}/heartbeat`, heartbeatBody())).body.message).toMatch(/access_codes:validate/);
      await beat(org.live, kioskId);
      const gate = await org.keyWith(['access_codes:validate']);
      expect((await gate.get('/kiosks')).body).toEqual({ code: 403, message: expect.stringMatching(/logs:read/) });
      expect((await readOnly.patch(`/kiosks/${kioskId}`, { name: 'x' })).body.message).toMatch(/access_codes:write/);
      expect((await readOnly.delete(`/kiosks/${kioskId}`)).body.message).toMatch(/access_codes:write/);
      expect((await readOnly.get(`/kiosks/${kioskId}`)).status).toBe(200);
    });

    it('kiosk events are read with logs:read, in GET /events and webhook subscriptions', async () => {
      const kioskId = newKioskId();
      await beat(org.live, kioskId);
      server.clock.advance(200 * SECOND);
      await server.running.runSweeps();
      const codesOnly = await org.keyWith(['admin', 'access_codes:read']);
      expect((await codesOnly.get(`/events?type=kiosk.offline`)).body.message).toMatch(/logs:read/);
      const sandboxCodesOnly = await org.keyWith(['admin', 'access_codes:read'], 'sandbox');
      const subscribe = await sandboxCodesOnly.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['kiosk.*'] });
      expect(subscribe.status).toBe(403);
      expect(subscribe.body.message).toMatch(/logs:read/);
      const logs = await org.keyWith(['admin', 'logs:read']);
      const listed = await logs.get('/events?type=kiosk.*');
      expect(listed.body.results.map((e: { type: string }) => e.type)).toEqual(['kiosk.offline']);
    });
  });

  it('a heartbeat that waited in the kiosk\'s queue arrives through POST /kiosk/replay: recorded as heard now, its skew not measured', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId, { clock: '2026-11-22T10:00:02.000Z' });
    server.clock.advance(300 * SECOND);
    await server.running.runSweeps();
    const op = { operation: 'heartbeat', idempotency_key: `${kioskId}.op_1`, kiosk_id: kioskId, body: heartbeatBody({ queued_operations: 4, clock: START }) };
    const replay = await org.live.post('/kiosk/replay', { ops: [op] });
    expect(replay.status).toBe(200);
    expect(replay.body.results[0]).toMatchObject({ status: 200, replayed: false, body: { kiosk: { kiosk_id: kioskId, status: 'online', queued_operations: 4, clock: START, clock_skew_seconds: null, last_seen_at: '2026-11-22T10:05:00.000Z' } } });
    expect((await eventsOf(org.live, kioskId)).map((event) => event.type)).toEqual(['kiosk.offline', 'kiosk.online']);
    // Sent again (the kiosk never heard): the stored answer, nothing recorded twice.
    server.clock.advance(10 * SECOND);
    const again = await org.live.post('/kiosk/replay', { ops: [op] });
    expect(again.body.results[0]).toMatchObject({ status: 200, replayed: true });
    expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk.last_seen_at).toBe('2026-11-22T10:05:00.000Z');
    // A batch key without access_codes:validate: the heartbeat item alone is refused.
    const writer = await org.keyWith(['access_codes:write']);
    const refused = await writer.post('/kiosk/replay', { ops: [{ ...op, idempotency_key: `${kioskId}.op_2` }] });
    expect(refused.body.results[0]).toMatchObject({ status: 403, body: { code: 403, message: expect.stringMatching(/access_codes:validate/) } });
    const malformed = await org.live.post('/kiosk/replay', { ops: [{ ...op, kiosk_id: 'kiosk_x' }] });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/ops\[0\]\.kiosk_id/);
  });

  it('a heartbeat retried under its Idempotency-Key is answered again, not recorded twice', async () => {
    const kioskId = newKioskId();
    const send = () =>
      org.live.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body: heartbeatBody({ queued_operations: 2 }), headers: { 'Idempotency-Key': `${kioskId}.op_9` } });
    const first = await send();
    server.clock.advance(30 * SECOND);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await org.live.get(`/kiosks/${kioskId}`)).body.kiosk.last_seen_at).toBe(START);
  });

  it('a heartbeat leaves no audit entry (a report every 30 s, not a change)', async () => {
    const kioskId = newKioskId();
    await beat(org.live, kioskId);
    await org.live.patch(`/kiosks/${kioskId}`, { name: 'Gatehouse' });
    await beat(org.live, kioskId);
    // A key's change without an Idempotency-Key is recorded just after its answer.
    const actions = async () => ((await org.live.get('/audit-log?limit=100')).body.results as Array<{ action: string }>).map((entry) => entry.action);
    await expect.poll(actions).toContain('renameKiosk');
    expect(await actions()).not.toContain('kioskHeartbeat');
  });
});
