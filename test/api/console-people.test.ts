import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, joinConsole, PASSWORD, totpCode, type JoinedPerson } from '../support/console.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #27: people in the console. Joining by invitation (password, then TOTP for owners and
 * admins), sessions and their cookie, the role permission map over the partner API, CSRF and
 * Origin for every cookie-authenticated change, and the audit log.
 */
let server: TestServer;
let org: TestOrganization;
let owner: JoinedPerson;
beforeAll(async () => {
  server = await startTestServer();
  org = await server.createOrganization({ name: 'Console Estate' });
  owner = await joinConsole(server, org.organizationId, 'owner');
});
afterAll(() => server.stop());

describe('joining and signing in', () => {
  it('an invitation link works once: password, second factor enrolled, ten recovery codes, then the console', async () => {
    expect(owner.totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(owner.recoveryCodes).toHaveLength(10);
    const session = await owner.browser.get('/console/session');
    expect(session.status).toBe(200);
    expect(session.body.session).toMatchObject({ stage: 'active', person: { role: 'owner', totp_enabled: true, email: owner.email } });
  });

  it('the session cookie is HttpOnly and SameSite=Lax, set anew at sign-in; Secure only behind https', async () => {
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    const signedIn = await browser.post('/console/sign-in', { email: owner.email, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.session.stage).toBe('totp');
    const [cookie] = browser.setCookie;
    expect(cookie).toMatch(/^tsaro_console=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(browser.cookie).not.toBe(owner.browser.cookie);
    // Not signed in until the code: the partner API refuses the half-done session.
    expect((await browser.get('/api-keys')).status).toBe(401);
    server.clock.advance(30_000);
    const done = await browser.post('/console/sign-in/totp', { code: await totpCode(server, owner.totpSecret!) });
    expect(done.status).toBe(200);
    expect(done.body.session.stage).toBe('active');
    // The token changed when the session went active: the cookie from before the code opens nothing.
    expect(browser.setCookie[0]).not.toContain(cookie!.split(';')[0]);
    expect((await browser.get('/api-keys')).status).toBe(200);
  });

  it('a code is accepted once; a recovery code once', async () => {
    const first = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    const second = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    await first.post('/console/sign-in', { email: owner.email, password: PASSWORD });
    await second.post('/console/sign-in', { email: owner.email, password: PASSWORD });
    server.clock.advance(30_000);
    const code = await totpCode(server, owner.totpSecret!);
    expect((await first.post('/console/sign-in/totp', { code })).status).toBe(200);
    expect((await second.post('/console/sign-in/totp', { code })).status).toBe(401);
    expect((await second.post('/console/sign-in/totp', { recovery_code: owner.recoveryCodes[0] })).status).toBe(200);
    const third = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    await third.post('/console/sign-in', { email: owner.email, password: PASSWORD });
    expect((await third.post('/console/sign-in/totp', { recovery_code: owner.recoveryCodes[0] })).status).toBe(401);
  });

  it('a used link is a 404; a short or common password is a 400 naming the field', async () => {
    const { inviteOrReset } = await import('../../server/people/service.ts');
    const { invite_url } = await inviteOrReset({ db: server.running.database.db, clock: server.clock, publicUrl: 'http://x' }, { organizationId: org.organizationId, email: 'late@estate.example', role: 'viewer' });
    const token = invite_url.split('/').pop()!;
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    expect((await browser.post(`/console/invitations/${token}/accept`, { password: 'short' })).body.message).toMatch(/password/);
    expect((await browser.post(`/console/invitations/${token}/accept`, { password: 'password1234' })).body.message).toMatch(/password: .*common/);
    expect((await browser.post(`/console/invitations/${token}/accept`, { password: PASSWORD })).status).toBe(201);
    expect((await browser.get(`/console/invitations/${token}`)).status).toBe(404);
    expect((await new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin).post(`/console/invitations/${token}/accept`, { password: PASSWORD })).status).toBe(404);
  });

  // Each failure is slowed (200 ms more each, up to 2 s): ten of them take about 11 s.
  it('failed sign-ins are limited per account: the eleventh within 15 minutes is a 429 with Retry-After', { timeout: 90_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    for (let i = 0; i < 10; i++) expect((await browser.post('/console/sign-in', { email: person.email, password: 'wrong-password-123' })).status).toBe(401);
    const limited = await browser.post('/console/sign-in', { email: person.email, password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the console calls the partner API with the session', () => {
  it('a key made in the console works against the API and holds only its scopes', async () => {
    const made = await owner.browser.post('/api-keys', { name: 'Gate 3 kiosk', scopes: ['access_codes:validate'] });
    expect(made.status).toBe(201);
    const key = server.client(made.body.secret);
    expect((await key.post('/access-codes/validate', { code: 'CONS-ZZZZ' })).status).toBe(200);
    expect((await key.get('/incidents')).status).toBe(403);
    // Sandbox through the switch: a sandbox key.
    owner.browser.environment = 'sandbox';
    const sandbox = await owner.browser.post('/api-keys', { name: 'Sandbox tools', scopes: ['incidents:read'] });
    owner.browser.environment = 'live';
    expect(sandbox.body.secret).toMatch(/^svc_test_/);
  });

  it('revoking from the console: the next request with that key is a 401', async () => {
    const made = await owner.browser.post('/api-keys', { name: 'Short lived', scopes: ['incidents:read'] });
    const key = server.client(made.body.secret);
    expect((await key.get('/incidents')).status).toBe(200);
    expect((await owner.browser.delete(`/api-keys/${made.body.api_key.key_id}`)).status).toBe(200);
    expect((await key.get('/incidents')).status).toBe(401);
  });

  it('a viewer reads keys, endpoints and events but makes no key and changes nothing', async () => {
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    expect(viewer.totpSecret).toBeUndefined();
    expect((await viewer.browser.get('/api-keys')).status).toBe(200);
    expect((await viewer.browser.get('/webhook-endpoints')).status).toBe(200);
    expect((await viewer.browser.get('/events')).status).toBe(200);
    const refused = await viewer.browser.post('/api-keys', { name: 'Nope', scopes: ['incidents:read'] });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/viewer/);
    expect((await viewer.browser.post('/incidents', { category: 'medical', severity: 'low', subject: { name: 'A' }, location: { coordinates: [3.37, 6.52] } })).status).toBe(403);
  });

  it('a developer makes keys and endpoints but does not change visitor policies or people', async () => {
    const developer = await joinConsole(server, org.organizationId, 'developer');
    expect((await developer.browser.post('/api-keys', { name: 'Kiosk', scopes: ['access_codes:validate', 'incidents:write'] })).status).toBe(201);
    expect((await developer.browser.patch('/visitor-policies', { retention_days: 30 })).status).toBe(403);
    expect((await developer.browser.get('/console/people')).status).toBe(403);
  });

  it('a change replayed from another origin, or without its CSRF token, is refused; a bearer key needs neither', async () => {
    const body = { name: 'Forged', scopes: ['incidents:read'] };
    const foreign = await owner.browser.post('/api-keys', body, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toMatch(/Origin/);
    const noToken = await owner.browser.post('/api-keys', body, { csrf: null });
    expect(noToken.status).toBe(403);
    expect(noToken.body.message).toMatch(/CSRF/);
    expect((await owner.browser.post('/api-keys', body, { csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await owner.browser.post('/console/people/per_x/reset', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await org.live.post('/api-keys', body)).status).toBe(201);
  });

  it('an owner signs someone out everywhere; an admin may not', async () => {
    const operator = await joinConsole(server, org.organizationId, 'operator');
    const admin = await joinConsole(server, org.organizationId, 'admin');
    expect((await admin.browser.post(`/console/people/${operator.personId}/sign-out`)).status).toBe(403);
    expect((await operator.browser.get('/incidents')).status).toBe(200);
    const ended = await owner.browser.post(`/console/people/${operator.personId}/sign-out`);
    expect(ended.body).toEqual({ ended: 1 });
    expect((await operator.browser.get('/incidents')).status).toBe(401);
  });

  it('a removed person is refused at once', async () => {
    const operator = await joinConsole(server, org.organizationId, 'operator');
    expect((await operator.browser.get('/incidents')).status).toBe(200);
    expect((await owner.browser.delete(`/console/people/${operator.personId}`)).status).toBe(200);
    expect((await operator.browser.get('/incidents')).status).toBe(401);
    expect((await operator.browser.get('/console/session')).status).toBe(401);
  });

  it('the audit log names the person and the key behind each change, and where they were', async () => {
    // With an Idempotency-Key the entry commits with the change (without one, a key's change is recorded just after its answer).
    const viaKey = await org.live.post('/api-keys', { name: 'Made by key', scopes: ['logs:read'] }, { headers: { 'Idempotency-Key': 'audit-by-key-1' } });
    const viaPerson = await owner.browser.post('/api-keys', { name: 'Made by person', scopes: ['logs:read'] });
    const log = await owner.browser.get('/audit-log?action=createApiKey&limit=100');
    expect(log.status).toBe(200);
    const byKey = log.body.results.find((e: { resource_id: string }) => e.resource_id === viaKey.body.api_key.key_id);
    const byPerson = log.body.results.find((e: { resource_id: string }) => e.resource_id === viaPerson.body.api_key.key_id);
    expect(byKey).toMatchObject({ actor: { type: 'key' }, action: 'createApiKey', environment: 'live', ip: expect.stringMatching(/127\.0\.0\.1/) });
    expect(byPerson).toMatchObject({ actor: { type: 'person', id: owner.personId, label: owner.email }, action: 'createApiKey' });
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    expect((await viewer.browser.get('/audit-log')).status).toBe(403);
  });
});
