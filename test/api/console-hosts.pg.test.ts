import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, joinConsole, onHost, PASSWORD, type JoinedPerson } from '../support/console.ts';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #27 on two hosts sharing one PostgreSQL database and one Redis, as behind a balancer:
 * what one host does to a person or a key holds on the other at once (or, for a key's cache,
 * within a second), and sign-in limits count failures on both.
 */
const REDIS_URL = process.env.TSARO_TEST_REDIS_URL || '';
let database: TestDatabase;
let a: TestServer;
let b: TestServer;
let org: TestOrganization;
let owner: JoinedPerson;
beforeAll(async () => {
  database = await createMigratedDatabase('postgres');
  a = await startTestServer({ database, config: { REDIS_URL } });
  b = await startTestServer({ database, config: { REDIS_URL } });
  org = await a.createOrganization({ name: 'Two Hosts Estate' });
  owner = await joinConsole(a, org.organizationId, 'owner');
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
});


describe('the console on two hosts', () => {
  it('a session made on one host works on the other', async () => {
    const there = onHost(b, owner);
    expect((await there.get('/console/session')).body.session.person.email).toBe(owner.email);
    expect((await there.post('/api-keys', { name: 'Made on B', scopes: ['logs:read'] })).status).toBe(201);
  });

  it('a key revoked from the console on one host is refused on the other within a second', async () => {
    const made = await owner.browser.post('/api-keys', { name: 'Revoked across hosts', scopes: ['incidents:read'] });
    const onB = b.client(made.body.secret);
    expect((await onB.get('/incidents')).status).toBe(200);
    expect((await owner.browser.delete(`/api-keys/${made.body.api_key.key_id}`)).status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    while (Date.now() - revokedAt < 1000) {
      status = (await onB.get('/incidents')).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(401);
  });

  it('a person removed on one host is refused on the other at once', async () => {
    const developer = await joinConsole(a, org.organizationId, 'developer');
    const there = onHost(b, developer);
    expect((await there.get('/api-keys')).status).toBe(200);
    expect((await owner.browser.delete(`/console/people/${developer.personId}`)).status).toBe(200);
    expect((await there.get('/api-keys')).status).toBe(401);
    expect((await there.get('/console/session')).status).toBe(401);
  });

  it('failed sign-ins are counted across hosts: five on each, and the next is a 429 on either', { timeout: 90_000 }, async () => {
    const viewer = await joinConsole(a, org.organizationId, 'viewer');
    for (let i = 0; i < 10; i++) {
      const host = i % 2 === 0 ? a : b;
      const browser = new ConsoleBrowser(host.baseUrl, new URL(host.baseUrl).origin);
      expect((await browser.post('/console/sign-in', { email: viewer.email, password: 'not-the-password-1' })).status).toBe(401);
    }
    for (const host of [a, b]) {
      const browser = new ConsoleBrowser(host.baseUrl, new URL(host.baseUrl).origin);
      expect((await browser.post('/console/sign-in', { email: viewer.email, password: PASSWORD })).status).toBe(429);
    }
  });
});
