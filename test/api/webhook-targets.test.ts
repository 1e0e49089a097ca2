import { afterEach, describe, expect, it } from 'vitest';
import { createMigratedDatabase } from '../support/database.ts';
import { startTestServer, type TestServer, expectErrorBody } from '../support/server.ts';
import { Receiver, undoAfterEachTest } from '../support/webhook-durability.ts';
import { parseKey } from '../../server/secrets/key-source.ts';
import { createSecretBox, sealingKey } from '../../server/secrets/secret-box.ts';
import { createWebhookEndpoint } from '../../server/webhooks/service.ts';
import { TEST_SECRETS_KEY } from '../support/secrets.ts';
import { incidentBody } from '../support/server.ts';

/**
 * A sandbox webhook may target loopback or private addresses (this host's Redis, PostgreSQL)
 * only when the operator sets WEBHOOK_ALLOW_PRIVATE=1; checked at registration and again at
 * delivery, so an endpoint registered under a permissive setting gets nothing once it is off.
 */
undoAfterEachTest();
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function started(options: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const server = await startTestServer(options);
  stops.push(() => server.stop());
  return server;
}

describe('webhook targets on loopback and private addresses', () => {
  it.each(['http://127.0.0.1:6379/', 'http://localhost:5432/hooks', 'http://[::1]:8080/hooks', 'http://10.1.2.3/hooks', 'http://192.168.0.10/hooks'])(
    'without WEBHOOK_ALLOW_PRIVATE a sandbox endpoint at %s is a 400 naming url',
    async (url) => {
      const server = await started({ config: { WEBHOOK_ALLOW_PRIVATE: '0' }, deliverWebhooks: false });
      const org = await server.createOrganization();
      const res = await org.sandbox.post('/webhook-endpoints', { url, events: ['*'] });
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, expect.stringMatching(/^url: (loopback|private) address .* not allowed/));
      // Nor can an existing endpoint be pointed there.
      const ok = await org.sandbox.post('/webhook-endpoints', { url: 'http://8.8.8.8/hooks', events: ['*'] });
      expect(ok.status).toBe(201);
      const moved = await org.sandbox.patch(`/webhook-endpoints/${ok.body.webhook_endpoint.endpoint_id}`, { url });
      expect(moved.status).toBe(400);
      expect(moved.body.message).toMatch(/^url: /);
    },
  );

  it('with WEBHOOK_ALLOW_PRIVATE=1 a sandbox endpoint on loopback is accepted and delivered to; a live one never is', async () => {
    const server = await started({ config: { WEBHOOK_ALLOW_PRIVATE: '1' }, deliverWebhooks: false });
    const org = await server.createOrganization();
    const receiver = await Receiver.start();
    const created = await org.sandbox.post('/webhook-endpoints', { url: receiver.url, events: ['incident.created'] });
    expect(created.status).toBe(201);
    expect((await org.sandbox.post('/incidents', incidentBody())).status).toBe(201);
    await server.running.deliverWebhooks();
    expect(receiver.arrivals.map((a) => a.outcome)).toEqual([200]);
    const live = await org.live.post('/webhook-endpoints', { url: receiver.url.replace('http:', 'https:'), events: ['*'] });
    expect(live.status).toBe(400);
    expect(live.body.message).toMatch(/^url: loopback address .* not allowed for live endpoints/);
  });

  it('an endpoint registered while allowed gets nothing once the operator turns it off: the attempt fails naming why', async () => {
    const database = await createMigratedDatabase();
    stops.push(() => database.drop());
    const receiver = await Receiver.start();
    const permissive = await startTestServer({ database, config: { WEBHOOK_ALLOW_PRIVATE: '1' }, deliverWebhooks: false });
    const org = await permissive.createOrganization();
    // By name (the DNS lookup hook refuses it) and by address literal (checked before connecting).
    const byName = await org.sandbox.post('/webhook-endpoints', { url: receiver.url.replace('127.0.0.1', 'localhost'), events: ['incident.created'] });
    const byAddress = await org.sandbox.post('/webhook-endpoints', { url: receiver.url, events: ['incident.created'] });
    expect([byName.status, byAddress.status]).toEqual([201, 201]);
    await permissive.stop();

    const strict = await started({ database, config: { WEBHOOK_ALLOW_PRIVATE: '0' }, deliverWebhooks: false });
    const client = strict.client(org.keys.sandbox);
    expect((await client.post('/incidents', incidentBody())).status).toBe(201);
    expect(await strict.running.deliverWebhooks()).toBe(2);
    expect(receiver.arrivals).toEqual([]);
    for (const endpoint of [byName, byAddress]) {
      const log = await client.get(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}/deliveries`);
      expect(log.body.results).toHaveLength(1);
      expect(log.body.results[0]).toMatchObject({ status: 'failed', response_status: null, error: expect.stringMatching(/loopback address .* not allowed/) });
    }
  });

  it('a live endpoint on loopback written past registration gets nothing, even with WEBHOOK_ALLOW_PRIVATE=1; only the tests\' start option (liveWebhooksToLoopback) delivers to it', async () => {
    const database = await createMigratedDatabase();
    stops.push(() => database.drop());
    const receiver = await Receiver.start();
    const server = await startTestServer({ database, config: { WEBHOOK_ALLOW_PRIVATE: '1' }, deliverWebhooks: false });
    const org = await server.createOrganization();
    const endpoint = await createWebhookEndpoint(
      server.running.database.db,
      { clock: server.clock, secretBox: createSecretBox(sealingKey(parseKey(TEST_SECRETS_KEY, 'TEST_SECRETS_KEY'))), webhookQueue: server.running.webhookQueue },
      { organizationId: org.organizationId, environment: 'live' },
      { url: receiver.url, events: ['incident.created'], site_ids: null },
      new Set(['incidents:read']),
    );
    expect((await org.live.post('/incidents', incidentBody())).status).toBe(201);
    expect(await server.running.deliverWebhooks()).toBe(1);
    expect(receiver.arrivals).toEqual([]);
    const log = await org.live.get(`/webhook-endpoints/${endpoint.webhook_endpoint.endpoint_id}/deliveries`);
    expect(log.body.results[0]).toMatchObject({ status: 'failed', response_status: null, error: expect.stringMatching(/loopback address .* not allowed for live endpoints/) });
    await server.stop();

    const journey = await started({ database, deliverWebhooks: false, liveWebhooksToLoopback: true });
    expect((await journey.client(org.keys.live).post('/incidents', incidentBody())).status).toBe(201);
    await journey.running.deliverWebhooks();
    expect(receiver.arrivals.length).toBeGreaterThanOrEqual(1);
    expect(new Set(receiver.arrivals.map((a) => a.outcome))).toEqual(new Set([200]));
  });
});
