import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText, findOffScreen } from './support/cut-text.ts';
import { chromiumAtEmptyGate } from './support/fake-camera.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { dismissAnswer, keepScreenshot, openKiosk, PORTRAIT, SMALL, wedgeScan } from './support/page.ts';

/**
 * "Already inside" at the gate (issue #49), in real Chromium against the browser host and the real
 * server: the second scan of a pass whose holder is inside shows when and where they came in,
 * spends no use, and "Let in anyway" lets them in with the override recorded on the server.
 * And upright, the camera's picture itself (not only its frame) takes the width.
 */
describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('already inside, on the screen (issue #49)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    // No responder near: the status bar's red line takes height too, as at most estates' gates today.
    stack = await startKioskStack({ name: 'already-inside' });
    browser = await chromiumAtEmptyGate(stack.dir);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a pass scanned again while its holder is inside shows "Already inside since HH:MM (Gate A)"; "Let in anyway" admits, and the server records the override', async () => {
    const created = await stack.api.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', max_uses: 3 });
    expect(created.status).toBe(201);
    const code = created.body.access_code as { code_id: string; qr_payload: string };
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');

    await wedgeScan(page, code.qr_payload);
    await page.locator('.result[data-decision=admitted]').waitFor();
    await dismissAnswer(page);

    await wedgeScan(page, code.qr_payload);
    const refused = page.locator('.result[data-reason=already_inside]');
    await refused.waitFor();
    expect(await refused.getAttribute('data-decision')).toBe('refused');
    expect(await page.getByTestId('result-reason').textContent()).toMatch(/^Already inside since ([01]\d|2[0-3]):[0-5]\d \(Gate A\)$/);
    expect(await page.getByTestId('result-who').textContent()).toContain('Musa Bello');
    await keepScreenshot(page, stack.dir, 'already-inside');
    expect(await findCutText(page)).toEqual([]);
    expect(await findOffScreen(page)).toEqual([]);
    // Nothing spent on the server.
    expect((await stack.api.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(1);

    await page.getByTestId('result-let-in').click();
    await page.locator('.result[data-decision=admitted]').waitFor();
    expect(await page.getByTestId('result-overrode').textContent()).toContain('already inside');
    await keepScreenshot(page, stack.dir, 'already-inside-let-in');
    const onSite = async () => (await stack.api.get('/access-logs/current-visitors')).body.visitors as Array<{ already_inside_override: boolean }>;
    await expect.poll(async () => (await onSite()).map((visitor) => visitor.already_inside_override).sort(), { timeout: 15_000 }).toEqual([false, true]);
    expect((await stack.api.get(`/access-codes/${code.code_id}`)).body.access_code.use_count).toBe(2);
    await page.close();
  }, 60_000);

  it("upright (800x1280) the camera's picture is as wide as its frame", async () => {
    // Started on its side, then turned upright: the picture is fitted again to the new frame.
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    await page.locator('.camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
    await page.setViewportSize(PORTRAIT);
    await page.locator('.camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
    const frame = (await page.locator('.camera-frame').boundingBox())!;
    const video = page.locator('.camera-video video');
    // The frame's border (0.15rem each side) is its own, and the picture is fitted in whole pixels: it fills the rest.
    await expect.poll(async () => (await video.boundingBox())?.width ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(frame.width - 12);
    const picture = (await video.boundingBox())!;
    expect(picture.y).toBeGreaterThanOrEqual(frame.y - 1);
    expect(picture.y + picture.height).toBeLessThanOrEqual(frame.y + frame.height + 1);
    await keepScreenshot(page, stack.dir, 'scan-upright-full-width');
    expect(await findOffScreen(page)).toEqual([]);
    await page.close();
  }, 60_000);
});
