import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCode, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

/** The same pass with one character replaced by another that a pass may hold. */
function alterOneCharacter(pass: string, index: number): string {
  const char = pass[index]!;
  const replacement = /\d/.test(char) ? String((Number(char) + 1) % 10) : /[A-Z]/.test(char) ? (char === 'Z' ? 'A' : String.fromCharCode(char.charCodeAt(0) + 1)) : 'X';
  return pass.slice(0, index) + replacement + pass.slice(index + 1);
}

describe('offline decisions', () => {
  it('two kiosks admit the last use of a code offline: on sync one is accepted, the other shows it in needs attention', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 1 });
    const gateA = gate.kiosk({ entryPoint: 'Gate A' });
    const gateB = gate.kiosk({ entryPoint: 'Gate B' });
    await gateA.core.call('syncNow', {});
    await gateB.core.call('syncNow', {});
    gateA.link.up = false;
    gateB.link.up = false;

    const atA = await gateA.core.call('scan', { text: code.qr_payload, method: 'camera' });
    const atB = await gateB.core.call('scan', { text: code.code, method: 'keypad' });
    expect(atA).toMatchObject({ admitted: true, decidedBy: 'offline' });
    expect(atB).toMatchObject({ admitted: true, decidedBy: 'offline' });

    gateA.link.up = true;
    gateB.link.up = true;
    gate.clock.advance(60_000);
    await gateA.core.call('syncNow', {});
    await gateB.core.call('syncNow', {});

    const statusA = await gateA.core.call('kioskStatus', {});
    const statusB = await gateB.core.call('kioskStatus', {});
    expect(statusA).toMatchObject({ pendingOperations: 0, attentionCount: 0 });
    expect(statusB).toMatchObject({ pendingOperations: 0, attentionCount: 1 });
    expect(statusB.attention[0]).toMatchObject({ kind: 'admission_refused', code: code.code, visitorName: 'Musa Bello', serverMessage: 'Maximum uses reached' });

    // The server used the code once, and keeps both visits: the one it admitted, and the one Gate B let in.
    expect((await gate.owner.get(`/access-codes/${code.code_id}`)).body.access_code).toMatchObject({ use_count: 1, status: 'used' });
    const logs = await serverLogs(gate.owner);
    expect(logs.map((log) => [log.method, log.code_id]).sort()).toEqual([
      ['code', code.code_id],
      ['walk_in', null],
    ]);
    // Gate B now knows the code is spent.
    gateB.link.up = false;
    expect(await gateB.core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'used_up' });
  });

  it('decides offline a pass created after the last sync, and refuses one with any character changed', async () => {
    // A new organization: no code issued before the kiosk's last sync.
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    const late = await createCode(gate.owner, { visitor_name: 'Ada Obi', max_uses: 1 });
    link.up = false;

    for (let index = 0; index < late.qr_payload.length; index++) {
      const altered = alterOneCharacter(late.qr_payload, index);
      const decision = await core.call('scan', { text: altered, method: 'camera' });
      expect(decision, `character ${index} changed: ${altered}`).toMatchObject({ admitted: false, decidedBy: 'offline' });
      expect(['invalid_pass', 'not_found']).toContain(decision.reason);
    }
    expect(await core.call('scan', { text: late.code, method: 'keypad' })).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'not_found' });

    const decision = await core.call('scan', { text: late.qr_payload.toLowerCase(), method: 'keyboard_wedge' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'offline', code: late.code, codeId: late.code_id, visitor: null, usesLeft: null });
    expect(decision.message).toContain(`the holder of ${late.code}`);
    // Its one use is spent here now.
    expect(await core.call('scan', { text: late.qr_payload, method: 'camera' })).toMatchObject({ admitted: false, reason: 'used_up' });

    link.up = true;
    gate.clock.advance(60_000);
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0 });
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ method: 'code', code_id: late.code_id, visitor_name: 'Ada Obi' });
  });

  it('while the queue is being replayed, refuses a code whose last use it granted offline, rather than ask the server', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 1 });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'offline' });

    // The link returns; the sync is under way (the server answered its health check) and the
    // queue's first operation is on its way when the same pass is shown again.
    link.up = true;
    const hold = link.holdNextWrite();
    const sync = core.call('syncNow', {});
    await hold.reached;
    expect((await core.call('kioskStatus', {})).online).toBe(true);
    expect(await core.call('scan', { text: code.qr_payload, method: 'camera' })).toMatchObject({ admitted: false, reason: 'used_up' });
    hold.release();
    await sync;

    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
    expect((await serverLogs(gate.owner)).filter((log) => log.code_id === code.code_id)).toHaveLength(1);
  });

  it('says so when it cannot judge a pass because it has never synced the pass keys', async () => {
    const code = await createCode(gate.owner);
    const { core, link } = gate.kiosk();
    link.up = false;
    const decision = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    expect(decision).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'invalid_pass' });
    expect(decision.message).toMatch(/has not received the organization's pass keys/);
  });

  it('refuses offline what the server would: revoked, not yet valid, expired, and uses spent here', async () => {
    const revoked = await createCode(gate.owner);
    const tomorrow = new Date(gate.clock.now().getTime() + 24 * 3600_000).toISOString();
    const later = await createCode(gate.owner, { valid_from: tomorrow });
    const twoUses = await createCode(gate.owner, { max_uses: 2, valid_until: new Date(gate.clock.now().getTime() + 3600_000).toISOString() });
    await gate.owner.delete(`/access-codes/${revoked.code_id}`, { body: {} });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;

    expect(await core.call('scan', { text: revoked.qr_payload, method: 'camera' })).toMatchObject({ admitted: false, reason: 'revoked' });
    expect(await core.call('scan', { text: later.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'not_yet_active' });
    expect(await core.call('scan', { text: twoUses.code, method: 'keypad' })).toMatchObject({ admitted: true, usesLeft: 1 });
    // Its holder is inside now (issue #49): the second use is the guard's to give, over "Already inside".
    expect(await core.call('scan', { text: twoUses.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'already_inside' });
    expect(await core.call('scan', { text: twoUses.code, method: 'keypad', overrideAlreadyInside: true })).toMatchObject({ admitted: true, usesLeft: 0 });
    expect(await core.call('scan', { text: twoUses.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'used_up' });
    gate.clock.advance(2 * 3600_000);
    const expired = await createCode(gate.owner, { valid_until: new Date(gate.clock.now().getTime() + 60_000).toISOString() });
    link.up = true;
    await core.call('syncNow', {});
    link.up = false;
    gate.clock.advance(120_000);
    expect(await core.call('scan', { text: expired.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'expired' });
    // A refusal decided while the kiosk knows it is offline is not replayed: the server might
    // admit, and check in, someone the guard turned away.
    const before = (await core.call('kioskStatus', {})).pendingOperations;
    expect(await core.call('scan', { text: revoked.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'revoked' });
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(before);
  });
});
