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
