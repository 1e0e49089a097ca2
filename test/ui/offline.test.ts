import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { chromiumAtEmptyGate } from './support/fake-camera.ts';
import { GATE, startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { findCutText } from './support/cut-text.ts';
import { holdPanicButton, keepScreenshot, kioskCall, LARGE, openKiosk, SMALL, wedgeScan } from './support/page.ts';

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('the gate with the server down (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'offline', responderNearGate: true });
    browser = await chromiumAtEmptyGate(stack.dir);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('with the server stopped a scan is decided offline and shown as waiting; with it back, it syncs and the server counts one use', async () => {
    const created = await stack.api.post('/access-codes', { visitor_name: 'Bola Adeyemi', visitor_phone: '+2348030000007', purpose: 'Delivery', host_user_id: 'House 9' });
    const pass = created.body.access_code as { code_id: string; qr_payload: string };
    const page = await openKiosk(browser, stack.kioskUrl);
    const bar = page.locator('.status-bar');
    await expect.poll(() => bar.getAttribute('data-online'), { timeout: 15_000 }).toBe('true');
    // The kiosk has synced the code (and the organization's pass keys) before the link goes.
    await page.getByTestId('status-pending').click();
    await expect.poll(async () => (await kioskCall(stack, 'kioskStatus', {})).cachedCodes, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);

    await stack.stopServer();
    await wedgeScan(page, pass.qr_payload);
    const result = page.locator('.result');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.getAttribute('data-reason')).toBe('admitted');
    expect(await page.getByTestId('result-name').textContent()).toBe('Bola Adeyemi');
    expect(await result.textContent()).toContain('Decided offline');
    await expect.poll(() => bar.getAttribute('data-online'), { timeout: 15_000 }).toBe('false');
    await expect.poll(async () => Number(await bar.getAttribute('data-pending')), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('status-pending').textContent()).toMatch(/Waiting to send: [1-9]/);
    await keepScreenshot(page, stack.dir, 'offline-waiting', true);

    await stack.startServer();
    await result.waitFor({ state: 'detached', timeout: 15_000 });
    // The guard taps what waits to send it now rather than at the next scheduled try.
    await page.getByTestId('status-pending').click();
    await expect.poll(async () => Number(await bar.getAttribute('data-pending')), { timeout: 30_000 }).toBe(0);
    expect(await bar.getAttribute('data-online')).toBe('true');

    const code = (await stack.api.get(`/access-codes/${pass.code_id}`)).body.access_code;
    expect(code).toMatchObject({ use_count: 1, status: 'used' });
    const logs = await stack.api.get('/access-logs?search=Bola');
    expect(logs.body.results).toHaveLength(1);
    expect(logs.body.results[0]).toMatchObject({ method: 'code', code_id: pass.code_id, entry_point: 'Gate A' });
  }, 90_000);

  it('an SOS held with the server down shows "NOT SENT YET, retrying" on every screen until it gets through, then there is one incident', async () => {
    const page = await openKiosk(browser, stack.kioskUrl);
    await stack.stopServer();
    await page.getByTestId('nav-panic').click();
    await holdPanicButton(page);

    const banner = page.getByTestId('panic-banner');
    await expect.poll(() => banner.getAttribute('data-delivery'), { timeout: 15_000 }).toBe('retrying');
    expect(await banner.textContent()).toContain('SOS NOT SENT YET, retrying');
    // It stays whatever the guard does next, the answer to a scan included.
    await page.getByTestId('nav-scan').click();
    expect(await banner.isVisible()).toBe(true);
    await page.locator('.camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
    await keepScreenshot(page, stack.dir, 'panic-retrying', true);
    for (const size of [LARGE, SMALL]) {
      await page.setViewportSize(size);
      expect(await findCutText(page), `banner at ${size.width}x${size.height}`).toEqual([]);
    }

    await stack.startServer();
    await expect.poll(() => banner.getAttribute('data-delivery'), { timeout: 30_000 }).toBe('sent');
    const incidents = (await stack.api.get('/incidents')).body.results as { category: string; location: { coordinates: number[] } }[];
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ category: 'sos', location: { coordinates: [GATE.longitude, GATE.latitude] } });
  }, 90_000);
});
