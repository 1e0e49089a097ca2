import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresKeyCache } from '../../server/auth/key-cache.ts';
import { hashSecret } from '../../server/auth/secrets.ts';
import { ManualClock } from '../support/clock.ts';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/webhook-durability.ts';

const run = promisify(execFile);
const BIN = new URL('../../bin/tsaro.js', import.meta.url).pathname;

/**
 * Three hosts on one PostgreSQL database, each with its own API-key cache kept honest by
 * LISTEN tsaro_auth. PostgreSQL delivers a NOTIFY a moment after the commit that sent it, so
 * for a change made elsewhere the test waits for each host to have received it (bounded, 5 s);
 * a revoke through a host's own API needs no wait at all.
 */
describe('API-key cache with several hosts on one PostgreSQL database', () => {
  let database: TestDatabase;
  let hosts: TestServer[];
  const cacheOf = (host: TestServer) => host.running.keyCache as PostgresKeyCache;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    const clock = new ManualClock();
    hosts = [];
    for (let i = 0; i < 3; i++) hosts.push(await startTestServer({ database, clock }));
    await Promise.all(hosts.map((host) => cacheOf(host).ready));
  });
  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await database.drop();
  });

  const everyHost = async (key: string) => Promise.all(hosts.map(async (host) => (await host.client(key).get('/incidents')).status));
  const arrived = async (before: number[]) =>
    waitFor('the NOTIFY on every host', () => hosts.every((host, i) => cacheOf(host).notifications > before[i]!), 5_000);
  const counts = () => hosts.map((host) => cacheOf(host).notifications);

  it('a key revoked through one host is refused by that host at once and by every host once the NOTIFY is in', async () => {
    const org = await hosts[0]!.createOrganization();
    const victim = await org.keyWith(['incidents:read']);
    expect(await everyHost(victim.key!)).toEqual([200, 200, 200]);
    expect(await everyHost(victim.key!)).toEqual([200, 200, 200]); // cached on each host
    const keyId = (await hosts[0]!.running.database.db.selectFrom('api_keys').select('key_id').where('secret_hash', '=', hashSecret(victim.key!)).executeTakeFirstOrThrow()).key_id;
    const before = counts();
    expect((await org.live.delete(`/api-keys/${keyId}`)).status).toBe(200);
    expect((await hosts[0]!.client(victim.key!).get('/incidents')).status).toBe(401);
    await arrived(before);
    expect(await everyHost(victim.key!)).toEqual([401, 401, 401]);
  });

  it('an organization suspended by `tsaro org update --suspend` in another process gets 402 on every host', async () => {
    const org = await hosts[0]!.createOrganization();
    expect(await everyHost(org.keys.live)).toEqual([200, 200, 200]);
    const before = counts();
    await run(process.execPath, [BIN, 'org', 'update', org.organizationId, '--suspend', '--json'], { env: { ...process.env, DATABASE_URL: database.url } });
    await arrived(before);
    expect(await everyHost(org.keys.live)).toEqual([402, 402, 402]);
  });

  it('while the listener is down the cache is not trusted, and it comes back empty', async () => {
    const org = await hosts[0]!.createOrganization();
    const victim = await org.keyWith(['incidents:read']);
    expect(await everyHost(victim.key!)).toEqual([200, 200, 200]);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'tsaro-key-cache'`,
      );
      // Each host reconnects 100 ms after it notices, so under load they need not all be down at
      // the same moment: each must have been seen not trusting its cache.
      const noticed = new Set<number>();
      await waitFor('every listener to notice', () => {
        hosts.forEach((host, i) => !cacheOf(host).trusted && noticed.add(i));
        return noticed.size === hosts.length;
      }, 5_000);
      // Revoked while nobody listens: this NOTIFY reaches no host.
      await admin.query('update api_keys set revoked_at = $1 where secret_hash = $2', [new Date().toISOString(), hashSecret(victim.key!)]);
      expect(await everyHost(victim.key!)).toEqual([401, 401, 401]);
      await waitFor('every listener to be back', () => hosts.every((host) => cacheOf(host).trusted), 10_000);
      expect(await everyHost(victim.key!)).toEqual([401, 401, 401]);
      expect(await everyHost(org.keys.live)).toEqual([200, 200, 200]);
    } finally {
      await admin.end();
    }
  });
});
