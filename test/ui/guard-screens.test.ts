import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText, findOffScreen } from './support/cut-text.ts';
import { chromiumAtEmptyGate } from './support/fake-camera.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { chooseLanguage, dismissAnswer, holdPanicButton, keepScreenshot, openKiosk, PORTRAIT, SMALL, wedgeScan } from './support/page.ts';

const PHONES = 'Estate control 0803 000 0000, Police 112';
/** A time as the guard reads it: 24-hour, two digits each, no AM/PM (issue #35). */
const CLOCK_24 = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Whether a finger can reach an element: wholly on the screen, and its middle and the middle of each edge (not something over it, nor a rail that scrolled it away) are what a tap there lands on. */
async function reachable(page: Page, selector: string) {
  return page.locator(selector).first().evaluate((element) => {
    const win = globalThis as any;
    const rect = element.getBoundingClientRect();
    // Mid-edges, not corners: a rounded corner is not the button's to hit.
    const inset = 3;
    const [midX, midY] = [rect.left + rect.width / 2, rect.top + rect.height / 2];
    const points = [
      [midX, midY],
      [midX, rect.top + inset],
      [midX, rect.bottom - inset],
      [rect.left + inset, midY],
      [rect.right - inset, midY],
    ];
    return {
      top: Math.round(rect.top),
      bottom: Math.round(rect.bottom),
      onScreen: rect.top >= 0 && rect.left >= 0 && rect.bottom <= win.innerHeight && rect.right <= win.innerWidth,
      hit: points.every(([x, y]) => {
        const hit = win.document.elementFromPoint(x, y);
        return Boolean(hit && (hit === element || element.contains(hit)));
      }),
    };
  });
}

/** The bars between the status bar's own row and the screens (what eats a short screen's height), and where the screens start. */
async function bars(page: Page) {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const banners = Array.from(doc.querySelectorAll('[data-testid=panic-banner], [data-testid=status-no-coverage]')) as any[];
    return {
      banners: banners.map((element) => element.dataset.testid as string),
      bodyTop: Math.round(doc.querySelector('.app-body').getBoundingClientRect().top),
    };
  });
}

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)("the guard's screens: one banner, a wide picture, three languages at once, 24-hour times (issue #35)", () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    // A live gate with no responders: nobody covers it, and an SOS escalates once the server's
    // dispatch sweep runs after its one-second window (the test runs the sweep itself).
    stack = await startKioskStack({
      name: 'guard-screens',
      serverConfig: { DISPATCH_WINDOW_S: '1', ESCALATION_WINDOW_S: '3600' },
      env: { KIOSK_ALARM_PHONES: PHONES },
    });
    browser = await chromiumAtEmptyGate(stack.dir);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('at 1024x600, an SOS nobody accepted at a gate nobody covers is one banner with everything both said, and "Change guard" stays in view', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    await page.getByTestId('status-no-coverage').waitFor({ timeout: 15_000 });
    await page.getByTestId('nav-panic').click();
    await holdPanicButton(page);

    const incidents = async () => (await stack.api.get('/incidents?limit=10')).body.results as { incident_id: string }[];
    await expect.poll(async () => (await incidents()).length, { timeout: 15_000 }).toBe(1);
    const id = (await incidents())[0]!.incident_id;
    // The dispatch window (1 s) runs out; the sweep escalates: nobody has accepted.
    await expect
      .poll(
        async () => {
          await stack.server.running.advanceDispatch();
          return (await stack.api.get(`/incidents/${id}`)).body.incident.status;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBe('escalated');
    const banner = page.getByTestId('panic-banner');
    await expect.poll(() => banner.getAttribute('data-key'), { timeout: 15_000 }).toBe('panic.nobody');

    for (const screen of ['panic', 'scan', 'walkIn', 'onPremises'] as const) {
      await page.getByTestId(`nav-${screen}`).click();
      const measured = await bars(page);
      await keepScreenshot(page, stack.dir, `nobody-accepted-${screen}`);
      // One red bar, not two: the status bar's "No responders near this gate" line is in the banner.
      expect(measured.banners, screen).toEqual(['panic-banner']);
      const words = await banner.textContent();
      expect(words).toContain('NOBODY HAS ACCEPTED YOUR SOS');
      expect(words).toContain('raise the alarm another way now');
      expect(words).toContain('No responder is near this gate');
      expect(words).toContain(PHONES);
      expect(words).not.toContain('✓');
      // The screens keep at least 460 of the 600 px: the two bars (28 + 71 px) started them at 158,
      // and "Change guard" was scrolled out of the rail.
      expect(measured.bodyTop, screen).toBeLessThanOrEqual(140);
      // The screen buttons gave up a little height for it, and are still a gloved finger's.
      for (const height of await page.locator('.nav-item').evaluateAll((items) => items.map((item) => item.getBoundingClientRect().height))) {
        expect(height, screen).toBeGreaterThanOrEqual(50);
      }
      for (const selector of ['[data-testid=change-guard] .nav-guard-change', '[data-testid=change-guard] strong', '[data-testid=nav-panic]']) {
        const where = await reachable(page, selector);
        expect(where, `${selector} on ${screen}`).toMatchObject({ onScreen: true, hit: true });
      }
      expect(await findCutText(page), screen).toEqual([]);
      expect(await findOffScreen(page), screen).toEqual([]);
    }
    // "Change guard" works from there.
    await page.getByTestId('change-guard').click();
    await page.getByTestId('shift-start').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Over: the banner goes, and the status bar's own line comes back.
    expect((await stack.api.post(`/incidents/${id}/cancel`, { reason: 'Test over' })).status).toBe(200);
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByTestId('status-no-coverage').waitFor();
    await page.close();
  }, 90_000);

  it('upright (800x1280) the camera\'s picture is at least 600 px wide', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, PORTRAIT, 'Sani Abubakar');
    await page.locator('.camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
    const video = page.locator('.camera-video video');
    await expect.poll(async () => (await video.boundingBox())?.width ?? 0, { timeout: 5_000 }).toBeGreaterThanOrEqual(600);
    const picture = (await video.boundingBox())!;
    const frame = (await page.locator('.camera-frame').boundingBox())!;
    // The whole picture is inside its frame, and the rest of the screen still fits.
    expect(picture.y).toBeGreaterThanOrEqual(frame.y - 1);
    expect(picture.y + picture.height).toBeLessThanOrEqual(frame.y + frame.height + 1);
    await keepScreenshot(page, stack.dir, 'scan-upright');
    expect(await findCutText(page)).toEqual([]);
    expect(await findOffScreen(page)).toEqual([]);
    await page.close();
  }, 60_000);

  it('the rail offers the three languages at once, each in its own name, the current one marked; one tap picks', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    const rail = page.getByTestId('language');
    expect(await rail.locator('.nav-language-current').textContent()).toBe('English');
    await rail.click();
    const choices = page.getByTestId('language-choices');
    await choices.waitFor();
    const options = choices.locator('button[data-language]');
    expect(await options.allTextContents()).toEqual(['English', 'Hausa', 'Pidgin']);
    expect(await options.evaluateAll((buttons) => buttons.map((button) => [button.getAttribute('lang'), button.getAttribute('aria-pressed')]))).toEqual([
      ['en', 'true'],
      ['ha', 'false'],
      ['pcm', 'false'],
    ]);
    for (const viewport of [SMALL, PORTRAIT]) {
      await page.setViewportSize(viewport);
      for (const name of ['English', 'Hausa', 'Pidgin']) {
        const where = await reachable(page, `[data-testid=language-choices] button[lang="${{ English: 'en', Hausa: 'ha', Pidgin: 'pcm' }[name]}"]`);
        expect(where, `${name} at ${viewport.width}x${viewport.height}`).toMatchObject({ onScreen: true, hit: true });
      }
      await keepScreenshot(page, stack.dir, 'language-choices');
      expect(await findCutText(page)).toEqual([]);
      expect(await findOffScreen(page)).toEqual([]);
    }
    await page.setViewportSize(SMALL);

    // One tap: Hausa, the list gone, the screens in Hausa.
    await options.filter({ hasText: 'Hausa' }).click();
    await choices.waitFor({ state: 'detached' });
    expect(await rail.locator('.nav-language-current').textContent()).toBe('Hausa');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.lang)).toBe('ha');
    // Straight from Hausa to English: no going round through Pidgin.
    await rail.click();
    expect(await choices.locator('button[aria-pressed=true]').textContent()).toBe('Hausa');
    await choices.locator('button[lang=en]').click();
    expect(await rail.locator('.nav-language-current').textContent()).toBe('English');
    // A tap elsewhere closes the list and still does what it was for.
    await rail.click();
    await choices.waitFor();
    await page.getByTestId('nav-walkIn').click();
    await choices.waitFor({ state: 'detached' });
    await page.locator('.walk-in-form').waitFor();
    await page.close();
  }, 60_000);

  it('times are 24-hour in English, Hausa and Pidgin', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    await page.getByTestId('nav-scan').click();
    const pass = (await stack.api.post('/access-codes', { visitor_name: 'Ngozi Okafor', visitor_phone: '+2348030000001', purpose: 'Visit', host_user_id: 'House 3' })).body
      .access_code as { qr_payload: string };
    await wedgeScan(page, pass.qr_payload);
    await page.locator('.result[data-decision=admitted]').waitFor({ timeout: 15_000 });
    await dismissAnswer(page);
    const time = page.locator('.scan-recent .recent-time').first();
    // What the clock said when the kiosk decided it, as HH:MM in the kiosk's own zone.
    const expected = await page.evaluate(() => {
      const now = new Date();
      return `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`;
    });
    for (const name of ['English', 'Hausa', 'Pidgin']) {
      await chooseLanguage(page, name);
      const shown = (await time.textContent())!;
      expect(shown, name).toMatch(CLOCK_24);
      // Within a minute of the scan (it may have turned the minute).
      const minutes = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3));
      const apart = Math.abs(minutes(shown) - minutes(expected));
      expect(Math.min(apart, 24 * 60 - apart), name).toBeLessThanOrEqual(1);
    }
    await chooseLanguage(page, 'English');
    await page.close();
  }, 60_000);
});
