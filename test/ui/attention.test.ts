import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText } from './support/cut-text.ts';
import { chromiumAtEmptyGate } from './support/fake-camera.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { dismissAnswer, keepScreenshot, kioskCall, LARGE, openKiosk, SMALL, wedgeScan } from './support/page.ts';

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('what needs the guard\'s attention (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'attention', throughLink: true, responderNearGate: true });
    browser = await chromiumAtEmptyGate(stack.dir);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a visitor let in offline whose last use another gate took meanwhile is listed under "Needs attention" until the guard marks it done', async () => {
    const created = await stack.api.post('/access-codes', { visitor_name: 'Emeka Nwosu', visitor_phone: '+2348030000011', purpose: 'Interview', host_user_id: 'Block D' });
    const pass = created.body.access_code as { code: string; qr_payload: string };
    const page = await openKiosk(browser, stack.kioskUrl);
    await page.getByTestId('status-pending').click();
    await expect.poll(async () => (await kioskCall(stack, 'kioskStatus', {})).cachedCodes, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);

    // This gate's link goes down; the visitor is let in here, offline...
    stack.link!.cut();
    await wedgeScan(page, pass.qr_payload);
    const result = page.locator('.result');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.getAttribute('data-decision')).toBe('admitted');
    expect(await result.textContent()).toContain('Decided offline');
    await dismissAnswer(page);

    // ...while another gate, online, takes the code's only use.
    const elsewhere = await stack.api.post('/access-codes/validate', { code: pass.code, entry_point: 'Gate B' });
    expect(elsewhere.body.valid).toBe(true);

    stack.link!.restore();
    await page.getByTestId('status-pending').click();
    const attention = page.getByTestId('status-attention');
    await expect.poll(() => attention.textContent(), { timeout: 30_000 }).toContain('Needs attention: 1');

    await attention.click();
    const panel = page.getByTestId('attention-panel');
    await panel.waitFor();
    const item = panel.locator('.attention-item');
    expect(await item.textContent()).toContain(`Emeka Nwosu was let in offline with ${pass.code}, but the server refused the code: find the visitor and call the host`);
    expect(await item.textContent()).toContain('Maximum uses reached');
    for (const size of [SMALL, LARGE]) {
      await page.setViewportSize(size);
      await keepScreenshot(page, stack.dir, 'attention', true);
      expect(await findCutText(page), `attention at ${size.width}x${size.height}`).toEqual([]);
    }

    await item.getByRole('button', { name: 'Done' }).click();
    await panel.getByText('Nothing needs attention.').waitFor();
    await expect.poll(() => attention.textContent()).toBe('Nothing needs attention');
  }, 90_000);
});
