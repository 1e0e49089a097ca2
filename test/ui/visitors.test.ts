import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { openKiosk } from './support/page.ts';

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('walk-ins and who is on premises (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'visitors' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const openOnServer = async () => (await stack.api.get('/access-logs/current-visitors')).body as { visitors: { log_id: string; visitor_name: string; visitor_phone: string; host_user_id: string }[] };

  it('a walk-in typed on the screen keyboard appears under "On premises"; two taps check them out, on the server too', async () => {
    const page = await openKiosk(browser, stack.kioskUrl);
    await page.getByTestId('nav-walkIn').click();

    // Name and host on the screen's own keys (capitals come by themselves), the phone too.
    const tap = async (text: string) => {
      for (const character of text) await page.click(`.keyboard [data-key="${character === ' ' ? ' ' : character.toUpperCase()}"]`);
    };
    await tap('amina yusuf');
    await page.locator('input[name=visitorPhone]').click();
    await tap('+2348031112222');
    await page.locator('input[name=hostUserId]').click();
    await tap('house 3');
    expect(await page.locator('input[name=visitorName]').inputValue()).toBe('Amina Yusuf');
    await page.getByTestId('walk-in-submit').click();
    await expect.poll(() => page.getByTestId('notice').textContent().catch(() => ''), { timeout: 10_000 }).toContain('Amina Yusuf is checked in');
    expect(await page.locator('input[name=visitorName]').inputValue()).toBe('');

    await page.getByTestId('nav-onPremises').click();
    const row = page.locator('.visitor[data-name="Amina Yusuf"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('House 3');
    await page.screenshot({ path: join(stack.dir, 'on-premises.png') });

    // On the server: the walk-in is inside (the kiosk sends it at once while online).
    await expect
      .poll(async () => (await openOnServer()).visitors.map((visitor) => [visitor.visitor_name, visitor.visitor_phone, visitor.host_user_id]), { timeout: 15_000 })
      .toContainEqual(['Amina Yusuf', '+2348031112222', 'House 3']);

    // Searching finds her; checking out takes a tap and a confirming tap.
    await page.locator('input.search').fill('amina');
    await expect.poll(() => page.locator('.visitor').count(), { timeout: 10_000 }).toBe(1);
    const checkout = row.locator('button.checkout');
    await checkout.click();
    // The second tap is on the confirmation the first one shows (a tap before it shows only asks again).
    await expect.poll(() => checkout.textContent(), { timeout: 10_000 }).toContain('Tap again');
    await row.locator('button.checkout-confirm').click();
    await row.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('notice').textContent().catch(() => ''), { timeout: 10_000 }).toContain('Amina Yusuf checked out');

    await expect.poll(async () => (await openOnServer()).visitors.map((visitor) => visitor.visitor_name), { timeout: 15_000 }).not.toContain('Amina Yusuf');
    const logs = await stack.api.get('/access-logs?search=Amina');
    expect(logs.body.results).toHaveLength(1);
    expect(logs.body.results[0]).toMatchObject({ method: 'walk_in', status: 'checked_out', entry_point: 'Gate A' });
  }, 60_000);
});
