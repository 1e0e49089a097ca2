import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCode, GATE_SCOPES, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

describe('reconciling with the server', () => {
  it('a scan refused here for want of an answer, which the server had admitted, is checked out again on the server and listed', async () => {
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    // Created after the last sync: the kiosk's cache does not know the typed code.
    const code = await createCode(gate.owner, { visitor_name: 'Bola Ade' });
    link.loseAnswers = 1;
    const decision = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'not_found' });
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(1);

    await core.call('syncNow', {});
    const status = await core.call('kioskStatus', {});
    expect(status).toMatchObject({ pendingOperations: 0, attentionCount: 1 });
    expect(status.attention[0]).toMatchObject({ kind: 'refusal_overturned', visitorName: 'Bola Ade', code: code.code });
    const [log] = await serverLogs(gate.owner);
    expect(log).toMatchObject({ code_id: code.code_id, status: 'checked_out' });
    expect(status.attention[0]!.logId).toBe(log!.log_id);
    expect((await core.call('onPremises', {})).count).toBe(0);
  });

  it('a key revoked meanwhile stops the sync with the reason shown, and keeps every operation', async () => {
    const created = await gate.owner.post('/api-keys', { name: 'Gate A', scopes: GATE_SCOPES });
    const { core, link } = gate.kiosk({ apiKey: created.body.secret });
    await core.call('syncNow', {});
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    await gate.owner.delete(`/api-keys/${created.body.api_key.key_id}`);

    link.up = true;
    const report = await core.call('syncNow', {});
    expect(report.error).toMatch(/revoked|invalid|key/i);
    const status = await core.call('kioskStatus', {});
    expect(status).toMatchObject({ online: true, pendingOperations: 1, attentionCount: 0 });
    expect(status.problem).toMatch(/refuses this kiosk's key \(401\)/);
    // The guard can still work: the kiosk decides by itself rather than ask a server that refuses it.
    const walkIn = await core.call('walkIn', { visitorName: 'Musa Bello', visitorPhone: '+2348030000001' });
    expect(walkIn.queued).toBe(true);
    expect(await serverLogs(gate.owner)).toHaveLength(0);
  });
});
