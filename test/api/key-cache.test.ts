import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresKeyCache, createSqliteKeyCache, type KeyCache, type PostgresKeyCache } from '../../server/auth/key-cache.ts';
import { hashSecret } from '../../server/auth/secrets.ts';
import { findKeyBySecretHash } from '../../server/auth/store.ts';
import { changeOrganization } from '../../server/organizations/service.ts';
import { pino } from 'pino';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/webhook-durability.ts';

const run = promisify(execFile);
const BIN = new URL('../../bin/tsaro.js', import.meta.url).pathname;

/**
 * A revoke through the API, or any change on SQLite, applies to the very next request. On
 * PostgreSQL a change from another process applies once its NOTIFY has arrived.
 */
describe('API-key cache: never serves a key after a change that refuses it', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  const tsaro = (...args: string[]) => run(process.execPath, [BIN, ...args, '--json'], { env: { ...process.env, DATABASE_URL: server.database.url } });
  const db = () => server.running.database.db;
  /** A cache over the server's database, with a count of the lookups it could not answer itself. */
  async function countingCache(): Promise<{ cache: KeyCache; lookup(secret: string): Promise<unknown>; loads: () => number }> {
    const cache =
      server.running.database.engine === 'postgres'
        ? createPostgresKeyCache({ url: server.database.url, logger: pino({ level: 'silent' }) })
        : createSqliteKeyCache(db());
    if ('ready' in cache) await (cache as { ready: Promise<void> }).ready;
    let loads = 0;
    return {
      cache,
      loads: () => loads,
      lookup: (secret) => {
        const hash = hashSecret(secret);
        return cache.lookup(hash, () => {
          loads++;
          return findKeyBySecretHash(db(), hash);
        });
      },
    };
  }

  it('a known key is answered from the cache; last_used_at updates do not empty it; a revoke does', async () => {
    const key = await org.keyWith(['incidents:read']);
    const { cache, lookup, loads } = await countingCache();
    try {
      await lookup(key.key!);
      await lookup(key.key!);
      expect(loads()).toBe(1);
      const keyId = (await db().selectFrom('api_keys').select('key_id').where('secret_hash', '=', hashSecret(key.key!)).executeTakeFirstOrThrow()).key_id;
      await db().updateTable('api_keys').set({ last_used_at: new Date().toISOString() }).where('key_id', '=', keyId).execute();
      await new Promise((resolve) => setTimeout(resolve, 50)); // a NOTIFY, had there been one, would have arrived
      await lookup(key.key!);
      expect(loads()).toBe(1);
      const notified = (cache as Partial<PostgresKeyCache>).notifications ?? 0;
      await db().updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('key_id', '=', keyId).execute();
      if (server.running.database.engine === 'postgres') await waitFor('the NOTIFY', () => (cache as PostgresKeyCache).notifications > notified, 5_000);
      const after = (await lookup(key.key!)) as { key: { revoked_at: string | null } };
      expect(loads()).toBe(2);
      expect(after.key.revoked_at).not.toBeNull();
    } finally {
      await cache.close();
    }
  });

  it('a key revoked through the API is refused on the very next request', async () => {
    const victim = await org.keyWith(['incidents:read']);
    expect((await victim.get('/incidents')).status).toBe(200);
    expect((await victim.get('/incidents')).status).toBe(200); // now cached
    const keyId = (await org.live.get('/api-keys')).body.results.find((k: { revoked_at: string | null; scopes: string[] }) => !k.revoked_at && k.scopes.length === 1).key_id;
    expect((await org.live.delete(`/api-keys/${keyId}`)).status).toBe(200);
    const refused = await victim.get('/incidents');
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('API key has been revoked');
  });

  it('a key revoked by `tsaro key revoke` in another process is refused on the very next request', { timeout: 90_000 }, async () => {
    const victim = await org.keyWith(['incidents:read']);
    expect((await victim.get('/incidents')).status).toBe(200);
    const keyId = (await db().selectFrom('api_keys').select('key_id').where('secret_hash', '=', hashSecret(victim.key!)).executeTakeFirstOrThrow()).key_id;
    await server.changedElsewhere(() => tsaro('key', 'revoke', keyId));
    expect((await victim.get('/incidents')).status).toBe(401);
  });

  it('a suspension or a plan change by the CLI applies to the very next request, and resuming restores it', { timeout: 90_000 }, async () => {
    const other = await server.createOrganization();
    expect((await other.live.get('/incidents')).status).toBe(200);
    await server.changedElsewhere(() => tsaro('org', 'update', other.organizationId, '--suspend'));
    expect((await other.live.get('/incidents')).status).toBe(402);
    await server.changedElsewhere(() => tsaro('org', 'update', other.organizationId, '--resume'));
    expect((await other.live.get('/incidents')).status).toBe(200);
    await server.changedElsewhere(() => changeOrganization(db(), server.clock, other.organizationId, { plan: 'none' }));
    expect((await other.live.get('/incidents')).status).toBe(402);
  });

  it('a scope taken away in the database is refused on the very next request', async () => {
    const narrowed = await org.keyWith(['incidents:read', 'access_codes:read']);
    expect((await narrowed.get('/incidents')).status).toBe(200);
    await server.changedElsewhere(() =>
      db()
        .updateTable('api_keys')
        .set({ scopes: JSON.stringify(['access_codes:read']) })
        .where('secret_hash', '=', hashSecret(narrowed.key!))
        .execute(),
    );
    const refused = await narrowed.get('/incidents');
    expect(refused.status).toBe(403);
  });
});
