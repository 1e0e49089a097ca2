import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { signedBy, TEST_SECRETS_KEY } from '../support/secrets.ts';
import { startTestServer, type ApiClient, type TestServer } from '../support/server.ts';

/**
 * Issue #25: the sealing key rotated on two hosts sharing one PostgreSQL database while partners
 * keep working. The operator's steps (docs/security.md): every host learns the new key while still
 * sealing with the old; every host seals with the new and still opens the old; `tsaro secrets
 * rotate` re-seals everything; the old key is dropped. Hosts restart one at a time, as behind a
 * balancer, and the load goes to whichever is up. No request fails; every secret works after.
 */
const run = promisify(execFile);
const BIN = new URL('../../bin/tsaro.js', import.meta.url).pathname;
const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const visitor = { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Delivery', max_uses: 5 };

let database: TestDatabase;
const hosts: (TestServer | undefined)[] = [undefined, undefined];
afterAll(async () => {
  for (const host of hosts) await host?.stop();
  await database?.drop();
});

describe('rotating the sealing key under load on two hosts', () => {
  it('no request fails, and every webhook secret, pass and stored answer works after it', { timeout: 180_000 }, async () => {
    const received: { headers: IncomingHttpHeaders; raw: Buffer }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    database = await createTestDatabase('postgres');
    const oldKey = TEST_SECRETS_KEY;
    const newKey = randomBytes(32).toString('hex');
    const start = (config: Record<string, string>) => startTestServer({ database, deliverWebhooks: false, config: { SECRETS_KEY: '', ...config } });
    hosts[0] = await start({ SECRETS_KEY: oldKey });
    hosts[1] = await start({ SECRETS_KEY: oldKey });
    const org = await hosts[0].createOrganization({ name: 'Rotation Estate' });
    // As a balancer does: a host is taken out of rotation, drained of what it was sent, then stopped.
    const up = new Set([0, 1]);
    const inFlight = [0, 0];
    const clientOn = (env: 'live' | 'sandbox'): ApiClient => {
      const index = [...up][Math.floor(Math.random() * up.size)]!;
      const client = hosts[index]!.client(env === 'live' ? org.keys.live : org.keys.sandbox);
      return new Proxy(client, {
        get(target, name, receiver) {
          if (name !== 'post') return Reflect.get(target, name, receiver);
          return async (...args: Parameters<ApiClient['post']>) => {
            inFlight[index]!++;
            try {
              return await target.post(...args);
            } finally {
              inFlight[index]!--;
            }
          };
        },
      });
    };

    // What partners were given, to check afterwards.
    const endpoints = new Map<string, string>();
    const passes: string[] = [];
    const answers: { key: string; body: unknown; path: string; sent: unknown }[] = [];
    const failures: string[] = [];
    let n = 0;
    const step = async () => {
      const i = n++;
      const kind = i % 4;
      if (kind === 0) {
        const res = await clientOn('live').post('/access-codes', visitor, idem(`code-${i}`));
        if (res.status !== 201) return void failures.push(`create code ${res.status} ${JSON.stringify(res.body)}`);
        passes.push(res.body.access_code.qr_payload);
        answers.push({ key: `code-${i}`, body: res.body, path: '/access-codes', sent: visitor });
      } else if (kind === 1) {
        const body = { url: hookUrl, events: ['incident.*'] };
        const res = await clientOn('sandbox').post('/webhook-endpoints', body, idem(`endpoint-${i}`));
        if (res.status !== 201) return void failures.push(`create endpoint ${res.status} ${JSON.stringify(res.body)}`);
        endpoints.set(res.body.webhook_endpoint.endpoint_id, res.body.secret);
      } else if (kind === 2 && endpoints.size > 0) {
        const ids = [...endpoints.keys()];
        const id = ids[i % ids.length]!;
        const res = await clientOn('sandbox').post(`/webhook-endpoints/${id}/rotate-secret`, { expires_in_hours: 0 });
        if (res.status !== 200) return void failures.push(`rotate ${res.status} ${JSON.stringify(res.body)}`);
        endpoints.set(id, res.body.secret);
      } else if (passes.length > 0) {
        const res = await clientOn('live').post('/access-codes/validate', { code: passes[i % passes.length] });
        if (res.status !== 200 || res.body.valid !== true) failures.push(`validate ${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    let loading = true;
    const load = (async () => {
      while (loading) {
        await step().catch((err: unknown) => failures.push(`request failed: ${String(err)}`));
      }
    })();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const restart = async (index: number, config: Record<string, string>) => {
      up.delete(index);
      while (inFlight[index]! > 0) await sleep(5);
      await hosts[index]!.stop();
      hosts[index] = await start(config);
      up.add(index);
      // Some load on the new host set before the next change (bounded: a stuck load fails below, not here).
      const until = n + 12;
      const deadline = Date.now() + 20_000;
      while (n < until && Date.now() < deadline) await sleep(20);
    };

    // 1. Every host learns the new key, still sealing with the old.
    for (const index of [0, 1]) await restart(index, { SECRETS_KEY: oldKey, SECRETS_KEY_PREVIOUS: newKey });
    // 2. Every host seals with the new key, still opening the old.
    for (const index of [0, 1]) await restart(index, { SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldKey });
    // 3. Everything re-sealed, under load.
    const { stdout } = await run(process.execPath, [BIN, 'secrets', 'rotate', '--json'], {
      env: { ...process.env, DATABASE_URL: database.url, SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldKey },
    });
    const report = JSON.parse(stdout);
    expect(report.resealed).toBeGreaterThan(0);
    expect(report.remaining).toBe(0);
    // 4. The old key dropped.
    for (const index of [0, 1]) await restart(index, { SECRETS_KEY: newKey });
    loading = false;
    await load;

    expect(failures).toEqual([]);
    expect(n).toBeGreaterThan(60);
    expect(endpoints.size).toBeGreaterThan(3);

    // Every webhook secret signs: one incident reaches every endpoint, signed with the secret last shown.
    const sandbox = hosts[0]!.client(org.keys.sandbox);
    expect((await sandbox.post('/incidents', { category: 'sos', severity: 'critical', subject: { name: 'Ada Obi' }, location: { coordinates: [3.3792, 6.5244] } })).status).toBe(201);
    while ((await hosts[0]!.running.deliverWebhooks()) > 0);
    const secrets = [...endpoints.values()];
    expect(received.length).toBe(endpoints.size);
    for (const request of received) expect(secrets.filter((secret) => signedBy(secret, request))).toHaveLength(1);
    // Every pass validates on either host; every stored answer replays.
    for (const [index, pass] of passes.entries()) {
      const res = await hosts[index % 2]!.client(org.keys.live).post('/access-codes/validate', { code: pass });
      expect(res.body.valid, pass).toBe(true);
    }
    for (const answer of answers) {
      const res = await hosts[1]!.client(org.keys.live).post(answer.path, answer.sent, idem(answer.key));
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.body).toEqual(answer.body);
    }
    await new Promise((resolve) => receiver.close(resolve));
  });
});
