import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText } from './support/cut-text.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { holdPanicButton, keepScreenshot, openKiosk, PORTRAIT, SMALL } from './support/page.ts';

const PHONES = 'Estate control 0803 000 0000, Police 112';

interface Seen {
  status: string;
  tone: string;
  banner: string;
  bannerTone: string;
}

/** The panic screen's words at the moment `tone` first shows: Playwright's polling could miss how it began. */
async function watchTone(page: Page, tone: string): Promise<void> {
  await page.evaluate((tone) => {
    const win = globalThis as any;
    const { document, MutationObserver } = win;
    win.__tones ??= {};
    const look = () => {
      const status = document.querySelector('[data-testid=panic-status]');
      if (win.__tones[tone] || status?.getAttribute('data-tone') !== tone) return;
      const banner = document.querySelector('[data-testid=panic-banner]');
      win.__tones[tone] = { status: status.textContent, tone, banner: banner?.textContent ?? '', bannerTone: banner?.getAttribute('data-tone') ?? '' };
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    look();
  }, tone);
}
const firstSeen = (page: Page, tone: string) => page.evaluate((tone) => (globalThis as any).__tones?.[tone] as Seen | undefined, tone);

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('an SOS whose link drops after it went out (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    // A sandbox gate (the simulated network covers it) without the dispatch sweep: the incident
    // stays open and unassigned, so the only thing that changes is the kiosk's link, cut by a relay.
    stack = await startKioskStack({ name: 'sos-status-unknown', environment: 'sandbox', throughLink: true, env: { KIOSK_ALARM_PHONES: PHONES } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the green tick turns amber "status unknown" when the link goes; once nothing is heard for a while, the advice and the numbers, never beside a tick', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    await page.getByTestId('nav-panic').click();
    await holdPanicButton(page);
    const status = page.getByTestId('panic-status');
    const banner = page.getByTestId('panic-banner');
    await expect.poll(() => status.getAttribute('data-tone'), { timeout: 15_000 }).toBe('sent');
    expect(await page.getByTestId('panic-headline').textContent()).toBe('✓ SOS SENT');
    expect(await page.getByTestId('panic-fallback').count()).toBe(0);

    await watchTone(page, 'unknown');
    stack.link!.cut();
    await expect.poll(() => firstSeen(page, 'unknown'), { timeout: 15_000 }).toBeDefined();
    // At once: amber, no tick, on the screen and in the banner; the advice is not there yet.
    const unknown = (await firstSeen(page, 'unknown'))!;
    expect(unknown.status).toContain('? SOS SENT, STATUS UNKNOWN: the link is down');
    expect(unknown.status).not.toContain('✓');
    expect(unknown.status).not.toContain(PHONES);
    expect(unknown.bannerTone).toBe('unknown');
    expect(unknown.banner).not.toContain('✓');
    // Amber: the theme's own warning colour, not the green of a sent SOS nor the red of "not sent".
    const colours = await page.getByTestId('panic-headline').evaluate((element) => {
      const { document, getComputedStyle } = globalThis as any;
      const probe = document.createElement('div');
      probe.style.background = 'var(--warn)';
      document.body.append(probe);
      const warn = getComputedStyle(probe).backgroundColor;
      probe.remove();
      return { headline: getComputedStyle(element).backgroundColor, warn };
    });
    expect(colours.headline).toBe(colours.warn);

    // Nothing heard of the incident for 20 s (STATUS_STALE_MS): raise the alarm another way.
    await page.getByTestId('panic-phones').waitFor({ timeout: 45_000 });
    const text = (await status.textContent())!;
    expect(text).toContain('SOS SENT, STATUS UNKNOWN: the link is down');
    expect(text).toContain('Do not wait: raise the alarm another way now');
    expect(text).toContain(PHONES);
    expect(text).not.toContain('✓');
    expect(await status.getAttribute('data-tone')).toBe('unknown');
    for (const viewport of [SMALL, PORTRAIT]) {
      await page.setViewportSize(viewport);
      await keepScreenshot(page, stack.dir, 'panic-unknown');
      expect(await findCutText(page), `${viewport.width}x${viewport.height}`).toEqual([]);
    }
    // Every screen carries it in the banner.
    await page.getByTestId('nav-scan').click();
    expect(await banner.getAttribute('data-tone')).toBe('unknown');
    expect(await page.getByTestId('banner-phones').textContent()).toContain(PHONES);
    expect(await banner.textContent()).not.toContain('✓');
    await keepScreenshot(page, stack.dir, 'panic-unknown-scan');

    // The link back and the incident read again: the tick returns, the advice goes.
    stack.link!.restore();
    await expect.poll(() => banner.getAttribute('data-tone'), { timeout: 30_000 }).toBe('sent');
    expect(await page.getByTestId('banner-phones').count()).toBe(0);
    await page.close();
  }, 120_000);
});
