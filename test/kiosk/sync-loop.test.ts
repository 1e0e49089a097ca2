import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../electron/core/link/sync.ts';
import { ManualClock } from '../support/clock.ts';
import { createCode, Link, serverLogs, startGate, type Gate } from './support/gate.ts';

describe('sync backoff', () => {
  const timings = { backoffBaseMs: 1_000, backoffMaxMs: 30_000 };

  it('doubles from the base after each failure in a row, up to the cap, with half of it random', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map((failures) => backoffDelayMs(failures, timings, 1, null))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect([1, 2, 3, 6].map((failures) => backoffDelayMs(failures, timings, 0, null))).toEqual([500, 1_000, 2_000, 15_000]);
    expect(backoffDelayMs(3, timings, 0.5, null)).toBe(3_000);
  });

  it('never retries before the server\'s Retry-After', () => {
    expect(backoffDelayMs(1, timings, 0, 20_000)).toBe(20_000);
    expect(backoffDelayMs(6, timings, 1, 5_000)).toBe(30_000);
  });
});

describe("the kiosk's clock", () => {
  let gate: Gate;
  beforeEach(async () => {
    gate = await startGate();
  });
  afterEach(async () => {
    await gate.stop();
  });

  it('ten minutes fast, is corrected by the server\'s at sync, so offline records replay with the right time', async () => {
    const fast = new ManualClock(new Date(gate.clock.now().getTime() + 10 * 60_000).toISOString());
    const { core, link } = gate.kiosk({ clock: fast });
    await core.call('syncNow', {});
    link.up = false;
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    expect(walkIn.visit.checkedInAt).toBe(gate.clock.now().toISOString());

    link.up = true;
    gate.clock.advance(60_000);
    fast.advance(60_000);
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0, refused: 0 });
    const [log] = await serverLogs(gate.owner);
    expect(log!.checked_in_at).toBe(walkIn.visit.checkedInAt);
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
  });
});

describe('what the kiosk keeps', () => {
  let gate: Gate;
  beforeEach(async () => {
    gate = await startGate();
  });
  afterEach(async () => {
    await gate.stop();
  });

  it('forgets settled visits and their records after 30 days, and keeps who is still inside', async () => {
    const { core } = gate.kiosk();
    const left = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    await core.call('checkout', { visitId: left.visit.visitId });
    const stays = await core.call('walkIn', { visitorName: 'Bola Ade', visitorPhone: '+2348030000003' });
    await core.call('syncNow', {});
    const rows = () => (core.db.prepare(`SELECT visitor_name FROM visits ORDER BY visitor_name`).all() as Array<{ visitor_name: string }>).map((row) => row.visitor_name);
    expect(rows()).toEqual(['Bola Ade', 'Ngozi Eze']);

    gate.clock.advance(31 * 24 * 3600_000);
    await core.call('syncNow', {});
    expect(rows()).toEqual(['Bola Ade']);
    expect(core.db.prepare(`SELECT count(*) AS n FROM outbox`).get()).toEqual({ n: 0 });
    expect((await core.call('onPremises', {})).visitors.map((visit) => visit.visitId)).toEqual([stays.visit.visitId]);
  });
});

describe('a sync that meets the unexpected', () => {
  let gate: Gate;
  beforeEach(async () => {
    gate = await startGate();
  });
  afterEach(async () => {
    await gate.stop();
  });

  it('reports and logs it, and the next sync goes through', async () => {
    let garble = true;
    const logged: unknown[] = [];
    const fetchGarbled: typeof fetch = async (input, init) => {
      if (garble && String(input).includes('/access-codes/changes')) {
        garble = false;
        return new Response('{"unexpected":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      }
      return fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: fetchGarbled, logError: (error) => logged.push(error) });
    const first = await core.call('syncNow', {});
    expect(first.error).toMatch(/^The sync failed/);
    expect(logged).toHaveLength(1);
    expect(await core.call('syncNow', {})).toMatchObject({ error: null });
  });
});

describe('the sync loop, when parts of it fail', () => {
  let gate: Gate;
  beforeEach(async () => {
    gate = await startGate();
  });
  afterEach(async () => {
    await gate.stop();
  });

  const waitFor = async (done: () => boolean, ms = 15_000) => {
    for (const until = Date.now() + ms; !done() && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it('is scheduled again even when the end of a run fails', async () => {
    const errors: unknown[] = [];
    const { core, link } = gate.kiosk({ timings: { syncIntervalMs: 50, backoffBaseMs: 20, backoffMaxMs: 40 }, logError: (error) => errors.push(error) });
    const prepare = core.db.prepare.bind(core.db);
    let broken = 1;
    core.db.prepare = ((sql: string) => {
      if (broken > 0 && sql.includes("FROM panics WHERE state = 'pending') AS n")) {
        broken--;
        throw new Error('disk I/O error');
      }
      return prepare(sql);
    }) as typeof core.db.prepare;
    core.start();
    const healthChecks = () => link.sent.filter((line) => line === 'GET /health').length;
    await waitFor(() => healthChecks() >= 2);
    expect(broken).toBe(0);
    expect(errors.length).toBeGreaterThan(0);
    expect(healthChecks()).toBeGreaterThanOrEqual(2);
  });

  it('stops reading the code feed when the server says there is more but its cursor does not move', async () => {
    const link = new Link();
    let pages = 0;
    const stuck: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      if (!url.pathname.endsWith('/access-codes/changes')) return link.fetch(input, init);
      pages++;
      await (await link.fetch(input, init)).arrayBuffer();
      // A safety stop for the test itself: a kiosk that loops would ask forever.
      const body = { codes: [], next_cursor: Number(url.searchParams.get('cursor')), has_more: pages < 50 };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const { core } = gate.kiosk({ fetch: stuck, link });
    const report = await core.call('syncNow', {});
    expect(pages).toBe(1);
    expect(report.error).toMatch(/did not advance/);
  });

  it('with a key that may not read codes or pass keys (403), still sends the walk-ins and checkouts, and says why', async () => {
    const key = (await gate.org.keyWith(['access_codes:write', 'logs:read', 'incidents:write', 'incidents:read'])).key!;
    const { core, link } = gate.kiosk({ apiKey: key });
    link.up = false;
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    expect(walkIn.queued).toBe(true);
    link.up = true;
    const report = await core.call('syncNow', {});
    expect(report).toMatchObject({ sent: 1, pendingOperations: 0 });
    expect(report.error).not.toBeNull();
    expect((await serverLogs(gate.owner)).map((log) => log.visitor_name)).toEqual(['Ngozi Eze']);
    expect((await core.call('kioskStatus', {})).problem).toMatch(/403/);
  });

  it('forgets a pass key the server no longer lists', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Ada Obi' });
    const link = new Link();
    let retired = false;
    const keys: typeof fetch = async (input, init) => {
      if (retired && new URL(String(input)).pathname.endsWith('/access-codes/pass-keys')) {
        return new Response(JSON.stringify({ keys: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
      }
      return link.fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: keys, link });
    await core.call('syncNow', {});
    expect((core.db.prepare('SELECT count(*) AS n FROM pass_keys').get() as { n: number }).n).toBeGreaterThan(0);
    retired = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null });
    expect(core.db.prepare('SELECT kid FROM pass_keys').all()).toEqual([]);
    link.up = false;
    // A pass never seen, signed with the retired key: refused.
    core.db.prepare('DELETE FROM codes').run();
    expect(await core.call('scan', { text: code.qr_payload, method: 'camera' })).toMatchObject({ admitted: false, decidedBy: 'offline' });
  });
});
