import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, sendRawTo } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Requests Node's HTTP parser refuses before any route sees them still get the API's error
 * shape: a full HTTP response with a `{code, message}` JSON body, then the connection closes.
 * Sent over raw sockets, since no well-behaved client can send them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

/** Writes bytes to the server and reads until it closes the connection. */
const sendRaw = (raw: string) => sendRawTo(server.running.port, raw);

describe('protocol-level errors answer {code, message}', () => {
  it('headers over the limit are a 431', async () => {
    const answer = await sendRaw(`GET /v1/external/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectErrorShape(answer, 431, /headers are too large/);
  });

  it.each([
    ['garbage', 'GARBAGE\r\n\r\n'],
    ['a control character in the path', 'GET /v1/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an unknown HTTP version', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'],
  ])('a garbage request line (%s) is a 400', async (_what, raw) => {
    expectErrorShape(await sendRaw(raw), 400, /^Malformed HTTP request/);
  });

  it('both Content-Length and Transfer-Encoding (request smuggling) is a 400 naming both', async () => {
    const answer = await sendRaw(
      'POST /v1/external/incidents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    );
    expectErrorShape(answer, 400, /Content-Length and Transfer-Encoding/);
  });

  it('the server keeps answering well-formed requests afterwards', async () => {
    const answer = await sendRaw('GET /v1/external/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok' });
  });
});
