import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

const START = '2026-11-22T10:00:00.000Z';
const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

/**
 * The gate's "Already inside" (issue #49), as the API carries it: a validation may be held when
 * the code's holder is inside (409 naming the visit, nothing consumed), or let in over it, and
 * that override is on the access log, in the list and among the current visitors.
 */
describe('already inside', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.clock.set(START);
    org = await server.createOrganization();
  });

  const newCode = async (client: ApiClient, maxUses: number) => {
    const created = await client.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', max_uses: maxUses });
    expect(created.status).toBe(201);
    return created.body.access_code as { code: string; code_id: string };
  };
  const useCount = async (client: ApiClient, codeId: string) => (await client.get(`/access-codes/${codeId}`)).body.access_code.use_count as number;

  it('held: a holder inside answers 409 with the open visit, consumes nothing and checks nobody in', async () => {
    const code = await newCode(org.live, 3);
    const first = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Main gate', already_inside: 'hold' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ valid: true, uses_remaining: 2 });
    server.clock.set(at(5 * MINUTE));

    const again = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Back gate', already_inside: 'hold' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 409,
      open_visit: { log_id: first.body.log_id, checked_in_at: START, entry_point: 'Main gate', visitor_name: 'Musa Bello' },
    });
    expect(again.body.message).toContain('already inside since 2026-11-22T10:00:00.000Z (Main gate)');
    expect(await useCount(org.live, code.code_id)).toBe(1);
    expect((await org.live.get('/access-logs/current-visitors')).body.count).toBe(1);
  });

  it('let in over it: the access log records the override, in the list, the log and the current visitors', async () => {
    const code = await newCode(org.live, 3);
    const first = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Main gate' });
    const over = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Main gate', already_inside: 'admit', validated_by: 'Guard Ada' });
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ valid: true, uses_remaining: 1 });

    const log = (await org.live.get(`/access-logs/${over.body.log_id}`)).body.access_log;
    expect(log).toMatchObject({ already_inside_override: true, recorded_by: 'Guard Ada' });
    expect((await org.live.get(`/access-logs/${first.body.log_id}`)).body.access_log.already_inside_override).toBe(false);
    const listed = (await org.live.get('/access-logs')).body.results as Array<{ log_id: string; already_inside_override: boolean }>;
    expect(Object.fromEntries(listed.map((row) => [row.log_id, row.already_inside_override]))).toEqual({ [first.body.log_id]: false, [over.body.log_id]: true });
    const inside = (await org.live.get('/access-logs/current-visitors')).body.visitors as Array<{ log_id: string; already_inside_override: boolean }>;
    expect(inside.find((visitor) => visitor.log_id === over.body.log_id)?.already_inside_override).toBe(true);
  });

  it('a code of several uses admits again, held or not, once its earlier visit is checked out', async () => {
    const code = await newCode(org.live, 2);
    const first = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'hold' });
    server.clock.set(at(30 * MINUTE));
    expect((await org.live.patch(`/access-logs/${first.body.log_id}/checkout`, {})).status).toBe(200);
    server.clock.set(at(60 * MINUTE));
    const second = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'hold' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ valid: true, uses_remaining: 0 });
    expect((await org.live.get(`/access-logs/${second.body.log_id}`)).body.access_log.already_inside_override).toBe(false);
  });

  it('a replayed scan is held by a visit open at the time it was scanned, though checked out since', async () => {
    const code = await newCode(org.live, 3);
    const first = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Main gate' });
    server.clock.set(at(20 * MINUTE));
    await org.live.patch(`/access-logs/${first.body.log_id}/checkout`, {});
    server.clock.set(at(30 * MINUTE));
    const scannedWhileInside = await org.live.post('/access-codes/validate', { code: code.code, scanned_at: at(10 * MINUTE), already_inside: 'hold' });
    expect(scannedWhileInside.status).toBe(409);
    expect(scannedWhileInside.body.open_visit.log_id).toBe(first.body.log_id);
    const scannedAfter = await org.live.post('/access-codes/validate', { code: code.code, scanned_at: at(25 * MINUTE), already_inside: 'hold' });
    expect(scannedAfter.status).toBe(200);
  });

  it('without already_inside the reference holds: the code is consumed whoever is inside, and no override is recorded', async () => {
    const code = await newCode(org.live, 2);
    await org.live.post('/access-codes/validate', { code: code.code });
    const again = await org.live.post('/access-codes/validate', { code: code.code });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ valid: true, uses_remaining: 0 });
    expect((await org.live.get(`/access-logs/${again.body.log_id}`)).body.access_log.already_inside_override).toBe(false);
  });

  it('a held validation in a kiosk batch answers the same 409 with the open visit, and the operations after it go on', async () => {
    const code = await newCode(org.live, 3);
    await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Main gate' });
    const batch = await org.live.post('/kiosk/replay', {
      ops: [
        { operation: 'validate', idempotency_key: 'held-validation-0001', body: { code: code.code, already_inside: 'hold' } },
        { operation: 'walk_in', idempotency_key: 'walk-in-after-it-0001', body: { visitor_name: 'Ada Obi', visitor_phone: '+2348012345678' } },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0]).toMatchObject({ status: 409, body: { code: 409, open_visit: { entry_point: 'Main gate' } } });
    expect(await useCount(org.live, code.code_id)).toBe(1);
    expect(batch.body.results[1]).toMatchObject({ status: 201 });
  });

  it('an unknown choice is a 400 naming already_inside', async () => {
    const code = await newCode(org.live, 1);
    const res = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'maybe' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('already_inside');
  });
});
