import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCode, Link, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

describe('the kiosk with the link up', () => {
  it('has a scanned code decided by the server, which checks the visitor in', async () => {
    const code = await createCode(gate.owner);
    const { core } = gate.kiosk();
    const decision = await core.call('scan', { text: ` ${code.code.toLowerCase()} `, method: 'keypad' });
    expect(decision).toMatchObject({
      admitted: true,
      decidedBy: 'server',
      reason: 'admitted',
      visitor: { name: 'Musa Bello', phone: '+2348030000001' },
      purpose: 'Plumbing',
      hostUserId: '14B',
      usesLeft: 0,
    });
    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ method: 'code', code_id: code.code_id, status: 'checked_in' });
    const status = await core.call('kioskStatus', {});
    expect(status).toMatchObject({ online: true, pendingOperations: 0, attentionCount: 0 });

    const again = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(again).toMatchObject({ admitted: false, decidedBy: 'server', reason: 'used_up' });
  });

  it("decides at the gate when the server's answer is slower than the guard's budget, and the use reaches the server once", async () => {
    const code = await createCode(gate.owner);
    const link = new Link();
    // The server does the work at once; its answer is held back, as on a link that stalls on the
    // way back. The kiosk's request gives up when its budget ends, as a real connection does.
    let answersLate = true;
    let release!: () => void;
    const late = new Promise<void>((done) => (release = done));
    const stalling: typeof fetch = async (input, init) => {
      if (!answersLate || (init?.method ?? 'GET') !== 'POST') return link.fetch(input, init);
      const signal = init?.signal;
      const answer = link.fetch(input, { ...init, signal: null }).then(async (response) => (await late, response));
      return new Promise<Response>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason));
        answer.then(resolve, reject);
      });
    };
    const { core } = gate.kiosk({ fetch: stalling, link, timings: { onlineDecisionTimeoutMs: 300 } });
    await core.call('syncNow', {});

    const decision = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'offline', codeId: code.code_id });
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(1);

    answersLate = false;
    release();
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0 });
    expect(await core.call('kioskStatus', {})).toMatchObject({ pendingOperations: 0, attentionCount: 0 });
    const logs = (await serverLogs(gate.owner)).filter((log) => log.code_id === code.code_id);
    expect(logs).toHaveLength(1);
    expect(link.writes().filter((line) => line === 'POST /access-codes/validate' || line === 'POST /kiosk/replay')).toEqual(['POST /access-codes/validate', 'POST /kiosk/replay']);
  });

  it('records a walk-in and its checkout on the server at once', async () => {
    const { core } = gate.kiosk();
    await core.call('startShift', { guardName: 'Sani Garba' });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002', hostUserId: '7A', notes: 'Delivery' });
    expect(walkIn.queued).toBe(false);
    expect(walkIn.visit.logId).toMatch(/^log_/);
    const inside = await core.call('onPremises', { search: 'ngozi' });
    expect(inside.visitors.map((visit) => visit.visitId)).toEqual([walkIn.visit.visitId]);

    const out = await core.call('checkout', { visitId: walkIn.visit.visitId, notes: 'Left with parcel' });
    expect(out.queued).toBe(false);
    const [log] = await serverLogs(gate.owner);
    expect(log).toMatchObject({ method: 'walk_in', visitor_name: 'Ngozi Eze', status: 'checked_out', notes: 'Delivery' });
    expect((await core.call('onPremises', {})).count).toBe(0);
    await expect(core.call('checkout', { visitId: walkIn.visit.visitId })).rejects.toMatchObject({ code: 409 });
  });

  it('lists visitors who came in through another gate, and checks them out', async () => {
    const other = await gate.owner.post('/access-logs', { visitor_name: 'Bola Ade', visitor_phone: '+2348030000003', entry_point: 'Gate B' });
    const { core } = gate.kiosk();
    const sync = await core.call('syncNow', {});
    expect(sync).toMatchObject({ online: true, error: null });
    const inside = await core.call('onPremises', {});
    expect(inside).toMatchObject({ count: 1, source: 'server' });
    expect(inside.visitors[0]).toMatchObject({ visitId: other.body.access_log.log_id, visitorName: 'Bola Ade', entryPoint: 'Gate B' });
    await core.call('checkout', { visitId: other.body.access_log.log_id });
    const [log] = await serverLogs(gate.owner);
    expect(log!.status).toBe('checked_out');
  });
});
