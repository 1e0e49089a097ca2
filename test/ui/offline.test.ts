import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { keepScreenshot, kioskCall, openKiosk, wedgeScan } from './support/page.ts';

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('the gate with the server down (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'offline' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('with the server stopped a scan is decided offline and shown as waiting; with it back, it syncs and the server counts one use', async () => {
    const created = await stack.api.post('/access-codes', { visitor_name: 'Bola Tinubu', visitor_phone: '+2348030000007', purpose: 'Delivery', host_user_id: 'House 9' });
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
    expect(await page.getByTestId('result-name').textContent()).toBe('Bola Tinubu');
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
});
