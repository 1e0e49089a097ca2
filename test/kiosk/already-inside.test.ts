import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCode, startGate, type Gate } from './support/gate.ts';

/**
 * "Already inside" (issue #49), the real kiosk core against the real server: a pass whose holder
 * has an open visit on the site is not let in automatically, whether the kiosk knows the visit
 * (its own, or the server's list it last read) or only the server does; nothing is spent. The
 * guard may let them in anyway, and the server records that override on the visit.
 */
let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

/** "Already inside since 10:42 (Gate A)": 24-hour time, the gate's name. */
const insideSince = (gateName: string) => new RegExp(`Already inside since \\d\\d:\\d\\d \\(${gateName}\\)`);

const useCount = async (codeId: string) => (await gate.owner.get(`/access-codes/${codeId}`)).body.access_code.use_count as number;
const logOf = async (logId: string) => (await gate.owner.get(`/access-logs/${logId}`)).body.access_log as { already_inside_override: boolean; recorded_by: string | null };

describe('already inside', () => {
  it('online, a holder checked in at this gate is not let in again, nothing spent; the guard lets them in anyway and the server records it', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 3 });
    const { core } = gate.kiosk({ entryPoint: 'Gate A' });
    await core.call('startShift', { guardName: 'Guard Ada' });
    await core.call('syncNow', {});
    const first = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(first).toMatchObject({ admitted: true, decidedBy: 'server' });

    const again = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(again).toMatchObject({ admitted: false, reason: 'already_inside', visitor: { name: 'Musa Bello' }, alreadyInside: { since: first.scannedAt, entryPoint: 'Gate A' } });
    expect(again.message).toMatch(insideSince('Gate A'));
    expect(again.message).toContain('Musa Bello');
    expect(await useCount(code.code_id)).toBe(1);

    const over = await core.call('scan', { text: code.qr_payload, method: 'camera', overrideAlreadyInside: true });
    expect(over).toMatchObject({ admitted: true, decidedBy: 'server', overrodeAlreadyInside: true, usesLeft: 1 });
    // Visible through the API: the visit, and who is on site.
    const visits = (await core.call('onPremises', {})).visitors;
    const overVisit = visits.find((visit) => visit.visitId === over.visitId)!;
    expect(await logOf(overVisit.logId!)).toMatchObject({ already_inside_override: true, recorded_by: 'Guard Ada' });
    const onSite = (await gate.owner.get('/access-logs/current-visitors')).body.visitors as Array<{ log_id: string; already_inside_override: boolean }>;
    expect(onSite.map((visitor) => visitor.already_inside_override).sort()).toEqual([false, true]);
  });

  it('online, a holder let in at another gate moments ago is held by the server (409), nothing spent, and the refusal says where', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 3 });
    const gateA = gate.kiosk({ entryPoint: 'Gate A' });
    const gateB = gate.kiosk({ entryPoint: 'Gate B' });
    await gateA.core.call('syncNow', {});
    // Gate B's list of who is inside is read before the visitor comes in at Gate A: only the server knows.
    await gateB.core.call('syncNow', {});
    expect(await gateA.core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true });

    const atB = await gateB.core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(atB).toMatchObject({ admitted: false, decidedBy: 'server', reason: 'already_inside', alreadyInside: { entryPoint: 'Gate A' } });
    expect(atB.message).toMatch(insideSince('Gate A'));
    expect(await useCount(code.code_id)).toBe(1);
    expect((await gateB.core.call('kioskStatus', {})).pendingOperations).toBe(0);
  });

  it("offline, the server's list last read is enough to hold the pass at another gate; let in anyway, the override reaches the server on sync", async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 3 });
    const gateA = gate.kiosk({ entryPoint: 'Gate A' });
    const gateB = gate.kiosk({ entryPoint: 'Gate B' });
    await gateA.core.call('syncNow', {});
    expect(await gateA.core.call('scan', { text: code.qr_payload, method: 'camera' })).toMatchObject({ admitted: true });
    await gateB.core.call('syncNow', {});
    gateB.link.up = false;

    const atB = await gateB.core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(atB).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'already_inside', alreadyInside: { entryPoint: 'Gate A' } });
    expect(atB.message).toMatch(insideSince('Gate A'));
    const over = await gateB.core.call('scan', { text: code.qr_payload, method: 'camera', overrideAlreadyInside: true });
    expect(over).toMatchObject({ admitted: true, decidedBy: 'offline', overrodeAlreadyInside: true });

    gateB.link.up = true;
    gate.clock.advance(60_000);
    const report = await gateB.core.call('syncNow', {});
    expect(report).toMatchObject({ pendingOperations: 0, refused: 0 });
    expect(await useCount(code.code_id)).toBe(2);
    const onSite = (await gate.owner.get('/access-logs/current-visitors')).body.visitors as Array<{ entry_point: string; already_inside_override: boolean }>;
    expect(onSite.map((visitor) => [visitor.entry_point, visitor.already_inside_override]).sort()).toEqual([
      ['Gate A', false],
      ['Gate B', true],
    ]);
  });

  it('offline, a code of two uses is held while its visit is open and admits again once it is checked out; the server agrees on sync', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 2 });
    const { core, link } = gate.kiosk({ entryPoint: 'Gate A' });
    await core.call('syncNow', {});
    link.up = false;

    const first = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(first).toMatchObject({ admitted: true, decidedBy: 'offline' });
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'already_inside', alreadyInside: { entryPoint: 'Gate A' } });
    gate.clock.advance(30 * 60_000);
    await core.call('checkout', { visitId: first.visitId! });
    gate.clock.advance(30 * 60_000);
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'offline', usesLeft: 0 });

    link.up = true;
    const report = await core.call('syncNow', {});
    expect(report).toMatchObject({ pendingOperations: 0, refused: 0 });
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
    expect(await useCount(code.code_id)).toBe(2);
  });

  it('online, a code of several uses admits again once its earlier visit is checked out', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 2 });
    const { core } = gate.kiosk({ entryPoint: 'Gate A' });
    await core.call('syncNow', {});
    const first = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(first).toMatchObject({ admitted: true, decidedBy: 'server' });
    gate.clock.advance(10 * 60_000);
    expect((await core.call('checkout', { visitId: first.visitId! })).queued).toBe(false);
    gate.clock.advance(10 * 60_000);
    expect(await core.call('scan', { text: code.qr_payload, method: 'camera' })).toMatchObject({ admitted: true, decidedBy: 'server', usesLeft: 0 });
  });

  it('a refusal names the visitor', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 1 });
    const { core } = gate.kiosk({ entryPoint: 'Gate A' });
    expect((await gate.owner.delete(`/access-codes/${code.code_id}`)).status).toBe(200);
    await core.call('syncNow', {});
    const refused = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(refused).toMatchObject({ admitted: false, reason: 'revoked' });
    expect(refused.message).toBe('Musa Bello: This code has been cancelled. Do not admit; call the host.');
  });
});
