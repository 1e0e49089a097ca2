import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText, findOffScreen } from './support/cut-text.ts';
import { chromiumAtEmptyGate } from './support/fake-camera.ts';
import { GATE, startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { chooseLanguage, dismissAnswer, keepScreenshot, LAPTOP, PORTRAIT, SMALL, wedgeScan } from './support/page.ts';

/** The sizes kiosks were tried at (issue #14): a laptop-size panel, a small 7" panel, an upright tablet. */
const SIZES = [SMALL, LAPTOP, PORTRAIT];

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('every screen at 1280x800, 1024x600 and 800x1280, from a fresh kiosk (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    await ensureRendererBuilt();
    // A responder near the gate: the README's pictures show a gate as it should be, not the
    // "No responders near this gate" warning (gate-truth.test.ts shows that one).
    stack = await startKioskStack({ name: 'layout', configured: false, responderNearGate: true });
    browser = await chromiumAtEmptyGate(stack.dir);
    page = await browser.newPage({ viewport: SMALL });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Screenshots at both sizes (kept as artifacts) and no text cut or overflowing at either. */
  const checkScreen = async (name: string, sizes = SIZES, readme = true) => {
    for (const size of sizes) {
      await page.setViewportSize(size);
      // Two frames: the layout has settled at the new size.
      await page.evaluate(() => new Promise((done) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(done))));
      await keepScreenshot(page, stack.dir, name, readme);
      expect(await findCutText(page), `${name} at ${size.width}x${size.height}`).toEqual([]);
      expect(await findOffScreen(page), `${name} at ${size.width}x${size.height}`).toEqual([]);
      // Upright, the camera takes the width: a pass held at a normal distance fills enough of it.
      const frames = page.locator('.camera-frame');
      const camera = (await frames.count()) > 0 ? await frames.first().boundingBox() : null;
      if (camera && size.width < size.height) expect(camera.width, `${name}: camera width`).toBeGreaterThanOrEqual(size.width * 0.6);
    }
    await page.setViewportSize(SMALL);
  };

  /**
   * Checks an answer to a scan while it is up. The answer closes itself after 4-6 s; a check (or a
   * screenshot for the docs) that outlived it would have looked at the scan screen instead, so
   * it is shown again and checked again, up to three times.
   */
  const checkAnswer = async (name: string, sizes: typeof SIZES, readme: boolean, show: () => Promise<void>) => {
    for (let tries = 1; ; tries++) {
      await show();
      await checkScreen(name, sizes, readme);
      if (await page.locator('.result').count()) return dismissAnswer(page);
      if (tries === 3) throw new Error(`the answer closed by itself before "${name}" was checked, three times`);
    }
  };

  const createPass = async (name: string) =>
    (await stack.api.post('/access-codes', { visitor_name: name, visitor_phone: '+2348030000001', purpose: 'Family visit', host_user_id: 'House 14B, Admiralty Gardens' })).body
      .access_code as { code: string; qr_payload: string };

  const fillSetup = async (apiKey: string) => {
    await page.fill('input[name=serverUrl]', stack.serverUrl);
    await page.fill('input[name=apiKey]', apiKey);
    await page.fill('input[name=entryPoint]', GATE.entryPoint);
    await page.fill('input[name=latitude]', String(GATE.latitude));
    await page.fill('input[name=longitude]', String(GATE.longitude));
    await page.getByTestId('setup-save').click();
  };

  /**
   * Each later test starts from here, whatever ran before it (or if it runs alone): the kiosk set
   * up with the gate key, a guard on duty, the screens in English, the scan screen showing.
   */
  const onDutyAtScan = async () => {
    await page.setViewportSize(SMALL);
    await page.goto(stack.kioskUrl);
    const setup = page.getByTestId('setup-save');
    const shift = page.getByTestId('shift-start');
    const scan = page.getByTestId('nav-scan');
    await setup.or(shift).or(scan).first().waitFor({ timeout: 15_000 });
    if (await setup.isVisible()) {
      await fillSetup(stack.gateKey);
      await shift.waitFor({ timeout: 15_000 });
    }
    if (await shift.isVisible()) {
      await page.fill('input[name=guardName]', 'Sani Abubakar');
      await shift.click();
    }
    await scan.waitFor();
    await chooseLanguage(page, 'English');
    await scan.click();
  };

  it('a fresh kiosk starts at the setup, refuses an owner key, takes a gate key, then asks who is on duty', async () => {
    await page.goto(stack.kioskUrl);
    await page.getByTestId('setup-save').waitFor();
    await checkScreen('setup');

    await fillSetup(stack.org.keys.live);
    await page.getByTestId('setup-error').waitFor({ timeout: 15_000 });
    expect(await page.locator('.setup-checks').textContent()).toContain('admin');
    await checkScreen('setup-refused', SIZES, false);

    await page.fill('input[name=apiKey]', stack.gateKey);
    await page.getByTestId('setup-save').click();
    await page.getByTestId('shift-start').waitFor({ timeout: 15_000 });
    await checkScreen('shift');
    await page.fill('input[name=guardName]', 'Sani Abubakar');
    await page.getByTestId('shift-start').click();
    await page.getByTestId('nav-scan').waitFor();
  }, 60_000);

  it('scan, keypad and both answers', async () => {
    await onDutyAtScan();
    await page.locator('.camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('.status-bar').getAttribute('data-online'), { timeout: 15_000 }).toBe('true');
    await checkScreen('scan');

    await page.getByTestId('open-keypad').click();
    // Eight characters: the last one used to be cut in portrait ("DEMO2UV2" shown as "DEMO2UV").
    for (const character of 'DEMO2UV2') await page.click(`.keyboard [data-key="${character}"]`);
    await checkScreen('keypad');
    await page.getByRole('button', { name: 'Back to camera' }).click();

    // The answer stays a few seconds: one scan per size.
    for (const size of SIZES) {
      let pass: { qr_payload: string } | undefined;
      await checkAnswer('result-admitted', [size], true, async () => {
        await page.setViewportSize(size);
        pass = await createPass('Oluwaseun Adebayo-Williams');
        await wedgeScan(page, pass.qr_payload);
        await page.locator('.result[data-decision=admitted]').waitFor();
      });
      await checkAnswer('result-refused', [size], true, async () => {
        await page.setViewportSize(size);
        await wedgeScan(page, pass!.qr_payload);
        await page.locator('.result[data-decision=refused]').waitFor();
      });
    }

    // The longest a visitor's details may be (names to 200 characters, purposes to 500).
    const longest = async () => (
      await stack.api.post('/access-codes', {
        visitor_name: 'Oluwaseun Babatunde Adeyemi-Okonkwo Chukwuemeka Ifeanyichukwu Abdulrahman Olamide Adebayo-Williams',
        visitor_phone: '+2348030000001',
        purpose: 'Delivery of building materials for the renovation of the boys quarters: '.repeat(5),
        host_user_id: 'Mrs Folasade Adeleke-Ogunbiyi, House 14B, Admiralty Gardens Phase 2',
      })
    ).body.access_code as { qr_payload: string };
    await checkAnswer('result-longest', [SMALL], false, async () => {
      await page.setViewportSize(SMALL);
      await wedgeScan(page, (await longest()).qr_payload);
      await page.locator('.result[data-decision=admitted]').waitFor();
    });

    // The longest visitor leaves: two taps, and the name never pushes the button off the row.
    await page.getByTestId('nav-onPremises').click();
    const visitor = page.locator('.visitor[data-name^="Oluwaseun Babatunde"]').first();
    // The list is read from the kiosk's own database as it opens; beside the whole suite CI has
    // seen that take over 30 s, the click's own wait.
    await visitor.waitFor({ timeout: 60_000 });
    // Two taps, as a guard makes them: the second on the confirmation the first one shows.
    await visitor.locator('button.checkout').click();
    await visitor.locator('button.checkout-confirm').click();
    await expect.poll(() => page.locator('.visitor[data-name^="Oluwaseun Babatunde"]').count(), { timeout: 30_000 }).toBe(0);
    await page.getByTestId('notice').waitFor({ state: 'detached', timeout: 10_000 });
  }, 180_000);

  it('walk-in, on premises, panic, needs attention, day view', async () => {
    await onDutyAtScan();
    await page.getByTestId('nav-walkIn').click();
    await page.fill('input[name=visitorName]', 'Ngozi Okonjo');
    await page.fill('input[name=visitorPhone]', '+2348035550000');
    await page.locator('input[name=hostUserId]').click();
    await checkScreen('walk-in');
    await page.fill('input[name=hostUserId]', 'Flat 7, Block C');
    await page.getByTestId('walk-in-submit').click();
    await page.getByTestId('notice').waitFor();
    // The confirmation goes by itself; the next screenshots are without it.
    await page.getByTestId('notice').waitFor({ state: 'detached', timeout: 10_000 });

    await page.getByTestId('nav-onPremises').click();
    await page.locator('.visitor[data-name="Ngozi Okonjo"]').first().waitFor({ timeout: 10_000 });
    await page.locator('.visitor[data-name="Ngozi Okonjo"] button.checkout').first().click();
    await checkScreen('on-premises');
    await page.locator('input.search').click();
    await checkScreen('on-premises-search', SIZES, false);

    await page.getByTestId('nav-panic').click();
    await checkScreen('panic');

    await page.getByTestId('status-attention').click();
    await page.getByTestId('attention-panel').waitFor();
    await checkScreen('attention-empty', SIZES, false);
    await page.getByRole('button', { name: 'Close' }).click();

    // Another guard takes over: the same shift screen, with a way back.
    await page.getByTestId('change-guard').click();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    await checkScreen('shift-change', SIZES, false);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByTestId('nav-scan').click();
    await page.getByRole('button', { name: /Day view/ }).click();
    await checkScreen('scan-day');
  }, 60_000);

  it('in Pidgin and Hausa (the longest strings), every main screen still fits at every size', async () => {
    await onDutyAtScan();
    for (const name of ['Pidgin', 'Hausa']) {
      // The rail's language button lists every catalogue; one tap picks.
      await chooseLanguage(page, name);
      for (const screen of ['scan', 'walkIn', 'onPremises', 'panic'] as const) {
        await page.getByTestId(`nav-${screen}`).click();
        await checkScreen(`${screen}-${name.toLowerCase()}`, SIZES, false);
      }
      await page.getByTestId('nav-scan').click();
      await page.getByTestId('open-keypad').click();
      await checkScreen(`keypad-${name.toLowerCase()}`, SIZES, false);
      await page.getByTestId('keypad').locator('.keypad-close').click();
    }
    // Remembered for this guard: a reload comes back in the last language chosen.
    await page.reload();
    await expect.poll(() => page.getByTestId('language').locator('.nav-language-current').textContent(), { timeout: 15_000 }).toBe('Hausa');
  }, 120_000);
});
