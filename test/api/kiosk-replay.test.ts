import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_REPLAY_OPS } from '../../shared/schemas/kiosk-replay.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const GATE_SCOPES = ['access_codes:validate', 'access_codes:write', 'logs:read'] as const;

let server: TestServer;
let org: TestOrganization;
let gate: ApiClient;
let seq = 0;
const key = (what: string) => `kiosk-1.${what}.${++seq}`;

const walkIn = (name: string, idempotencyKey = key('walkin'), extra: Record<string, unknown> = {}) => ({
  operation: 'walk_in',
  idempotency_key: idempotencyKey,
  body: { visitor_name: name, visitor_phone: '+2348012345678', ...extra },
});
const checkoutOf = (logOf: string, idempotencyKey = key('checkout')) => ({
  operation: 'checkout',
  idempotency_key: idempotencyKey,
  log_of: logOf,
  body: { checkout_notes: 'left' },
});
const replay = (client: ApiClient, ops: unknown[]) => client.post('/kiosk/replay', { ops });

async function newCode(client: ApiClient, body: Record<string, unknown> = {}) {
  const res = await client.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', ...body });
  expect(res.status).toBe(201);
  return res.body.access_code as { code: string; code_id: string };
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());
beforeEach(async () => {
  server.clock.set(START);
  org = await server.createOrganization({ name: 'Admiralty Gardens' });
  gate = await org.keyWith([...GATE_SCOPES]);
});

describe('POST /kiosk/replay', () => {
  it('applies a walk-in, a validation and the checkouts that name them by key, in order, each answered as its single route', async () => {
    const code = await newCode(org.live);
    const ada = walkIn('Ada Obi');
    const scan = { operation: 'validate', idempotency_key: key('scan'), body: { code: code.code, entry_point: 'Gate A' } };
    const res = await replay(gate, [ada, scan, checkoutOf(ada.idempotency_key), checkoutOf(scan.idempotency_key)]);
    expect(res.status).toBe(200);
    const [created, validated, out1, out2] = res.body.results;
    expect(created).toMatchObject({ idempotency_key: ada.idempotency_key, status: 201, replayed: false, body: { access_log: { visitor_name: 'Ada Obi', status: 'checked_in' } } });
    expect(validated).toMatchObject({ status: 200, body: { valid: true, uses_remaining: 0 } });
    expect(out1).toMatchObject({ status: 200, body: { access_log: { log_id: created.body.access_log.log_id, status: 'checked_out', checkout_notes: 'left' } } });
    expect(out2).toMatchObject({ status: 200, body: { access_log: { log_id: validated.body.log_id, status: 'checked_out' } } });

    const logs = (await org.live.get('/access-logs?limit=100')).body.results as Array<{ visitor_name: string; status: string }>;
    expect(logs.map((log) => [log.visitor_name, log.status]).sort()).toEqual([
      ['Ada Obi', 'checked_out'],
      ['Musa Bello', 'checked_out'],
    ]);
  });

  it('sent again, replays every item, and a single request with an item\'s key replays that item (and the reverse)', async () => {
    const code = await newCode(org.live, { max_uses: 5 });
    const ops = [walkIn('Ada Obi'), { operation: 'validate', idempotency_key: key('scan'), body: { code: code.code } }];
    const first = await replay(gate, ops);
    const again = await replay(gate, ops);
    expect(again.body.results.map((item: { status: number; replayed: boolean }) => [item.status, item.replayed])).toEqual([
      [201, true],
      [200, true],
    ]);
    expect(again.body.results.map((item: { body: unknown }) => item.body)).toEqual(first.body.results.map((item: { body: unknown }) => item.body));
    expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(1);

    // The single route, same key and body: the batch's answer, replayed.
    const single = await gate.post('/access-codes/validate', ops[1]!.body, { headers: { 'idempotency-key': ops[1]!.idempotency_key } });
    expect(single.headers.get('idempotent-replayed')).toBe('true');
    expect(single.body).toEqual(first.body.results[1].body);

    // A single request first, then the batch: the batch replays it, and a checkout can name it.
    const singleKey = key('walkin');
    const bola = await gate.post('/access-logs', walkIn('Bola Ade').body, { headers: { 'idempotency-key': singleKey } });
    const later = await replay(gate, [walkIn('Bola Ade', singleKey), checkoutOf(singleKey)]);
    expect(later.body.results[0]).toMatchObject({ status: 201, replayed: true, body: bola.body });
    expect(later.body.results[1]).toMatchObject({ status: 200, body: { access_log: { log_id: bola.body.access_log.log_id, status: 'checked_out' } } });
    expect((await org.live.get('/access-logs?limit=100')).body.totalResults).toBe(3);
  });

  it('a refused item undoes only itself: the others apply, and it may be sent again', async () => {
    const ada = walkIn('Ada Obi');
    const first = await replay(gate, [ada]);
    const logId = first.body.results[0].body.access_log.log_id as string;
    await gate.patch(`/access-logs/${logId}/checkout`, {});
    const tooOld = walkIn('Old Visitor', key('walkin'), { checked_in_at: '2026-11-01T10:00:00.000Z' });
    const res = await replay(gate, [
      { operation: 'checkout', idempotency_key: key('checkout'), log_id: logId, body: {} },
      tooOld,
      walkIn('Chidi Okafor'),
    ]);
    expect(res.status).toBe(200);
    const [conflict, old, chidi] = res.body.results;
    expect(conflict).toMatchObject({ status: 409, body: { code: 409, message: expect.stringContaining('already checked out') } });
    expect(old).toMatchObject({ status: 400, body: { code: 400, message: expect.stringContaining('checked_in_at') } });
    expect(chidi).toMatchObject({ status: 201, body: { access_log: { visitor_name: 'Chidi Okafor' } } });
    // A refusal keeps no record: the same key runs again (as after a single route's 4xx).
    const retried = await replay(gate, [{ ...tooOld, body: { ...tooOld.body } }]);
    expect(retried.body.results[0]).toMatchObject({ status: 400, replayed: false });
  });

  it("another organization's log is a 404 item, and its keys resolve nothing here (424)", async () => {
    const other = await server.createOrganization({ name: 'Other Estate' });
    const theirs = walkIn('Their Visitor');
    const logId = (await replay(other.live, [theirs])).body.results[0].body.access_log.log_id as string;
    const res = await replay(gate, [
      { operation: 'checkout', idempotency_key: key('checkout'), log_id: logId, body: {} },
      checkoutOf(theirs.idempotency_key),
      walkIn('Ada Obi'),
    ]);
    expect(res.body.results.map((item: { status: number }) => item.status)).toEqual([404, 424, 201]);
    expect(res.body.results[0].body).toEqual({ code: 404, message: 'Access log not found' });
    expect((await other.live.get(`/access-logs/${logId}`)).body.access_log.status).toBe('checked_in');
  });

  it('a checkout whose check-in was refused, or not sent yet, is a 424 item that does nothing', async () => {
    const code = await newCode(org.live);
    await org.live.delete(`/access-codes/${code.code_id}`, { body: { reason: 'lost' } });
    const scan = { operation: 'validate', idempotency_key: key('scan'), body: { code: code.code } };
    const res = await replay(gate, [scan, checkoutOf(scan.idempotency_key), checkoutOf('kiosk-1.never-sent')]);
    expect(res.body.results.map((item: { status: number }) => item.status)).toEqual([200, 424, 424]);
    expect(res.body.results[0].body).toEqual({ valid: false, reason: 'Code has been revoked' });
    expect(res.body.results[1].body.message).toMatch(/^ops\[1\]\.log_of: /);
  });

  it('a malformed batch is a 400 naming the item\'s field, and applies nothing', async () => {
    const noCode = { operation: 'validate', idempotency_key: key('scan'), body: { entry_point: 'Gate A' } };
    const res = await replay(gate, [walkIn('Ada Obi'), walkIn('Bola Ade'), walkIn('Chidi Okafor'), noCode]);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'ops[3].body.code is required');
    expect((await org.live.get('/access-logs')).body.totalResults).toBe(0);

    const both = await replay(gate, [{ operation: 'checkout', idempotency_key: key('c'), log_id: 'log_x', log_of: 'k', body: {} }]);
    expect(both).toMatchObject({ status: 400, body: { message: expect.stringContaining('ops[0].log_id') } });
    const unknown = await replay(gate, [{ ...walkIn('Ada Obi'), extra: 1 }]);
    expect(unknown).toMatchObject({ status: 400, body: { message: 'ops[0].extra: unknown field' } });
    const tooMany = await replay(gate, Array.from({ length: MAX_REPLAY_OPS + 1 }, (_, i) => walkIn(`V${i}`)));
    expect(tooMany).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^ops: /) } });
  });

  it('the same key with another body is a 400 item, as on the single route', async () => {
    const ada = walkIn('Ada Obi');
    await replay(gate, [ada]);
    const res = await replay(gate, [walkIn('Someone Else', ada.idempotency_key)]);
    expect(res.body.results[0]).toMatchObject({ status: 400, body: { message: expect.stringContaining('Idempotency-Key') } });
  });

  it('needs access_codes:write for the batch and access_codes:validate for each validation', async () => {
    const validateOnly = await org.keyWith(['access_codes:validate']);
    expect((await replay(validateOnly, [walkIn('Ada Obi')])).status).toBe(403);
    const writeOnly = await org.keyWith(['access_codes:write']);
    const code = await newCode(org.live);
    const res = await replay(writeOnly, [{ operation: 'validate', idempotency_key: key('scan'), body: { code: code.code } }, walkIn('Ada Obi')]);
    expect(res.body.results.map((item: { status: number }) => item.status)).toEqual([403, 201]);
    expect(res.body.results[0].body.message).toBe('This API key lacks the access_codes:validate scope');
    expect((await org.live.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(0);
  });

  it('the database failing mid-batch applies nothing of it, and the batch sent again applies each operation once', async () => {
    const db = server.running.database.db;
    // The fourth walk-in's insert fails as a disk or a dropped connection would: not a refusal.
    if (server.database.engine === 'sqlite') {
      await sql`create trigger replay_boom before insert on access_logs when new.visitor_name = 'Boom' begin select raise(abort, 'disk I/O error'); end`.execute(db);
    } else {
      await sql`create function replay_boom() returns trigger language plpgsql as $$ begin if new.visitor_name = 'Boom' then raise exception 'disk I/O error'; end if; return new; end $$`.execute(db);
      await sql`create trigger replay_boom before insert on access_logs for each row execute function replay_boom()`.execute(db);
    }
    const first = walkIn('Ada Obi');
    const ops = [first, checkoutOf(first.idempotency_key), walkIn('Bola Ade'), walkIn('Boom'), walkIn('Chidi Okafor')];
    try {
      const failed = await replay(gate, ops);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect((await org.live.get('/access-logs')).body.totalResults).toBe(0);
    } finally {
      await sql`drop trigger replay_boom${sql.raw(server.database.engine === 'sqlite' ? '' : ' on access_logs')}`.execute(db);
      if (server.database.engine === 'postgres') await sql`drop function replay_boom()`.execute(db);
    }
    const again = await replay(gate, ops);
    expect(again.body.results.map((item: { status: number; replayed: boolean }) => [item.status, item.replayed])).toEqual([
      [201, false],
      [200, false],
      [201, false],
      [201, false],
      [201, false],
    ]);
    const logs = (await org.live.get('/access-logs?limit=100')).body.results as Array<{ visitor_name: string; status: string }>;
    expect(logs.map((log) => [log.visitor_name, log.status]).sort()).toEqual([
      ['Ada Obi', 'checked_out'],
      ['Bola Ade', 'checked_in'],
      ['Boom', 'checked_in'],
      ['Chidi Okafor', 'checked_in'],
    ]);
  });
});
