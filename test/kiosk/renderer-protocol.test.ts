import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerRendererRequest,
  RENDERER_INDEX_URL,
  RENDERER_ORIGIN,
  rendererMayRequest,
  resolveRendererFile,
} from '../../electron/renderer-protocol.ts';

/** A renderer build as Vite lays it out, beside a secret the page must never reach. */
let base: string;
let dist: string;
const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'tsaro-renderer-protocol-'));
  dist = join(base, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Tsaro gate</title>');
  writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(dist, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(dist, 'assets', 'zxing_reader-abc.wasm'), WASM);
  writeFileSync(join(base, 'kiosk.db'), 'the kiosk database');
  symlinkSync(join(base, 'kiosk.db'), join(dist, 'assets', 'escape.js'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const get = (url: string, method = 'GET') => answerRendererRequest(new Request(url, { method }), dist);

describe('the Electron shell serves the kiosk page from tsaro-kiosk://app/', () => {
  it('answers the page, its script, its style and the QR decoder with their MIME types and the page security policy', async () => {
    const expected: [string, string][] = [
      ['/index.html', 'text/html; charset=utf-8'],
      ['/', 'text/html; charset=utf-8'],
      ['/assets/index-abc.js', 'text/javascript; charset=utf-8'],
      ['/assets/index-abc.css', 'text/css; charset=utf-8'],
      // WebAssembly.instantiateStreaming refuses anything but application/wasm.
      ['/assets/zxing_reader-abc.wasm', 'application/wasm'],
    ];
    for (const [path, type] of expected) {
      const response = await get(RENDERER_ORIGIN + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    }
    const wasm = await get(`${RENDERER_ORIGIN}/assets/zxing_reader-abc.wasm`);
    expect(Buffer.from(await wasm.arrayBuffer())).toEqual(WASM);
    expect(await (await get(RENDERER_INDEX_URL)).text()).toContain('Tsaro gate');
  });

  it('never answers a file outside the build: .. in any spelling, encoded separators, backslashes, a symbolic link out', async () => {
    const outside = [
      `${RENDERER_ORIGIN}/assets/%2e%2e/%2e%2e/kiosk.db`,
      `${RENDERER_ORIGIN}/..%2fkiosk.db`,
      `${RENDERER_ORIGIN}/assets%2f..%2f..%2fkiosk.db`,
      `${RENDERER_ORIGIN}/..%5ckiosk.db`,
      `${RENDERER_ORIGIN}/assets/..%5c..%5ckiosk.db`,
      `${RENDERER_ORIGIN}/index.html%00.js`,
      `${RENDERER_ORIGIN}/assets/escape.js`,
    ];
    for (const url of outside) {
      const response = await get(url);
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(await response.text(), url).not.toContain('the kiosk database');
    }
    // The URL parser folds plain `..` before the handler sees it: the request stays inside.
    const folded = await get(`${RENDERER_ORIGIN}/assets/../../../kiosk.db`);
    expect(folded.status).toBe(404);
    expect(resolveRendererFile(`${RENDERER_ORIGIN}/assets/../../../kiosk.db`, dist)).toMatchObject({ status: 404 });
  });

  it('answers only its own host, GET and HEAD, and files of the types a renderer build holds', async () => {
    expect((await get('tsaro-kiosk://elsewhere/index.html')).status).toBe(404);
    expect(resolveRendererFile('file:///etc/passwd', dist)).toMatchObject({ status: 404 });
    expect((await get(`${RENDERER_ORIGIN}/index.html`, 'POST')).status).toBe(405);
    const head = await get(`${RENDERER_ORIGIN}/assets/zxing_reader-abc.wasm`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(WASM.length));
    writeFileSync(join(dist, 'notes.txt'), 'not for the page');
    expect((await get(`${RENDERER_ORIGIN}/notes.txt`)).status).toBe(404);
    expect((await get(`${RENDERER_ORIGIN}/assets/missing.js`)).status).toBe(404);
  });

  it('lets the page load its own files and the data:, blob: URLs it makes, and nothing from the network', () => {
    expect(rendererMayRequest(RENDERER_INDEX_URL)).toBe(true);
    expect(rendererMayRequest(`${RENDERER_ORIGIN}/assets/zxing_reader-abc.wasm`)).toBe(true);
    expect(rendererMayRequest('data:,')).toBe(true);
    expect(rendererMayRequest(`blob:${RENDERER_ORIGIN}/4f1c2b9e-0000-4000-8000-000000000000`)).toBe(true);
    for (const url of [
      'https://fastly.jsdelivr.net/npm/zxing-wasm@3.1.4/dist/reader/zxing_reader.wasm',
      'http://127.0.0.1:8080/v1/external/access-codes',
      'file:///etc/passwd',
      'tsaro-kiosk://other/index.html',
      'ws://127.0.0.1:9229/',
      'not a url',
    ]) {
      expect(rendererMayRequest(url), url).toBe(false);
    }
  });
});
