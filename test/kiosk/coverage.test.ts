import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KioskCore } from '../../electron/core/core.ts';
import type { GateCoverage } from '../../shared/kiosk/calls.ts';
import { addResponder } from '../../server/responders/service.ts';
import { GATE_A, GATE_SCOPES, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

/** About 2 km east of Gate A: well inside the dispatch radius. */
const NEAR_GATE = { latitude: GATE_A.location.latitude, longitude: GATE_A.location.longitude + 0.02 };

/** The core checks coverage on its own timer (every 200 ms here); the next answer after `after` is the one wanted. */
async function nextCoverage(core: KioskCore, after: string | null, expected: Partial<GateCoverage>) {
  await vi.waitFor(
    async () => {
      const { coverage } = await core.call('kioskStatus', {});
      expect(coverage).not.toBeNull();
      if (after) expect(coverage!.checkedAt > after).toBe(true);
      expect(coverage).toMatchObject(expected);
    },
    { timeout: 15_000, interval: 100 },
  );
  return (await core.call('kioskStatus', {})).coverage!;
}

describe('whether any responder covers the gate, as kioskStatus reports it', () => {
  it('a live gate with no on-duty responder near reports no coverage; a responder added and on duty nearby is in the next check', async () => {
    const { core } = gate.kiosk({ timings: { coverageCheckMs: 200 } });
    expect((await core.call('kioskStatus', {})).coverage).toBeNull();
    core.start();

    const none = await nextCoverage(core, null, { covered: false, simulated: false, respondersWithinRadius: 0, nearestKm: null });

    // What `npx tsaro responder add` does (the same service function), then the responder's app
    // reports off duty: still nobody who would answer.
    const { token } = await addResponder(gate.server.running.database.db, gate.server.clock, {
      name: 'Emeka Obi',
      phone: '+2348030000009',
      ...NEAR_GATE,
      environment: 'live',
    });
    const responderBase = gate.server.baseUrl.replace('/v1/external', '/v1/responder');
    const onDuty = async (available: boolean) => {
      gate.clock.advance(1_000);
      const response = await fetch(`${responderBase}/availability`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ available, ...NEAR_GATE }),
      });
      expect(response.status).toBe(200);
    };
    await onDuty(false);
    gate.clock.advance(1_000);
    const offDuty = await nextCoverage(core, none.checkedAt, { covered: false, respondersWithinRadius: 0 });

    // On duty: the next check says the gate is covered, and by whom how far away.
    await onDuty(true);
    gate.clock.advance(1_000);
    await nextCoverage(core, offDuty.checkedAt, { covered: true, simulated: false, respondersWithinRadius: 1, nearestKm: 2 });
  });

  it('a sandbox gate reports simulated coverage, wherever it stands and with no responder of its own', async () => {
    const sandboxKey = (await gate.org.keyWith(GATE_SCOPES, 'sandbox')).key!;
    const { core } = gate.kiosk({ apiKey: sandboxKey, timings: { coverageCheckMs: 200 } });
    core.start();
    await nextCoverage(core, null, { covered: true, simulated: true });
  });

  it('the coverage is asked again with each heartbeat and on every SOS press, so the SOS screen never says "finding a responder" from an old answer', async () => {
    const { token } = await addResponder(gate.server.running.database.db, gate.server.clock, { name: 'Emeka Obi', phone: '+2348030000009', ...NEAR_GATE, environment: 'live' });
    const responderBase = gate.server.baseUrl.replace('/v1/external', '/v1/responder');
    const onDuty = async (available: boolean) => {
      gate.clock.advance(1_000);
      const response = await fetch(`${responderBase}/availability`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ available, ...NEAR_GATE }),
      });
      expect(response.status).toBe(200);
      gate.clock.advance(1_000);
    };
    await onDuty(true);

    // Its own check an hour apart: only the heartbeat (every 300 ms here) asks again.
    const beating = gate.kiosk({ timings: { coverageCheckMs: 3_600_000, heartbeatMs: 300 } });
    beating.core.start();
    const covered = await nextCoverage(beating.core, null, { covered: true, respondersWithinRadius: 1 });
    await onDuty(false);
    await nextCoverage(beating.core, covered.checkedAt, { covered: false, respondersWithinRadius: 0 });

    // Neither its check nor its heartbeat before the hour is out: the SOS press asks.
    await onDuty(true);
    const pressing = gate.kiosk({ timings: { coverageCheckMs: 3_600_000, heartbeatMs: 3_600_000 } });
    pressing.core.start();
    const before = await nextCoverage(pressing.core, null, { covered: true });
    await onDuty(false);
    const press = await pressing.core.call('panicPress', { pressId: 'press-coverage-0001' });
    expect(press.delivery).not.toBe('retrying');
    const after = await nextCoverage(pressing.core, before.checkedAt, { covered: false, respondersWithinRadius: 0 });
    expect(after.checkedAt >= press.pressedAt).toBe(true);
  });
});
