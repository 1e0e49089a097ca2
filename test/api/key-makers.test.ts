import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/auth/service.ts';
import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { joinConsole } from '../support/console.ts';
import { serverForSuite } from '../support/server.ts';

/**
 * Issue #32's decided rule: keys store who made them and outlive their maker; keys a developer
 * made with `admin` before the grant rule stay, listed for owners to review, who keep or revoke them.
 */
describe('key makers and the owners\' review', () => {
  const suite = serverForSuite();

  /** A key as a developer could make one before the grant rule (today the server refuses it: 403). */
  const developersAdminKey = async (organizationId: string, developer: { personId: string; email: string }) =>
    createApiKey(suite.server.running.database.db, suite.server.clock, {
      organizationId,
      environment: 'live',
      name: 'made before the grant rule',
      scopes: [...SCOPES],
      maker: { type: 'person', id: developer.personId, label: developer.email, role: 'developer' },
    });

  it('a key names who made it, with their role, and still answers after they are removed', async () => {
    const owner = await joinConsole(suite.server, suite.org.organizationId, 'owner');
    const developer = await joinConsole(suite.server, suite.org.organizationId, 'developer');
    const made = await developer.browser.post('/api-keys', { name: 'gate kiosk', scopes: ['access_codes:validate', 'logs:read'] });
    expect(made.status).toBe(201);
    expect(made.body.api_key.created_by).toEqual({ type: 'person', id: developer.personId, name: developer.email, role: 'developer' });
    expect(made.body.api_key.needs_review).toBe(false);
    expect((await developer.browser.post('/api-keys', { name: 'too far', scopes: ['admin'] })).status).toBe(403);

    expect((await owner.browser.delete(`/console/people/${developer.personId}`)).status).toBe(200);
    expect((await suite.server.client(made.body.secret).get('/access-logs')).status).toBe(200);
    const listed = await owner.browser.get('/api-keys?status=active');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const key = listed.body.results.find((k: { key_id: string }) => k.key_id === made.body.api_key.key_id);
    expect(key.created_by).toEqual({ type: 'person', id: developer.personId, name: developer.email, role: 'developer' });

    // A key made with a key names that key; the CLI's and the organization's first keys name the operator.
    const byKey = await suite.org.live.post('/api-keys', { name: 'by a key', scopes: ['incidents:read'] });
    expect(byKey.body.api_key.created_by).toMatchObject({ type: 'key', role: null });
    expect(byKey.body.api_key.created_by.id).toMatch(/^key_/);
    const first = (await suite.org.live.get('/api-keys?scopes=' + SCOPES.join(','))).body.results.at(-1);
    expect(first.created_by).toEqual({ type: 'operator', id: null, name: null, role: null });
  });

  it("owners see a developer's admin key from before the rule, keep it once, and it leaves the list", async () => {
    const org = await suite.server.createOrganization({ name: 'Review Estate' });
    const owner = await joinConsole(suite.server, org.organizationId, 'owner');
    const admin = await joinConsole(suite.server, org.organizationId, 'admin');
    const developer = await joinConsole(suite.server, org.organizationId, 'developer');
    const old = await developersAdminKey(org.organizationId, developer);
    const revoked = await developersAdminKey(org.organizationId, developer);
    expect((await owner.browser.delete(`/api-keys/${revoked.api_key.key_id}`)).status).toBe(200);
    const fine = await developer.browser.post('/api-keys', { name: 'backend', scopes: ['incidents:write'] });

    const review = await owner.browser.get('/api-keys/review');
    expect(review.status).toBe(200);
    expect(review.body.results.map((k: { key_id: string }) => k.key_id)).toEqual([old.api_key.key_id]);
    expect(review.body.results[0]).toMatchObject({ needs_review: true, reviewed_at: null, created_by: { id: developer.personId, role: 'developer' } });
    expect((await owner.browser.get('/api-keys')).body.results.find((k: { key_id: string }) => k.key_id === fine.body.api_key.key_id).needs_review).toBe(false);

    // Owners only: not an admin, a developer (the maker), or any key.
    expect((await admin.browser.get('/api-keys/review')).status).toBe(403);
    expect((await developer.browser.post(`/api-keys/${old.api_key.key_id}/keep`, {})).status).toBe(403);
    expect((await org.live.get('/api-keys/review')).status).toBe(401);
    // Another organization's key is not there to keep.
    const stranger = await joinConsole(suite.server, suite.org.organizationId, 'owner');
    expect((await stranger.browser.post(`/api-keys/${old.api_key.key_id}/keep`, {})).status).toBe(404);
    expect((await owner.browser.post(`/api-keys/${fine.body.api_key.key_id}/keep`, {})).status).toBe(409);

    const kept = await owner.browser.post(`/api-keys/${old.api_key.key_id}/keep`, {});
    expect(kept.status).toBe(200);
    expect(kept.body.api_key).toMatchObject({ needs_review: false, scopes: [...SCOPES] });
    expect(kept.body.api_key.reviewed_at).toEqual(expect.any(String));
    expect((await owner.browser.post(`/api-keys/${old.api_key.key_id}/keep`, {})).status).toBe(409);
    expect((await owner.browser.get('/api-keys/review')).body.results).toEqual([]);
    const audit = await owner.browser.get('/audit-log?action=keepReviewedApiKey');
    expect(audit.body.results[0]).toMatchObject({ actor: { type: 'person', id: owner.personId }, resource_id: old.api_key.key_id });
  });
});
