import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

describe('the console is served at /console/', () => {
  let stack: ConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack('smoke');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers with its Content-Security-Policy, nosniff and no referrer, and the page needs nothing the policy forbids', async () => {
    const { page, problems } = await stack.open();
    const response = await page.goto('/console/');
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toBe(CSP);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-cache');
    await page.getByRole('heading', { name: /Sign in|Tsaro Console/ }).waitFor();
    const html = await (await fetch(`${stack.origin}/console/`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
    // A console error the sign-in check makes before the server side exists is the API's own 404, not the page's.
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|404)/.test(p))).toEqual([]);
  });

  it('opens a client route such as an invitation link from index.html, and keeps a missing asset a 404', async () => {
    const join = await fetch(`${stack.origin}/console/join/inv_abc`);
    expect(join.status).toBe(200);
    expect(join.headers.get('content-type')).toMatch(/text\/html/);
    expect(join.headers.get('content-security-policy')).toBe(CSP);
    expect(await join.text()).toContain('<div id="root">');

    const missing = await fetch(`${stack.origin}/console/assets/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: number }).code).toBe(404);

    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await (await fetch(`${stack.origin}/console/`)).text())![1]!;
    expect((await fetch(stack.origin + asset)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('sends an asset precompressed in the encoding the browser accepts (brotli first), the same script either way', async () => {
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await (await fetch(`${stack.origin}/console/`)).text())![1]!;
    const plain = await fetch(stack.origin + asset, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const script = await plain.text();
    for (const [accepted, sent] of [['br, gzip', 'br'], ['gzip', 'gzip']] as const) {
      const answer = await fetch(stack.origin + asset, { headers: { 'accept-encoding': accepted } });
      expect(answer.headers.get('content-encoding')).toBe(sent);
      expect(answer.headers.get('content-type')).toMatch(/javascript/);
      expect(answer.headers.get('vary')).toMatch(/Accept-Encoding/i);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Number(answer.headers.get('content-length'))).toBeLessThan(script.length / 2);
      expect(await answer.text()).toBe(script);
    }
  });

  it('sends the host address and /console to /console/', async () => {
    const root = await fetch(`${stack.origin}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const bare = await fetch(`${stack.origin}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
  });
});
