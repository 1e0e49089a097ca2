import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/auth/service.ts';
import { joinConsole } from '../support/console.ts';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { expectErrorBody, serverForSuite, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #32, finding 6: event streams have ceilings (STREAM_MAX_PER_KEY per key or person,
 * STREAM_MAX_PER_HOST per host; one more is a 429 with Retry-After in the error shape), and a
 * revoked key's or a removed person's streams close within 2 s. The heartbeat stays at its
 * production 15 s here, so the close is the recheck's, not the heartbeat's.
 */
describe('event stream ceilings and prompt closes', () => {
  let server: TestServer;
  let org: TestOrganization;
  const streams: OpenStream[] = [];
  beforeAll(async () => {
    server = await startTestServer({ config: { STREAM_MAX_PER_KEY: '3', STREAM_MAX_PER_HOST: '5' } });
    org = await server.createOrganization();
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });
  afterAll(() => server.stop());

  const open = async (headers: Record<string, string>) => {
    const s = await openStream(`${server.baseUrl}/events/stream`, headers);
    streams.push(s);
    return s;
  };
  const keyWithReads = async () => (await createApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live', name: 'reader', scopes: ['incidents:read'], maker: { type: 'operator' } })).secret;

  it('one stream more than STREAM_MAX_PER_KEY for a key is a 429 with Retry-After; closing one lets the next in', async () => {
    const key = await keyWithReads();
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 3; i++) expect((await open(auth)).status).toBe(200);
    const refused = await open(auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectErrorBody(refused.body, 429, expect.stringContaining('Too many open event streams for this caller (3 on this host)'));
    streams[0]!.close();
    await vi.waitFor(async () => expect((await open(auth)).status).toBe(200), { timeout: 3000, interval: 100 });
  });

  it('one stream more than STREAM_MAX_PER_HOST, from any caller, is a 429; another key is not held by the first key\'s ceiling', async () => {
    // The previous test's streams are closed by their clients; the server may take a moment to hear it.
    for (let i = 0; i < 5; i++) {
      const key = await keyWithReads();
      await vi.waitFor(async () => expect((await open({ authorization: `Bearer ${key}` })).status, `stream ${i}`).toBe(200), { timeout: 3000, interval: 100 });
    }
    const refused = await open({ authorization: `Bearer ${await keyWithReads()}` });
    expect(refused.status).toBe(429);
    expectErrorBody(refused.body, 429, expect.stringContaining('This host holds its most event streams (5)'));
  });

  it("a revoked key's stream closes within 2 s, long before the 15 s heartbeat", async () => {
    const created = await createApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live', name: 'soon revoked', scopes: ['incidents:read'], maker: { type: 'operator' } });
    const s = await open({ authorization: `Bearer ${created.secret}` });
    expect(s.status).toBe(200);
    await server.changedElsewhere(() => revokeApiKey(server.running.database.db, server.clock, { organizationId: org.organizationId, environment: 'live' }, created.api_key.key_id));
    const revokedAt = performance.now();
    await s.ended;
    expect(performance.now() - revokedAt).toBeLessThan(2000);
    expect(s.comments.some((comment) => comment.startsWith('closing:'))).toBe(true);
  });

  it("a removed person's stream closes within 2 s", async () => {
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    const owner = await joinConsole(server, org.organizationId, 'owner');
    const s = await open({ cookie: viewer.browser.cookie!, 'tsaro-environment': 'live' });
    expect(s.status).toBe(200);
    expect((await owner.browser.delete(`/console/people/${viewer.personId}`)).status).toBe(200);
    const removedAt = performance.now();
    await s.ended;
    expect(performance.now() - removedAt).toBeLessThan(2000);
  });
});

describe('Last-Event-ID is never echoed beyond an event id', () => {
  const suite = serverForSuite();

  it('a long or marked-up header is a 400 that does not repeat it', async () => {
    for (const value of ['x'.repeat(5000), 'evt_<script>alert(1)</script>', 'evt_nonesuch']) {
      const s = await openStream(`${suite.server.baseUrl}/events/stream`, { authorization: `Bearer ${suite.org.keys.live}`, 'last-event-id': value });
      expect(s.status).toBe(400);
      expectErrorBody(s.body, 400, expect.stringContaining('Last-Event-ID'));
      expect(JSON.stringify(s.body)).not.toContain(value);
      expect(JSON.stringify(s.body).length).toBeLessThan(400);
    }
  });
});
