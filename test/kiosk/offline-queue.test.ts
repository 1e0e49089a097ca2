import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKioskCore } from '../../electron/core/core.ts';
import { createCode, GATE_A, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

async function codeOnServer(codeId: string) {
  return (await gate.owner.get(`/access-codes/${codeId}`)).body.access_code as { use_count: number; status: string };
}

describe('the outbox', () => {
  it('keeps what the guard did offline and applies each operation exactly once when the link returns', async () => {
    const oneUse = await createCode(gate.owner, { visitor_name: 'Musa Bello' });
    const twoUses = await createCode(gate.owner, { visitor_name: 'Ada Obi', max_uses: 2 });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;

    const first = await core.call('scan', { text: oneUse.code, method: 'keyboard_wedge' });
    expect(first).toMatchObject({ admitted: true, decidedBy: 'offline', visitor: { name: 'Musa Bello' }, usesLeft: 0 });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002', hostUserId: '7A' });
    expect(walkIn.queued).toBe(true);
    gate.clock.advance(60_000);
    await core.call('checkout', { visitId: walkIn.visit.visitId });
    const second = await core.call('scan', { text: twoUses.qr_payload, method: 'camera' });
    expect(second).toMatchObject({ admitted: true, decidedBy: 'offline', visitor: { name: 'Ada Obi' }, usesLeft: 1 });
    await core.call('checkout', { visitId: first.visitId! });

    expect(await core.call('kioskStatus', {})).toMatchObject({ online: false, pendingOperations: 5 });
    expect(await serverLogs(gate.owner)).toHaveLength(0);
    const inside = await core.call('onPremises', {});
    expect(inside.visitors.map((visit) => [visit.visitorName, visit.pendingSync])).toEqual([['Ada Obi', true]]);

    link.up = true;
    // The first answer is lost on the way back: the server applied it, the kiosk must replay it.
    link.loseAnswers = 1;
    const failed = await core.call('syncNow', {});
    expect(failed.error).not.toBeNull();
    const report = await core.call('syncNow', {});
    expect(report).toMatchObject({ online: true, error: null, pendingOperations: 0, refused: 0 });

    const logs = await serverLogs(gate.owner);
    expect(logs.map((log) => [log.visitor_name, log.method, log.status]).sort()).toEqual([
      ['Ada Obi', 'code', 'checked_in'],
      ['Musa Bello', 'code', 'checked_out'],
      ['Ngozi Eze', 'walk_in', 'checked_out'],
    ]);
    expect((await codeOnServer(oneUse.code_id)).use_count).toBe(1);
    expect((await codeOnServer(twoUses.code_id)).use_count).toBe(1);
    // Each check-in went before its checkout, in the order they happened.
    const writes = link.writes().map((line) => line.replace(/log_\w+/, 'log_…'));
    expect(writes).toEqual([
      'POST /access-codes/validate',
      'POST /access-codes/validate',
      'POST /access-logs',
      'PATCH /access-logs/log_…/checkout',
      'POST /access-codes/validate',
      'PATCH /access-logs/log_…/checkout',
    ]);
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);

    // Restarted on the same folder and synced again: nothing is sent twice.
    await core.close();
    const restarted = createKioskCore({ dataDir: core.dataDir, serverUrl: gate.server.baseUrl, apiKey: gate.gateKey, entryPoint: GATE_A.entryPoint, location: GATE_A.location, clock: gate.clock });
    await restarted.call('syncNow', {});
    expect(await serverLogs(gate.owner)).toHaveLength(3);
    await restarted.close();
  });

  it('puts an operation the server refuses for good in the needs-attention list and never sends it again', async () => {
    const elsewhere = await gate.owner.post('/access-logs', { visitor_name: 'Bola Ade', visitor_phone: '+2348030000003', entry_point: 'Gate B' });
    const logId = elsewhere.body.access_log.log_id as string;
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const out = await core.call('checkout', { visitId: logId });
    expect(out.queued).toBe(true);
    // Meanwhile Gate B checks the same visitor out.
    await gate.owner.patch(`/access-logs/${logId}/checkout`, {});

    link.up = true;
    const report = await core.call('syncNow', {});
    expect(report).toMatchObject({ refused: 1, pendingOperations: 0, error: null });
    const status = await core.call('kioskStatus', {});
    expect(status.attention).toHaveLength(1);
    expect(status.attention[0]).toMatchObject({ kind: 'operation_refused', operation: 'checkout', visitorName: 'Bola Ade', logId });
    expect(status.attention[0]!.serverMessage).toMatch(/checked out/i);

    const before = link.writes().length;
    await core.call('syncNow', {});
    expect(link.writes()).toHaveLength(before);

    expect(await core.call('dismissAttention', { attentionId: status.attention[0]!.attentionId })).toEqual({ dismissed: true });
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
  });

  it('shows an offline admission of a code revoked meanwhile in the attention list, and the server keeps the visit', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Chidi Okeke', visitor_phone: '+2348030000004' });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const decision = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'offline' });
    await gate.owner.delete(`/access-codes/${code.code_id}`, { body: { reason: 'Host cancelled' } });

    link.up = true;
    gate.clock.advance(5 * 60_000);
    await core.call('syncNow', {});
    const status = await core.call('kioskStatus', {});
    expect(status.pendingOperations).toBe(0);
    expect(status.attention).toHaveLength(1);
    expect(status.attention[0]).toMatchObject({ kind: 'admission_refused', visitorName: 'Chidi Okeke', code: code.code, serverMessage: 'Code has been revoked' });

    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ method: 'walk_in', visitor_name: 'Chidi Okeke', status: 'checked_in' });
    expect(logs[0]!.notes).toContain('Code has been revoked');
    expect(logs[0]!.checked_in_at).toBe(decision.scannedAt);
    expect(status.attention[0]!.logId).toBe(logs[0]!.log_id);

    // The visitor leaves: the checkout closes the visit the server kept.
    await core.call('checkout', { visitId: decision.visitId! });
    expect((await serverLogs(gate.owner))[0]!.status).toBe('checked_out');
  });

  it('after eight days offline, scans too old for the server are listed, and the visitors are still recorded', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Emeka Obi', valid_until: new Date(gate.clock.now().getTime() + 10 * 86_400_000).toISOString() });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const decision = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'offline' });
    gate.clock.advance(8 * 86_400_000);
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0, refused: 1 });

    const status = await core.call('kioskStatus', {});
    expect(status.attention).toHaveLength(1);
    expect(status.attention[0]).toMatchObject({ kind: 'operation_refused', operation: 'validate', visitorName: 'Emeka Obi' });
    expect(status.attention[0]!.serverMessage).toMatch(/7 days/);
    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ method: 'walk_in', visitor_name: 'Emeka Obi', checked_in_at: gate.clock.now().toISOString() });
    expect(logs[0]!.notes).toContain(`Admitted offline at ${decision.scannedAt}`);
    expect(status.attention[0]!.logId).toBe(logs[0]!.log_id);
  });
});
