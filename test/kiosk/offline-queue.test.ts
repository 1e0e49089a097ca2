import { KIOSK_REPLAY_MARGIN_MS, REPLAY_WINDOW_MS } from '../../shared/kiosk/gate-operations.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCode, Link, serverLogs, startGate, type Gate } from './support/gate.ts';

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
    // One batch, whose answer was lost, and the same batch again (each item replayed by its key).
    expect(link.writes()).toEqual(['POST /kiosk/replay', 'POST /kiosk/replay']);
    expect((await core.call('kioskStatus', {})).attentionCount).toBe(0);
  });

  it('restarted with operations still waiting, sends each of them once when the link returns', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello' });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'offline' });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    await core.call('checkout', { visitId: walkIn.visit.visitId });
    // The first write reaches the server but its answer is lost; then the kiosk is switched off.
    link.up = true;
    link.loseAnswers = 1;
    expect((await core.call('syncNow', {})).error).not.toBeNull();
    expect((await core.call('kioskStatus', {})).pendingOperations).toBe(3);
    await core.close();

    const restarted = gate.kiosk({ dataDir: core.dataDir, link });
    expect(await restarted.core.call('kioskStatus', {})).toMatchObject({ pendingOperations: 3 });
    expect(await restarted.core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0, refused: 0 });
    const logs = await serverLogs(gate.owner);
    expect(logs.map((log) => [log.visitor_name, log.status]).sort()).toEqual([
      ['Musa Bello', 'checked_in'],
      ['Ngozi Eze', 'checked_out'],
    ]);
    expect((await codeOnServer(code.code_id)).use_count).toBe(1);
    expect((await restarted.core.call('kioskStatus', {})).attentionCount).toBe(0);
  });

  it('does not send again an operation the inline send settled while the replay held it in a batch read earlier', async () => {
    const elsewhere = await gate.owner.post('/access-logs', { visitor_name: 'Bola Ade', visitor_phone: '+2348030000003', entry_point: 'Gate B' });
    const logId = elsewhere.body.access_log.log_id as string;
    const link = new Link();
    const holds: Array<{ match: (method: string, url: string) => boolean; release: Promise<void>; open: () => void; reached: () => void; arrived: Promise<void> }> = [];
    const hold = (match: (method: string, url: string) => boolean) => {
      let open!: () => void;
      let reached!: () => void;
      const release = new Promise<void>((done) => (open = done));
      const arrived = new Promise<void>((done) => (reached = done));
      const entry = { match, release, open, reached, arrived };
      holds.push(entry);
      return entry;
    };
    const held: typeof fetch = async (input, init) => {
      const entry = holds.find((h) => h.match(init?.method ?? 'GET', String(input)));
      if (entry) {
        holds.splice(holds.indexOf(entry), 1);
        entry.reached();
        await entry.release;
      }
      return link.fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: held, link });
    await core.call('syncNow', {});
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });
    // Gate B checks the visitor out: this kiosk's checkout will be refused.
    await gate.owner.patch(`/access-logs/${logId}/checkout`, {});
    link.up = true;

    const feed = hold((_method, url) => url.includes('/access-codes/changes'));
    const sync = core.call('syncNow', {});
    await feed.arrived;
    const patch = hold((method) => method === 'PATCH');
    const checkout = core.call('checkout', { visitId: logId });
    await patch.arrived;
    const post = hold((method, url) => method === 'POST' && url.endsWith('/kiosk/replay'));
    feed.open();
    // The replay has read [walk-in, checkout] and is sending its batch; the inline checkout's answer comes now.
    await post.arrived;
    patch.open();
    expect((await checkout).queued).toBe(false);
    post.open();
    expect(await sync).toMatchObject({ error: null, pendingOperations: 0 });
    expect(link.writes().filter((line) => line.startsWith('PATCH'))).toHaveLength(1);
    const status = await core.call('kioskStatus', {});
    expect(status.attention.map((item) => item.operation)).toEqual(['checkout']);
  });

  it('an offline refusal replayed and refused for good leaves the code\'s uses granted here offline counted', async () => {
    const start = gate.clock.now().getTime();
    const code = await createCode(gate.owner, {
      visitor_name: 'Tunde Ola',
      max_uses: 1,
      valid_from: new Date(start + 3_600_000).toISOString(),
      valid_until: new Date(start + 10 * 86_400_000).toISOString(),
    });
    const link = new Link();
    let validations = 0;
    // One at a time (a server without the batch route), so that the second replayed validation
    // alone is lost with the link: the offline admission stays queued.
    const flaky: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/kiosk/replay')) return Response.json({ code: 404, message: 'Route not found' }, { status: 404 });
      if (init?.method === 'POST' && String(input).endsWith('/access-codes/validate') && ++validations === 2) throw new TypeError('fetch failed');
      return link.fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: flaky, link });
    await core.call('syncNow', {});
    link.up = false;
    // Tried on the server first (the link just failed): refused here, and queued since the request may have got there.
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: false, decidedBy: 'offline', reason: 'not_yet_active' });
    gate.clock.advance(1.5 * 86_400_000);
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: true, decidedBy: 'offline', usesLeft: 0 });
    // Eight days on, the refusal is too old for the server (a 4xx), the admission not.
    gate.clock.advance(6.5 * 86_400_000);
    link.up = true;
    validations = 0;
    expect(await core.call('syncNow', {})).toMatchObject({ pendingOperations: 1 });
    expect((await core.call('kioskStatus', {})).attention).toMatchObject([{ kind: 'operation_refused', operation: 'validate' }]);
    link.up = false;
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: false, reason: 'used_up' });
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
    // An excess use, in fields: the console warns, and visitor.excess_use reports it (issue #49).
    expect(logs[0]!.admitted_offline).toEqual({ code: code.code, scanned_at: decision.scannedAt, server_said: 'Code has been revoked' });
    const excess = (await gate.owner.get(`/events?type=visitor.excess_use`)).body.results as Array<{ data: { log_id: string; admitted_offline: unknown } }>;
    expect(excess.map((event) => [event.data.log_id, event.data.admitted_offline])).toEqual([[logs[0]!.log_id, logs[0]!.admitted_offline]]);

    // The visitor leaves: the checkout closes the visit the server kept.
    await core.call('checkout', { visitId: decision.visitId! });
    expect((await serverLogs(gate.owner))[0]!.status).toBe('checked_out');
  });

  it('six and a half days offline: a refused admission is recorded as a walk-in with the time of the scan, inside the one replay window', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Halima Bello', valid_until: new Date(gate.clock.now().getTime() + 10 * 86_400_000).toISOString() });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const decision = await core.call('scan', { text: code.code, method: 'keypad' });
    expect(decision).toMatchObject({ admitted: true, decidedBy: 'offline' });
    await gate.owner.delete(`/access-codes/${code.code_id}`, { body: { reason: 'Host cancelled' } });
    // Past the six days the kiosk used to assume, inside the server's seven less the kiosk's margin.
    gate.clock.advance(REPLAY_WINDOW_MS - KIOSK_REPLAY_MARGIN_MS - 12 * 3_600_000);
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, pendingOperations: 0 });

    const logs = await serverLogs(gate.owner);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ method: 'walk_in', visitor_name: 'Halima Bello', checked_in_at: decision.scannedAt });
    expect(logs[0]!.notes).toContain('Code has been revoked');
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
