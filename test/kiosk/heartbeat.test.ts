import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import type { KioskCore } from '../../electron/core/core.ts';
import { kioskOptionsFromEnvironment } from '../../electron/core/from-environment.ts';
import { KIOSK_ID_PATTERN } from '../../shared/schemas/kiosks.ts';
import { Link, startGate, type Gate } from './support/gate.ts';

/** Beats fast here; the product's default is 30 s (KIOSK_HEARTBEAT_S). */
const TEST_HEARTBEAT_MS = 150;

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

/** The kiosk as the server lists it (the owner's key reads it with logs:read). */
async function serverKiosk(kioskId: string) {
  const res = await gate.owner.get(`/kiosks/${kioskId}`);
  return res.status === 200 ? res.body.kiosk : undefined;
}

async function kioskEvents(kioskId: string): Promise<string[]> {
  const res = await gate.owner.get(`/events?resource_id=${kioskId}&limit=100`);
  return (res.body.results as Array<{ type: string }>).map((event) => event.type).reverse();
}

/**
 * A link that also keeps the heartbeats that went through it: in a replay batch, or on their own
 * (the beat timer may send the waiting one the moment the link returns, before the sync's batch).
 */
class RecordingLink extends Link {
  readonly sentHeartbeats: Array<Record<string, unknown>> = [];
  constructor() {
    super();
    const send = this.fetch;
    (this as { fetch: typeof fetch }).fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      if (this.up && typeof init?.body === 'string') {
        if (path.endsWith('/kiosk/replay')) {
          const ops = (JSON.parse(init.body) as { ops: Array<{ operation: string; body: Record<string, unknown> }> }).ops;
          for (const op of ops) if (op.operation === 'heartbeat') this.sentHeartbeats.push(op.body);
        } else if (path.endsWith('/heartbeat')) this.sentHeartbeats.push(JSON.parse(init.body) as Record<string, unknown>);
      }
      return send(input, init);
    };
  }
}

/** The heartbeats in the kiosk's outbox (waiting, or kept by mistake once answered). */
function pendingHeartbeats(db: KioskCore['db']) {
  return (db.prepare(`SELECT body FROM outbox WHERE kind = 'heartbeat'`).all() as Array<{ body: string }>).map((row) => JSON.parse(row.body) as Record<string, unknown>);
}

describe('the kiosk heartbeat', () => {
  it('is sent every KIOSK_HEARTBEAT_S under the id the kiosk made at its first start, and the server lists the kiosk online', async () => {
    const { core, dataDir } = gate.kiosk({ timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    expect(core.kioskId).toMatch(KIOSK_ID_PATTERN);
    core.start();
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({
      kiosk_id: core.kioskId,
      status: 'online',
      entry_point: 'Gate A',
      app_version: packageJson.version,
      queued_operations: 0,
      oldest_queued_at: null,
      needs_attention: 0,
      clock: gate.clock.now().toISOString(),
      clock_skew_seconds: 0,
    });
    // Several beats, and no journal of them: the outbox keeps none once answered (one may be on its way).
    const before = (await gate.owner.get('/audit-log?limit=100')).body.totalResults;
    await new Promise((done) => setTimeout(done, TEST_HEARTBEAT_MS * 4));
    expect(pendingHeartbeats(core.db).length).toBeLessThanOrEqual(1);
    expect((await gate.owner.get('/audit-log?limit=100')).body.totalResults).toBe(before);

    // The same kiosk restarted keeps its id.
    await core.close();
    const again = gate.kiosk({ dataDir, timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    expect(again.core.kioskId).toBe(core.kioskId);
    expect((await gate.owner.get('/kiosks')).body.totalResults).toBe(1);
  });

  it("learns its site's name and call list from each heartbeat answer: the SOS screen's numbers, KIOSK_ALARM_PHONES only while the site has none", async () => {
    const home = (await gate.owner.get('/sites')).body.results[0];
    const { core } = gate.kiosk({ alarmPhones: 'Gate phone 0803 000 0000', timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    core.start();
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({ site_id: home.site_id });
    // The site has no call list yet: the kiosk's own numbers.
    expect((await core.call('kioskStatus', {})).alarmPhones).toBe('Gate phone 0803 000 0000');
    await gate.owner.patch(`/sites/${home.site_id}`, { call_list: [{ name: 'Estate control', phone: '0803 123 4567' }, { name: 'Police', phone: '0909 000 1122' }] });
    await expect.poll(async () => (await core.call('kioskStatus', {})).alarmPhones, { timeout: 10_000 }).toBe('Estate control 0803 123 4567, Police 0909 000 1122');
    expect((await core.call('kioskStatus', {})).untextedPhones).toBeNull();
    // 112 is called, never texted: the kiosk knows it from the server and names it on the SOS screen (issue #48).
    await gate.owner.patch(`/sites/${home.site_id}`, { call_list: [{ name: 'Estate control', phone: '0803 123 4567' }, { name: 'Police', phone: '112' }] });
    await expect.poll(async () => (await core.call('kioskStatus', {})).untextedPhones, { timeout: 10_000 }).toBe('Police 112');
  });

  it('offline, keeps only the latest heartbeat, carrying the queue size and its oldest, and sends it with the queue when the link returns', async () => {
    const link = new RecordingLink();
    const { core } = gate.kiosk({ link, timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    core.start();
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({ status: 'online' });

    link.up = false;
    const firstAt = gate.clock.now().toISOString();
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    gate.clock.advance(20_000);
    await core.call('walkIn', { visitorName: 'Musa Bello', visitorPhone: '+2348030000001' });
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(2);
    await expect.poll(() => pendingHeartbeats(core.db).at(-1), { timeout: 10_000 }).toMatchObject({ queued_operations: 2, oldest_queued_at: firstAt });
    // Many beats while offline: still one heartbeat waiting, never a queue of stale ones.
    await new Promise((done) => setTimeout(done, TEST_HEARTBEAT_MS * 5));
    expect(pendingHeartbeats(core.db)).toHaveLength(1);
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(2);

    const before = link.sentHeartbeats.length;
    link.up = true;
    await core.call('syncNow', {});
    // The waiting heartbeat went out first, still saying what was queued; the next says the queue is empty.
    expect(link.sentHeartbeats[before]).toMatchObject({ queued_operations: 2, oldest_queued_at: firstAt, entry_point: 'Gate A' });
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({ status: 'online', queued_operations: 0, oldest_queued_at: null });
    expect(pendingHeartbeats(core.db).length).toBeLessThanOrEqual(1);
    expect((await gate.owner.get('/access-logs?limit=10')).body.totalResults).toBe(2);
  });

  it('the server lists a kiosk gone quiet as offline once the time passes (kiosk.offline), and online again when it beats (kiosk.online)', async () => {
    const { core, dataDir } = gate.kiosk({ timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    core.start();
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({ status: 'online' });
    await core.close();

    gate.clock.advance(119_000);
    await gate.server.running.runSweeps();
    expect(await serverKiosk(core.kioskId)).toMatchObject({ status: 'online' });
    gate.clock.advance(2_000);
    await gate.server.running.runSweeps();
    expect(await serverKiosk(core.kioskId)).toMatchObject({ status: 'offline' });
    expect(await kioskEvents(core.kioskId)).toEqual(['kiosk.offline']);

    const back = gate.kiosk({ dataDir, timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    back.core.start();
    await expect.poll(() => serverKiosk(core.kioskId), { timeout: 10_000 }).toMatchObject({ status: 'online', offline_since: null });
    await expect.poll(() => kioskEvents(core.kioskId), { timeout: 10_000 }).toEqual(['kiosk.offline', 'kiosk.online']);
  });

  it('a key without access_codes:validate sends no heartbeat and holds up nothing behind it', async () => {
    const key = (await gate.org.keyWith(['access_codes:write', 'logs:read'])).key!;
    const link = new Link();
    const { core } = gate.kiosk({ apiKey: key, link, timings: { heartbeatMs: TEST_HEARTBEAT_MS } });
    core.start();
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    await expect.poll(() => pendingHeartbeats(core.db).length, { timeout: 10_000 }).toBe(1);
    // A walk-in queued after the heartbeat still leaves.
    await core.call('walkIn', { visitorName: 'Musa Bello', visitorPhone: '+2348030000001' });
    link.up = true;
    await core.call('syncNow', {});
    await expect.poll(async () => (await gate.owner.get('/access-logs?limit=10')).body.totalResults, { timeout: 10_000 }).toBe(2);
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
    expect((await gate.owner.get('/kiosks')).body.totalResults).toBe(0);
  });
});

describe('KIOSK_HEARTBEAT_S', () => {
  it('sets the interval in whole seconds (default 30) and refuses anything else, naming the variable', () => {
    expect(kioskOptionsFromEnvironment({ KIOSK_HEARTBEAT_S: '45' }, '/tmp/k').timings).toMatchObject({ heartbeatMs: 45_000 });
    expect(kioskOptionsFromEnvironment({}, '/tmp/k').timings).toBeUndefined();
    for (const wrong of ['0', '1.5', 'soon', '99999']) expect(() => kioskOptionsFromEnvironment({ KIOSK_HEARTBEAT_S: wrong }, '/tmp/k')).toThrow(/KIOSK_HEARTBEAT_S/);
  });
});
