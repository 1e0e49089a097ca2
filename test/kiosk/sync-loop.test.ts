import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../electron/core/sync.ts';
import { ManualClock } from '../support/clock.ts';
import { serverLogs, startGate, type Gate } from './support/gate.ts';

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
