import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJsonDirectly } from '../../server/http/json-answer.ts';

interface RawAnswer {
  status: number;
  /** Header lines as sent, in order, without Date. */
  headers: string[];
  body: string;
}

function raw(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== 'Date') lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode!, headers: lines, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const BODIES: unknown[] = [{ incident: { id: 'inc_1', note: 'Ọ̀gá à ń bọ̀ ✓ 😀' } }, { long: 'x'.repeat(5000) }, [1, 2], 'text', 0, null, undefined];

function appOf(direct: boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  if (direct) answerJsonDirectly(app);
  app.all('/:n', (req, res) => {
    res.setHeader('X-Request-Id', 'req-1');
    const status = Number(req.query.status ?? 200);
    if (req.query.type) res.type(String(req.query.type));
    if (req.query.etag) res.setHeader('ETag', String(req.query.etag));
    res.status(status).json(BODIES[Number(req.params.n)]);
  });
  return app;
}

// answerJsonDirectly must answer byte for byte what Express's res.json answers: every client
// (and its caches, through ETag and 304) sees the same answer, only for less work.
describe('JSON answers written directly', () => {
  const ports: { express: number; direct: number } = { express: 0, direct: 0 };
  const servers: ReturnType<Express['listen']>[] = [];
  beforeAll(async () => {
    for (const kind of ['express', 'direct'] as const) {
      const server = appOf(kind === 'direct').listen(0, '127.0.0.1');
      servers.push(server);
      await new Promise((resolve) => server.once('listening', resolve));
      ports[kind] = (server.address() as AddressInfo).port;
    }
  });
  afterAll(() => servers.forEach((server) => server.close()));

  const same = async (method: string, path: string, headers?: Record<string, string>) => {
    const ours = await raw(ports.direct, method, path, headers);
    expect(ours).toEqual(await raw(ports.express, method, path, headers));
    return ours;
  };

  it('answers each body with the headers, in the order, and the weak ETag Express sends', async () => {
    for (const n of BODIES.keys()) {
      for (const method of ['GET', 'POST', 'HEAD', 'DELETE']) await same(method, `/${n}`);
    }
    const answer = await same('GET', '/0');
    expect(answer.headers).toEqual([
      'X-Request-Id: req-1',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(answer.body)}`,
      expect.stringMatching(/^ETag: W\/"[0-9a-f]+-[\w+/]{27}"$/),
      'Connection: keep-alive',
      'Keep-Alive: timeout=5',
    ]);
  });

  it('answers 304 without a body to a GET whose If-None-Match holds the ETag, and 200 otherwise', async () => {
    const first = await same('GET', '/0');
    const etag = first.headers.find((line) => line.startsWith('ETag: '))!.slice('ETag: '.length);
    expect((await same('GET', '/0', { 'if-none-match': etag })).status).toBe(304);
    expect((await same('HEAD', '/0', { 'if-none-match': etag })).status).toBe(304);
    expect((await same('GET', '/0', { 'if-none-match': etag, 'cache-control': 'no-cache' })).status).toBe(200);
    expect((await same('GET', '/0', { 'if-none-match': 'W/"0-other"' })).status).toBe(200);
    expect((await same('POST', '/0', { 'if-none-match': etag })).status).toBe(200);
    expect((await same('GET', '/0', { 'if-modified-since': new Date().toUTCString() })).status).toBe(200);
  });

  it('keeps what a handler set and the statuses without a body as Express does', async () => {
    for (const status of [201, 204, 205, 304, 404, 500]) await same('GET', `/0?status=${status}`);
    await same('GET', '/0?type=application/problem%2Bjson');
    await same('GET', '/0?etag=%22mine%22');
  });
});
