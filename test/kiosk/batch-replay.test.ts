import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY_PROBLEM } from '../../electron/core/link/admin-key.ts';
import { REPLAY_BATCH } from '../../electron/core/outbox/replay-batch.ts';
import { createCode, Link, serverLogs, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

const phone = (i: number) => `+23480300${String(i).padStart(5, '0')}`;

/** Every access log on the server, past the API's page of 100. */
async function allServerLogs() {
  const logs: Array<{ visitor_name: string; status: string; checked_in_at: string; checked_out_at: string | null }> = [];
  for (let page = 1; ; page++) {
    const res = await gate.owner.get(`/access-logs?limit=100&page=${page}`);
    logs.push(...res.body.results);
    if (page >= res.body.totalPages) return logs;
  }
}

describe('the queue replayed in batches', () => {
  it('sends a walk-in and its checkout, queued offline, in one request, the checkout after the check-in', async () => {
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: phone(1) });
    gate.clock.advance(60_000);
    await core.call('checkout', { visitId: walkIn.visit.visitId });
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: 2, refused: 0, pendingOperations: 0 });
    expect(link.writes()).toEqual(['POST /kiosk/replay']);
    const [log] = await allServerLogs();
    expect(log).toMatchObject({ visitor_name: 'Ngozi Eze', status: 'checked_out' });
    expect(Date.parse(log!.checked_out_at!) - Date.parse(log!.checked_in_at)).toBe(60_000);
    expect(await core.call('onPremises', {})).toMatchObject({ count: 0 });
  });

  it('keeps each checkout after its check-in when they fall in different batches', async () => {
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const first = await core.call('walkIn', { visitorName: 'First Visitor', visitorPhone: phone(0) });
    for (let i = 1; i < REPLAY_BATCH; i++) await core.call('walkIn', { visitorName: `Visitor ${i}`, visitorPhone: phone(i) });
    // The 101st operation: its check-in went in the first batch.
    await core.call('checkout', { visitId: first.visit.visitId });
    // A walk-in at the end of the second batch's list, and its checkout: the same batch.
    const last = await core.call('walkIn', { visitorName: 'Last Visitor', visitorPhone: phone(999) });
    await core.call('checkout', { visitId: last.visit.visitId });
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: REPLAY_BATCH + 3, pendingOperations: 0 });
    expect(link.writes()).toEqual(['POST /kiosk/replay', 'POST /kiosk/replay']);
    const logs = await allServerLogs();
    expect(logs).toHaveLength(REPLAY_BATCH + 1);
    const closed = logs.filter((log) => log.status === 'checked_out').map((log) => log.visitor_name);
    expect(closed.sort()).toEqual(['First Visitor', 'Last Visitor']);
  });

  it('a refused operation in a batch goes to needs attention; the others are applied', async () => {
    const elsewhere = await gate.owner.post('/access-logs', { visitor_name: 'Bola Ade', visitor_phone: phone(3), entry_point: 'Gate B' });
    const logId = elsewhere.body.access_log.log_id as string;
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ada Obi', visitorPhone: phone(1) });
    await core.call('checkout', { visitId: logId });
    await core.call('walkIn', { visitorName: 'Chidi Okafor', visitorPhone: phone(2) });
    // Gate B checks the same visitor out first.
    await gate.owner.patch(`/access-logs/${logId}/checkout`, {});
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: 2, refused: 1, pendingOperations: 0 });
    expect(link.writes()).toEqual(['POST /kiosk/replay']);
    const status = await core.call('kioskStatus', {});
    expect(status.attention).toMatchObject([{ kind: 'operation_refused', operation: 'checkout', visitorName: 'Bola Ade', logId }]);
    expect((await serverLogs(gate.owner)).map((log) => log.visitor_name).sort()).toEqual(['Ada Obi', 'Bola Ade', 'Chidi Okafor']);
    // Settled for good: never sent again.
    await core.call('syncNow', {});
    expect(link.writes()).toHaveLength(1);
  });

  it('a batch sent again after its answer was lost applies each operation once', async () => {
    const code = await createCode(gate.owner, { visitor_name: 'Musa Bello', max_uses: 3 });
    const { core, link } = gate.kiosk();
    await core.call('syncNow', {});
    link.up = false;
    const scanned = await core.call('scan', { text: code.qr_payload, method: 'camera' });
    await core.call('checkout', { visitId: scanned.visitId! });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: phone(1) });
    await core.call('checkout', { visitId: walkIn.visit.visitId });
    link.up = true;
    link.loseAnswers = 1;
    expect((await core.call('syncNow', {})).pendingOperations).toBe(4);
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: 4, pendingOperations: 0 });
    expect(link.writes()).toEqual(['POST /kiosk/replay', 'POST /kiosk/replay']);
    expect((await gate.owner.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(1);
    expect((await serverLogs(gate.owner)).map((log) => [log.visitor_name, log.status]).sort()).toEqual([
      ['Musa Bello', 'checked_out'],
      ['Ngozi Eze', 'checked_out'],
    ]);
  });

  it('against a server without the batch route (404), sends one operation at a time, in order', async () => {
    const link = new Link();
    const olderServer: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/kiosk/replay')) {
        link.sent.push('POST /kiosk/replay');
        return Response.json({ code: 404, message: 'Route not found' }, { status: 404 });
      }
      return link.fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: olderServer, link });
    await core.call('syncNow', {});
    link.up = false;
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: phone(1) });
    await core.call('checkout', { visitId: walkIn.visit.visitId });
    await core.call('walkIn', { visitorName: 'Ada Obi', visitorPhone: phone(2) });
    link.up = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: 3, pendingOperations: 0 });
    expect(link.writes().map((line) => line.replace(/log_\w+/, 'log_…'))).toEqual([
      'POST /kiosk/replay',
      'POST /access-logs',
      'PATCH /access-logs/log_…/checkout',
      'POST /access-logs',
    ]);
    expect((await serverLogs(gate.owner)).map((log) => [log.visitor_name, log.status]).sort()).toEqual([
      ['Ada Obi', 'checked_in'],
      ['Ngozi Eze', 'checked_out'],
    ]);
  });
});

describe('a KIOSK_API_KEY not yet proven non-admin', () => {
  it('an admin key: the first scan after start, before any sync, does not leave; only the SOS does', async () => {
    const code = await createCode(gate.owner);
    const { core, link } = gate.kiosk({ apiKey: gate.org.keys.live });
    // Decided here (with no cache yet: refused, and not queued, since it never left).
    expect(await core.call('scan', { text: code.code, method: 'keypad' })).toMatchObject({ admitted: false, decidedBy: 'offline' });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: phone(1) });
    expect(walkIn.queued).toBe(true);
    expect(link.writes()).toEqual([]);
    expect(await core.call('kioskStatus', {})).toMatchObject({ problem: ADMIN_KEY_PROBLEM, pendingOperations: 1 });
    expect(await core.call('syncNow', {})).toMatchObject({ error: ADMIN_KEY_PROBLEM, pendingOperations: 1 });
    expect(link.writes()).toEqual([]);
    expect(await serverLogs(gate.owner)).toEqual([]);
    expect((await core.call('panicPress', { pressId: 'press-admin-first' })).delivery).toBe('sent');
    expect(link.writes()).toEqual(['POST /incidents']);
  });

  it('a gate key whose check is not answered: nothing queued leaves until it is, then everything does', async () => {
    const link = new Link();
    let checkAnswers = false;
    const fetchImpl: typeof fetch = async (input, init) => {
      if (String(input).includes('/api-keys') && !checkAnswers) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      return link.fetch(input, init);
    };
    const { core } = gate.kiosk({ fetch: fetchImpl, link });
    const walkIn = await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: phone(1) });
    expect(walkIn.queued).toBe(true);
    const stopped = await core.call('syncNow', {});
    expect(stopped).toMatchObject({ pendingOperations: 1, error: expect.stringContaining('Could not check') });
    expect(link.writes()).toEqual([]);
    checkAnswers = true;
    expect(await core.call('syncNow', {})).toMatchObject({ error: null, sent: 1, pendingOperations: 0 });
    expect(link.writes()).toEqual(['POST /kiosk/replay']);
    // Proven once for the run: the next walk-in goes at once, without asking again.
    const checks = link.sent.filter((line) => line.startsWith('GET /api-keys')).length;
    expect((await core.call('walkIn', { visitorName: 'Ada Obi', visitorPhone: phone(2) })).queued).toBe(false);
    expect(link.sent.filter((line) => line.startsWith('GET /api-keys')).length).toBe(checks);
  });
});
