import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countPendingOperations } from '../../electron/core/outbox/store.ts';
import { serverLogs, startGate, type Gate } from './support/gate.ts';

/**
 * Issue #14: "the SOS went 0.4 s after the server came back, the five other operations 16.6 s
 * later (the loop stayed in its backoff)". Here the backoff is a full minute, so only the
 * offline health probe can send the queue within the two seconds a guard expects.
 */
describe('when the server answers again', () => {
  let gate: Gate;
  beforeEach(async () => {
    gate = await startGate();
  });
  afterEach(async () => {
    await gate.stop();
  });

  it('every queued operation is sent once the probe sees the link back, not after the minute the backoff would wait, and the host logs the drop and the return', async () => {
    const events: string[] = [];
    const { core, link } = gate.kiosk({
      timings: { backoffBaseMs: 60_000, backoffMaxMs: 60_000, offlineProbeMs: 250 },
      logEvent: (message) => events.push(message),
    });
    await core.call('syncNow', {});
    link.up = false;
    for (let i = 0; i < 5; i++) await core.call('walkIn', { visitorName: `Visitor ${i}`, visitorPhone: `+23480300000${10 + i}` });
    core.start();
    // The loop's own first run and this one both fail: the next is a minute away.
    expect(await core.call('syncNow', {})).toMatchObject({ online: false, pendingOperations: 5 });
    expect(events.filter((line) => line.includes('cannot be reached'))).toHaveLength(1);

    link.up = true;
    // Read from the kiosk's database, not through a call: a screen's status call also nudges the sync.
    // The probe runs every 250 ms; 15 s leaves a loaded host room and is still far short of the minute.
    await vi.waitFor(() => expect(countPendingOperations(core.db)).toBe(0), { timeout: 15_000, interval: 50 });
    expect((await serverLogs(gate.owner)).map((log) => log.visitor_name).sort()).toEqual(['Visitor 0', 'Visitor 1', 'Visitor 2', 'Visitor 3', 'Visitor 4']);
    expect(events.filter((line) => line.includes('answers again'))).toHaveLength(1);
  });
});
