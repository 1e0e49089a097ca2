import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { expectErrorShape, sendRawTo } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Production waits 20 s for headers and 30 s for a whole request (shared/http-timeouts.ts); the
// same rule with shorter bounds here, so the test does not wait half a minute.
const timeouts = { headersMs: 400, requestMs: 800 };

describe('a request that stalls while arriving is closed', () => {
  let server: TestServer;
  const sendRaw = (raw: string) => sendRawTo(server.running.port, raw);

  beforeAll(async () => {
    server = await startTestServer({ requestTimeouts: timeouts });
  });
  afterAll(() => server?.stop());

  it('half the headers, then nothing: 408 in the error shape, and the connection closes', async () => {
    // sendRaw resolves only when the server closes the connection: it never would before.
    const answer = await sendRaw('GET /v1/external/health HTTP/1.1\r\nHost: x\r\nX-Half: ');
    expectErrorShape(answer, 408, /timed out/);
  });

  it('whole headers but a body that stops short: 408, and the connection closes', async () => {
    const head = 'POST /v1/external/incidents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    expectErrorShape(await sendRaw(`${head}{"category":`), 408, /timed out/);
  });

  it('a request that arrived whole may take longer than the bounds to answer: a long poll is not cut', async () => {
    const { token } = await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Okafor',
      phone: '+2348030000009',
      latitude: 6.45,
      longitude: 3.4,
      environment: 'live',
    });
    const base = server.baseUrl.replace('/v1/external', '/v1/responder');
    const started = Date.now();
    // The poll holds 2 s, well past both bounds, with no offer to end it sooner.
    const poll = await fetch(`${base}/offers?wait=2`, { headers: { authorization: `Bearer ${token}` } });
    expect(poll.status).toBe(200);
    expect(await poll.json()).toMatchObject({ offers: [] });
    expect(Date.now() - started).toBeGreaterThan(timeouts.requestMs);
  });
});
