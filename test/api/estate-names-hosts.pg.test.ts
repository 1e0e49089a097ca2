import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresKeyCache } from '../../server/auth/key-cache.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/webhook-durability.ts';

/**
 * Names people choose (issue #48) on two hosts over one PostgreSQL database: the default site and
 * the code prefix used to be kept per process as things that never change; now they do, and the
 * other host follows.
 */
describe('names people choose, on two hosts', () => {
  let database: TestDatabase;
  let hosts: [TestServer, TestServer];
  const cacheOf = (host: TestServer) => host.running.keyCache as PostgresKeyCache;
  const visitor = { visitor_name: 'Chidi Okafor', visitor_phone: '+2348031234567' };

  beforeAll(async () => {
    database = await createMigratedDatabase();
    const clock = new ManualClock();
    hosts = [await startTestServer({ database, clock }), await startTestServer({ database, clock })];
    await Promise.all(hosts.map((host) => cacheOf(host).ready));
  });
  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await database.drop();
  });

  it('a default site moved on one host is where the other host puts what names no site', async () => {
    const org = await hosts[0].createOrganization({ name: 'Lekki Shield' });
    const onB = hosts[1].client(org.keys.live);
    const first = (await onB.post('/access-codes', visitor)).body.access_code.site_id;
    const phase2 = (await org.live.post('/sites', { name: 'Phase 2' })).body.site.site_id;
    expect((await org.live.patch(`/sites/${phase2}`, { is_default: true })).status).toBe(200);
    // No notice is awaited: the other host reads the default as it is.
    const next = (await onB.post('/access-codes', visitor)).body.access_code.site_id;
    expect([first, next]).toEqual([expect.not.stringMatching(phase2), phase2]);
    expect((await onB.post('/access-logs', visitor)).body.access_log.site_id).toBe(phase2);
  });

  it('a code prefix changed on one host starts the next code on the other once its key cache has heard of it', async () => {
    const org = await hosts[0].createOrganization({ name: 'Ikoyi Guards' });
    const onB = hosts[1].client(org.keys.live);
    expect((await onB.post('/access-codes', visitor)).body.access_code.code).toMatch(/^IKOY-/);
    const before = cacheOf(hosts[1]).notifications;
    expect((await org.live.patch('/organization', { code_prefix: 'IKG' })).status).toBe(200);
    await waitFor('the NOTIFY on the other host', () => cacheOf(hosts[1]).notifications > before, 5_000);
    expect((await onB.post('/access-codes', visitor)).body.access_code.code).toMatch(/^IKG-/);
    expect((await onB.get('/organization')).body.organization.code_prefix).toBe('IKG');
  });
});
