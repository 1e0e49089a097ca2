import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { createEndpoint, waitFor } from '../support/webhook-durability.ts';

// A write request that queued webhook deliveries wakes the worker once it has answered (after
// its commit), so they go out at once; one that queued none (nobody subscribes) costs the
// worker no pass - under load that was a statement per write for nothing. The poll here is an
// hour, so only a wake can send anything during the test.
describe('the webhook worker is woken by the writes that queued deliveries', () => {
  let server: TestServer;
  let org: TestOrganization;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ webhookPollMs: 3_600_000 });
    org = await server.createOrganization();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/tsaro`;
  });
  afterAll(async () => {
    await server.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const passes = () => server.running.webhookPasses();
  const report = async () => {
    const created = await org.sandbox.post('/incidents', incidentBody());
    expect(created.status).toBe(201);
    return created.body.incident.incident_id as string;
  };

  it('writes that queue nothing run no pass; a write that queues a delivery has it sent at once', async () => {
    await waitFor('the pass made at start', () => passes() >= 1);
    const before = passes();
    for (let i = 0; i < 3; i++) await report();
    // A wake follows the answer: give any that was wrongly made the time to show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(passes()).toBe(before);

    await createEndpoint(org.sandbox, receiverUrl);
    const incidentId = await report();
    await waitFor('the delivery, sent by a wake', () => received.some((body) => body.includes(incidentId)), 5_000);
    expect(passes()).toBeGreaterThan(before);
  });
});
