import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

describe('API keys (admin scope)', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('creates a key in the caller environment and shows the secret once', async () => {
    const res = await org.live.post('/api-keys', { name: 'Gate 1 kiosk', scopes: ['access_codes:validate', 'incidents:write'] });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(res.body.api_key).toMatchObject({
      name: 'Gate 1 kiosk',
      scopes: ['access_codes:validate', 'incidents:write'],
      environment: 'live',
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
    });
    expect(res.body.api_key.key_id).toMatch(/^key_/);
    expect(res.body.api_key.secret_hint).toBe(`svc_live_…${res.body.secret.slice(-4)}`);
    const list = await org.live.get('/api-keys?limit=100');
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
  });

  it('the new key works with exactly its scopes', async () => {
    const created = await org.live.post('/api-keys', { name: 'reader', scopes: ['incidents:read'] });
    const reader = server.client(created.body.secret);
    expect((await reader.get('/incidents')).status).toBe(200);
    const write = await reader.post('/incidents', {});
    expect(write.status).toBe(403);
    expect(write.body.message).toContain('incidents:write');
  });

  it('stores only a hash of the secret', async () => {
    const created = await org.live.post('/api-keys', { name: 'hashed', scopes: ['incidents:read'] });
    const row = await server.running.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', created.body.api_key.key_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.body.secret);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a sandbox admin key makes sandbox keys', async () => {
    const res = await org.sandbox.post('/api-keys', { name: 'sandbox', scopes: ['incidents:read'] });
    expect(res.body.secret).toMatch(/^svc_test_/);
    expect(res.body.api_key.environment).toBe('sandbox');
  });

  it('a key cannot grant a scope it does not hold', async () => {
    const admin = await org.keyWith(['admin', 'incidents:read']);
    const res = await admin.post('/api-keys', { name: 'escalate', scopes: ['incidents:write'] });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('incidents:write');
    expect((await admin.post('/api-keys', { name: 'ok', scopes: ['incidents:read'] })).status).toBe(201);
  });

  it.each([
    [{ scopes: ['incidents:read'] }, 'name is required'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['everything'] }, 'scopes[0]'],
    [{ name: 'x' }, 'scopes is required'],
    [{ name: 'x'.repeat(101), scopes: ['admin'] }, 'name'],
  ].map(([body, field]) => ({ body, field })))('an invalid body answers 400 naming $field', async ({ body, field }) => {
    const res = await org.live.post('/api-keys', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('lists keys of this organization and environment only, newest first, with last_used_at', async () => {
    const fresh = await server.createOrganization();
    await fresh.live.post('/api-keys', { name: 'second', scopes: ['incidents:read'] });
    const res = await fresh.live.get('/api-keys');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 2 });
    expect(res.body.results.map((k: { name: string }) => k.name)).toEqual(['second', 'Owner key (live)']);
    expect(res.body.results[1].last_used_at).toBe('2026-11-22T10:00:00.000Z');
  });

  it('revokes a key: 200 with the key, then the key answers 401; again is 409', async () => {
    const created = await org.live.post('/api-keys', { name: 'to revoke', scopes: ['incidents:read'] });
    const id = created.body.api_key.key_id;
    const res = await org.live.delete(`/api-keys/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.api_key.revoked_at).toBe('2026-11-22T10:00:00.000Z');
    const revoked = await server.client(created.body.secret).get('/incidents');
    expect(revoked.status).toBe(401);
    expect(revoked.body.message).toContain('revoked');
    const again = await org.live.delete(`/api-keys/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('API key is already revoked');
  });

  it("another organization's key or the other environment's key is a 404", async () => {
    const other = await server.createOrganization();
    const theirs = await other.live.post('/api-keys', { name: 'theirs', scopes: ['incidents:read'] });
    expect((await org.live.delete(`/api-keys/${theirs.body.api_key.key_id}`)).status).toBe(404);
    const sandboxKey = await org.sandbox.post('/api-keys', { name: 'sb', scopes: ['incidents:read'] });
    expect((await org.live.delete(`/api-keys/${sandboxKey.body.api_key.key_id}`)).status).toBe(404);
  });
});
