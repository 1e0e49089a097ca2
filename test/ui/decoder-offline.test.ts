import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerRendererRequest, RENDERER_ORIGIN } from '../../electron/renderer-protocol.ts';
import { KIOSK_CALL_PATH } from '../../shared/kiosk/client.ts';
import { launchChromium } from './support/browser.ts';
import { firstDecoderReads } from './support/first-decoder.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { writeQrVideo } from './support/fake-camera.ts';
import { ROOT, startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { openKiosk } from './support/page.ts';

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('the QR decoder on a kiosk with no internet (real Chromium, built renderer)', () => {
  let stack: KioskStack;
  let browser: Browser | undefined;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'decoder-offline' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('loads zxing-wasm from the files the Electron shell serves, reads a pass html5-qrcode cannot, and asks nothing of the internet', async () => {
    // A pass the first decoder misses (about one in ten): only a loaded zxing-wasm can admit it.
    let pass: { code_id: string; qr_payload: string; visitor_name: string } | null = null;
    for (let attempt = 0; attempt < 600 && !pass; attempt++) {
      const res = await stack.api.post('/access-codes', { visitor_name: `Offline Decoder ${attempt}`, visitor_phone: '+2348030000001', purpose: 'Delivery', host_user_id: 'House 3' });
      expect(res.status).toBe(201);
      if (!firstDecoderReads(res.body.access_code.qr_payload, 5)) pass = res.body.access_code;
    }
    expect(pass, 'a pass html5-qrcode misses at 5 px/module').not.toBeNull();
    const video = join(stack.dir, 'hard-pass.y4m');
    writeQrVideo(video, pass!.qr_payload, 5);
    browser = await launchChromium({ cameraVideo: video });
    const context = await browser.newContext();

    // The network as a kiosk has it: the page's own files, answered by the Electron shell's
    // protocol handler (MIME types and all), and the kiosk core's calls; every other URL fails.
    const kioskHost = new URL(stack.kioskUrl).host;
    const rendererDir = join(ROOT, 'renderer', 'dist');
    const refused: string[] = [];
    const served: { path: string; status: number; type: string | null }[] = [];
    await context.route('**/*', async (route) => {
      const request = route.request();
      const url = new URL(request.url());
      if (url.host !== kioskHost) {
        refused.push(url.href);
        return route.abort('internetdisconnected');
      }
      if (url.pathname.startsWith(KIOSK_CALL_PATH)) return route.continue();
      const answer = await answerRendererRequest(new Request(`${RENDERER_ORIGIN}${url.pathname}`, { method: request.method() }), rendererDir);
      served.push({ path: url.pathname, status: answer.status, type: answer.headers.get('content-type') });
      return route.fulfill({ status: answer.status, headers: Object.fromEntries(answer.headers), body: Buffer.from(await answer.arrayBuffer()) });
    });
    // What the page itself saw: which decoder read the pass (the renderer's scan trace), and any
    // URL its security policy blocked (the policy stops a CDN fetch before the network does).
    await context.addInitScript(() => {
      const win = globalThis as any;
      win.readBy = [];
      win.blocked = [];
      win.tsaroScanTrace = (event: string, _at: number, source?: string) => event === 'decoded' && win.readBy.push(source);
      win.addEventListener('securitypolicyviolation', (event: any) => win.blocked.push(event.blockedURI + ' ' + event.sourceFile + ':' + event.lineNumber + ':' + event.columnNumber + ' ' + event.sample));
    });
    const messages: string[] = [];
    const errors: string[] = [];
    context.on('console', (message) => {
      messages.push(message.text());
      if (message.type() === 'error') errors.push(message.text());
    });
    const page = await openKiosk(context, stack.kioskUrl);

    const result = page.locator('.result');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.getAttribute('data-decision')).toBe('admitted');
    expect(await page.getByTestId('result-name').textContent()).toBe(pass!.visitor_name);

    expect(await page.evaluate(() => (globalThis as any).readBy)).toContain('zxing-wasm');
    // Nothing blocked and no error on the console: zod's eval probe used to break the policy on every load.
    expect(await page.evaluate(() => (globalThis as any).blocked)).toEqual([]);
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    const wasm = served.filter((file) => file.path.endsWith('.wasm'));
    expect(wasm).toEqual([{ path: expect.stringMatching(/^\/assets\/zxing_reader-[\w-]+\.wasm$/), status: 200, type: 'application/wasm' }]);
    expect(served.every((file) => file.status === 200)).toBe(true);
    // Streaming compilation worked: no fallback to a second fetch of the decoder.
    expect(messages.filter((text) => /wasm|falling back/i.test(text))).toEqual([]);
  }, 120_000);
});
