import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

describe('Idempotency-Key header', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
  const countIncidents = async () => (await org.live.get('/incidents?limit=1')).body.totalResults as number;

  it('a retry gets the first answer again, marked Idempotent-Replayed, and creates nothing more', async () => {
    const before = await countIncidents();
    const first = await org.live.post('/incidents', incidentBody(), withKey('kiosk-1-op-1'));
    const retry = await org.live.post('/incidents', incidentBody(), withKey('kiosk-1-op-1'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await countIncidents()).toBe(before + 1);
  });

  it('the same key through the /api/v1 alias is the same request', async () => {
    const first = await org.live.post('/incidents', incidentBody(), withKey('alias-1'));
    const retry = await org.live.request('POST', '/api/v1/incidents', { body: incidentBody(), ...withKey('alias-1') });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.incident.incident_id).toBe(first.body.incident.incident_id);
  });

  it('the same key with another body answers 400 naming Idempotency-Key', async () => {
    await org.live.post('/incidents', incidentBody(), withKey('k-body'));
    const res = await org.live.post('/incidents', incidentBody({ severity: 'low' }), withKey('k-body'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain('Idempotency-Key');
  });

  it('the same key on another path answers 400 naming Idempotency-Key', async () => {
    const created = await org.live.post('/incidents', incidentBody());
    const id = created.body.incident.incident_id;
    await org.live.post(`/incidents/${id}/notes`, { message: 'a' }, withKey('k-path'));
    const res = await org.live.post(`/incidents/${id}/cancel`, { message: 'a' }, withKey('k-path'));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Idempotency-Key');
  });

  it('a key still in flight answers 409', async () => {
    const created = await org.live.post('/incidents', incidentBody());
    // Another host claimed this key a moment ago and has not finished.
    await server.running.database.db
      .insertInto('idempotency_requests')
      .values({
        organization_id: org.organizationId,
        environment: 'live',
        idempotency_key: 'k-flight',
        fingerprint: 'x',
        state: 'in_flight',
        response_status: null,
        response_body: null,
        locked_at: server.clock.now().toISOString(),
        created_at: server.clock.now().toISOString(),
      })
      .execute();
    const res = await org.live.post(`/incidents/${created.body.incident.incident_id}/cancel`, {}, withKey('k-flight'));
    // Different fingerprint from the claim above: mismatch wins over in-flight, as with Stripe.
    expect(res.status).toBe(400);
  });

  it('concurrent requests with one key: one runs, the others get 409 or its replay, and one change is made', async () => {
    const created = await org.live.post('/incidents', incidentBody());
    const id = created.body.incident.incident_id;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => org.live.post(`/incidents/${id}/notes`, { message: 'once' }, withKey('k-race'))),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    const final = await org.live.get(`/incidents/${id}`);
    expect(final.body.incident.timeline.filter((e: { event: string }) => e.event === 'note')).toHaveLength(1);
  });

  it('a claim left by a crashed request is taken over after its lease', async () => {
    const body = incidentBody();
    const created = await org.live.post('/incidents', body);
    const id = created.body.incident.incident_id;
    const first = await org.live.post(`/incidents/${id}/notes`, { message: 'crash' }, withKey('k-crash'));
    expect(first.status).toBe(200);
    // Make it look like the request died mid-flight: its claim was never completed.
    await server.running.database.db
      .updateTable('idempotency_requests')
      .set({ state: 'in_flight', response_status: null, response_body: null })
      .where('idempotency_key', '=', 'k-crash')
      .execute();
    const blocked = await org.live.post(`/incidents/${id}/notes`, { message: 'crash' }, withKey('k-crash'));
    expect(blocked.status).toBe(409);
    server.clock.advance(61_000);
    const taken = await org.live.post(`/incidents/${id}/notes`, { message: 'crash' }, withKey('k-crash'));
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
  });

  it("a claim a key of one site left by crashing, taken over by a key of every site, becomes the taker's: the site's key no longer replays it (issue #46)", async () => {
    const siteId = (await org.live.post('/sites', { name: 'Crash Estate' })).body.site.site_id as string;
    const siteKey = server.client((await org.live.post('/api-keys', { name: 'Crash gate', scopes: ['access_codes:write', 'access_codes:read'], site_ids: [siteId] })).body.secret);
    const visitor = { visitor_name: 'Femi Ade', visitor_phone: '+2348030000009' };
    expect((await siteKey.post('/access-codes', visitor, withKey('k-site-crash'))).status).toBe(201);
    await server.running.database.db
      .updateTable('idempotency_requests')
      .set({ state: 'in_flight', response_status: null, response_body: null })
      .where('idempotency_key', '=', 'k-site-crash')
      .execute();
    server.clock.advance(61_000);
    const taken = await org.live.post('/access-codes', visitor, withKey('k-site-crash'));
    expect(taken.status).toBe(201);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    const replay = await siteKey.post('/access-codes', visitor, withKey('k-site-crash'));
    expect(replay.status).toBe(409);
    expect(replay.body.message).toMatch(/^Idempotency-Key was used by a caller who reaches sites you do not/);
    expect(JSON.stringify(replay.body)).not.toContain(taken.body.access_code.code_id);
  });

  it('an error is not stored: the change is rolled back and a retry runs again', async () => {
    const created = await org.live.post('/incidents', incidentBody());
    const id = created.body.incident.incident_id;
    await org.live.post(`/incidents/${id}/cancel`, {});
    const refused = await org.live.post(`/incidents/${id}/notes`, { message: 'x' }, withKey('k-err'));
    expect(refused.status).toBe(409);
    const again = await org.live.post(`/incidents/${id}/notes`, { message: 'x' }, withKey('k-err'));
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const rows = await server.running.database.db
      .selectFrom('idempotency_requests')
      .select('idempotency_key')
      .where('idempotency_key', '=', 'k-err')
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('the change and the stored answer commit together', async () => {
    const res = await org.live.post('/incidents', incidentBody(), withKey('k-atomic'));
    const row = await server.running.database.db
      .selectFrom('idempotency_requests')
      .selectAll()
      .where('idempotency_key', '=', 'k-atomic')
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('complete');
    expect(row.response_status).toBe(201);
    // Stored sealed (it may hold a secret shown once); the replay opens it.
    expect(row.response_body).toMatch(/^v2\./);
    expect(row.response_body).not.toContain(res.body.incident.incident_id);
    const replay = await org.live.post('/incidents', incidentBody(), withKey('k-atomic'));
    expect(replay.body).toEqual(res.body);
  });

  it('keys are per organization and environment', async () => {
    const other = await server.createOrganization();
    const mine = await org.live.post('/incidents', incidentBody(), withKey('k-shared'));
    const theirs = await other.live.post('/incidents', incidentBody(), withKey('k-shared'));
    const sandbox = await org.sandbox.post('/incidents', incidentBody(), withKey('k-shared'));
    expect(theirs.status).toBe(201);
    expect(sandbox.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(sandbox.headers.get('idempotent-replayed')).toBeNull();
    expect(new Set([mine, theirs, sandbox].map((r) => r.body.incident.incident_id)).size).toBe(3);
  });

  it.each([['x'.repeat(256)], ['has space']])('an invalid key %# answers 400 naming Idempotency-Key', async (key) => {
    const res = await org.live.post('/incidents', incidentBody(), withKey(key));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Idempotency-Key');
  });

  it('a key of 255 characters is accepted', async () => {
    const res = await org.live.post('/incidents', incidentBody(), withKey('k'.repeat(255)));
    expect(res.status).toBe(201);
  });

  it('survives a restart: a second server on the same database replays the answer', async () => {
    const database = server.database;
    const first = await org.live.post('/incidents', incidentBody(), withKey('k-restart'));
    const second = await startTestServer({ database, clock: server.clock });
    try {
      const retry = await second.client(org.keys.live).post('/incidents', incidentBody(), withKey('k-restart'));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
    } finally {
      await second.stop();
    }
  });

  it('a key secret created with an Idempotency-Key is never stored in the clear, yet replays', async () => {
    const first = await org.live.post('/api-keys', { name: 'replayed', scopes: ['incidents:read'] }, withKey('k-secret'));
    const again = await org.live.post('/api-keys', { name: 'replayed', scopes: ['incidents:read'] }, withKey('k-secret'));
    expect(again.body.secret).toBe(first.body.secret);
    const rows = await server.running.database.db.selectFrom('idempotency_requests').select('response_body').execute();
    for (const row of rows) expect(row.response_body ?? '').not.toContain(first.body.secret);
  });
});

/**
 * A validation's Idempotency-Key is claimed, and its answer stored, in the validation's own
 * transaction (which a tenant's validations share on PostgreSQL, issue #45) instead of a
 * transaction the request opens for its key: the same semantics as every other route's.
 */
describe('Idempotency-Key on a validation', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
  const newCode = async (maxUses = 3) =>
    (await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', max_uses: maxUses })).body.access_code as { code: string; code_id: string };
  const useCount = async (codeId: string) => (await org.live.get(`/access-codes/${codeId}`)).body.access_code.use_count as number;
  const recordOf = (key: string) =>
    server.running.database.db.selectFrom('idempotency_requests').select(['state', 'response_status']).where('organization_id', '=', org.organizationId).where('idempotency_key', '=', key).execute();
  const auditEntries = async () =>
    (await server.running.database.db.selectFrom('audit_log').select('action').where('organization_id', '=', org.organizationId).where('action', '=', 'validateAccessCode').execute()).length;

  it('admits once: a retry replays the answer, consumes nothing, and adds no audit entry; the entry was written with the change', async () => {
    const code = await newCode();
    const audited = await auditEntries();
    const first = await org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-once'));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ valid: true, uses_remaining: 2 });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Read at once: written in the validation's transaction, not after the answer.
    expect(await auditEntries()).toBe(audited + 1);
    expect(await recordOf('scan-once')).toEqual([{ state: 'complete', response_status: 200 }]);
    const retry = await org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-once'));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await useCount(code.code_id)).toBe(1);
    expect(await auditEntries()).toBe(audited + 1);
  });

  it('a refusal is an answer: stored, and replayed though the code would be judged otherwise now', async () => {
    const first = await org.live.post('/access-codes/validate', { code: 'ZZZZ' }, withKey('scan-unknown'));
    expect(first.body).toEqual({ valid: false, reason: 'Code not found' });
    const code = await newCode(1);
    await org.live.delete(`/access-codes/${code.code_id}`);
    const revoked = await org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-revoked'));
    expect(revoked.body).toEqual({ valid: false, reason: 'Code has been revoked' });
    expect(await recordOf('scan-revoked')).toEqual([{ state: 'complete', response_status: 200 }]);
    const again = await org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-revoked'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(revoked.body);
  });

  it('held (409, holder inside) keeps no record: a retry once the holder left runs again and admits', async () => {
    const code = await newCode();
    const inside = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'hold' });
    const held = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'hold' }, withKey('scan-held'));
    expect(held.status).toBe(409);
    expect(held.body.open_visit.log_id).toBe(inside.body.log_id);
    expect(await recordOf('scan-held')).toEqual([]);
    expect(await useCount(code.code_id)).toBe(1);
    await org.live.patch(`/access-logs/${inside.body.log_id}/checkout`, {});
    const retried = await org.live.post('/access-codes/validate', { code: code.code, already_inside: 'hold' }, withKey('scan-held'));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ valid: true, uses_remaining: 1 });
  });

  it('another body is a 400, a key in flight a 409, and a claim whose request died is taken over after its lease', async () => {
    const code = await newCode();
    await org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-body'));
    const other = await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'Back gate' }, withKey('scan-body'));
    expect(other.status).toBe(400);
    expect(other.body.message).toContain('Idempotency-Key');

    const fingerprintOf = async (key: string) =>
      (await server.running.database.db.selectFrom('idempotency_requests').select('fingerprint').where('idempotency_key', '=', key).executeTakeFirstOrThrow()).fingerprint;
    // A claim in flight with this request's fingerprint: another host is validating it right now.
    await org.live.post('/access-codes/validate', { code: code.code, validated_by: 'x' }, withKey('scan-probe'));
    await server.running.database.db
      .insertInto('idempotency_requests')
      .values({
        organization_id: org.organizationId,
        environment: 'live',
        idempotency_key: 'scan-flight',
        fingerprint: await fingerprintOf('scan-probe'),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        locked_at: server.clock.now().toISOString(),
        created_at: server.clock.now().toISOString(),
      })
      .execute();
    const uses = await useCount(code.code_id);
    const blocked = await org.live.post('/access-codes/validate', { code: code.code, validated_by: 'x' }, withKey('scan-flight'));
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toContain('still in progress');
    expect(await useCount(code.code_id)).toBe(uses);
    server.clock.advance(61_000);
    const taken = await org.live.post('/access-codes/validate', { code: code.code, validated_by: 'x' }, withKey('scan-flight'));
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(taken.body.valid).toBe(true);
    expect(await recordOf('scan-flight')).toEqual([{ state: 'complete', response_status: 200 }]);
  });

  it('concurrent validations with one key: one admits, the others get 409 or its replay', async () => {
    const code = await newCode(5);
    const answers = await Promise.all(Array.from({ length: 6 }, () => org.live.post('/access-codes/validate', { code: code.code }, withKey('scan-race'))));
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    expect(answers.filter((answer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await useCount(code.code_id)).toBe(1);
  });
});
