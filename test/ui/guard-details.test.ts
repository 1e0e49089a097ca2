import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { chooseLanguage, dismissAnswer, kioskCall, LAPTOP, openKiosk } from './support/page.ts';

/** The smaller items (#14), each as the guard meets it, in real Chromium against the real server. */
describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('what the guard is told (real Chromium, browser host, real server)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'guard-details', throughLink: true });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const createCode = async (name: string, host: string) => {
    const res = await stack.api.post('/access-codes', { visitor_name: name, visitor_phone: '+2348030000001', purpose: 'Tailoring', host_user_id: host });
    expect(res.status).toBe(201);
    return res.body.access_code as { code_id: string; code: string };
  };
  const revoke = async (codeId: string) => expect((await stack.api.delete(`/access-codes/${codeId}`, { body: { reason: 'Host changed plans' } })).status).toBe(200);
  const typeCode = async (page: Page, code: string) => {
    await page.getByTestId('open-keypad').click();
    for (const character of code.replace('-', '')) await page.click(`.keyboard [data-key="${character}"]`);
    await page.getByTestId('keypad-check').click();
    await page.locator('.result').waitFor();
  };

  it('a refusal names the visitor and the host to call, and the Recent list shows the name beside the reason', async () => {
    const code = await createCode('Bola Adeyemi', 'House 14B');
    await revoke(code.code_id);
    // The server's refusal says only why; the name and host come from the codes the kiosk holds.
    await kioskCall(stack, 'syncNow', {});
    const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
    await typeCode(page, code.code);
    expect(await page.locator('.result').getAttribute('data-decision')).toBe('refused');
    expect(await page.getByTestId('result-reason').textContent()).toBe('Code has been revoked');
    expect(await page.getByTestId('result-who').textContent()).toBe('Bola Adeyemi · Visiting: House 14B');
    // Decided by the server, online.
    expect(await page.locator('.result-offline').count()).toBe(0);
    await dismissAnswer(page);
    const recent = page.locator('.scan-recent li').first();
    expect(await recent.locator('.recent-name').textContent()).toBe('Code has been revoked · Bola Adeyemi');
    await page.close();
  }, 60_000);

  it('the Recent list is the kiosk\'s own journal: a scan is still listed after the page reloads', async () => {
    const code = await createCode('Chidi Okafor', 'House 3');
    const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
    await typeCode(page, code.code);
    expect(await page.locator('.result').getAttribute('data-decision')).toBe('admitted');
    await dismissAnswer(page);
    const first = page.locator('.scan-recent li').first();
    const before = await first.textContent();
    expect(before).toContain('Chidi Okafor');

    // A reload (a crash, the kiosk restarting its page) starts the page with an empty memory.
    await page.reload();
    await page.getByTestId('nav-scan').waitFor();
    await expect.poll(() => first.textContent(), { timeout: 15_000 }).toBe(before);
    expect(await first.getAttribute('class')).toBe('recent-admitted');
    await page.close();
  }, 60_000);

  it('an offline refusal says it was decided from the codes the kiosk holds, and promises no confirmation', async () => {
    const code = await createCode('Emeka Nwosu', 'House 7');
    await revoke(code.code_id);
    // The kiosk learns of the revocation, then loses its link.
    await kioskCall(stack, 'syncNow', {});
    stack.link!.cut();
    try {
      const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
      await typeCode(page, code.code);
      expect(await page.locator('.result').getAttribute('data-decision')).toBe('refused');
      const offline = await page.locator('.result-offline').textContent();
      expect(offline).toBe('Decided offline, from the codes this kiosk holds');
      expect(offline).not.toMatch(/confirm/i);
      expect(await page.getByTestId('result-who').textContent()).toBe('Emeka Nwosu · Visiting: House 7');
      await page.close();
    } finally {
      stack.link!.restore();
    }
  }, 60_000);

  it('"N inside" counts everyone inside while a search shows only the matches', async () => {
    const before = (await kioskCall(stack, 'onPremises', {})).total;
    await kioskCall(stack, 'walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000011', hostUserId: 'House 2' });
    await kioskCall(stack, 'walkIn', { visitorName: 'Tunde Bakare', visitorPhone: '+2348030000012', hostUserId: 'House 5' });
    const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
    await page.getByTestId('nav-onPremises').click();
    await page.locator('.visitor[data-name="Tunde Bakare"]').waitFor();
    await page.locator('input.search').fill('ngozi');
    await expect.poll(() => page.locator('.visitor').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId('on-premises-count').textContent()).toBe(`${before + 2} inside`);
    await page.close();
  }, 60_000);

  it('the screen keyboard has . , \' and /, keeps "12B" as typed and does not capitalise notes word by word', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
    await page.getByTestId('nav-walkIn').click();
    const tap = async (keys: string) => {
      for (const key of keys) await page.click(`.keyboard [data-key="${key}"]`);
    };
    await page.locator('input[name=hostUserId]').click();
    await tap('12B');
    expect(await page.locator('input[name=hostUserId]').inputValue()).toBe('12B');
    await page.locator('input[name=notes]').click();
    await tap("BACK AT 5, ASK FOR O'NEIL AT 1/2.");
    expect(await page.locator('input[name=notes]').inputValue()).toBe("Back at 5, ask for o'neil at 1/2.");
    await page.close();
  }, 60_000);

  it('on a touch screen, a tapped key neither keeps focus nor stays lit', async () => {
    const context: BrowserContext = await browser.newContext({ hasTouch: true, viewport: LAPTOP });
    try {
      const page = await openKiosk(context, stack.kioskUrl, LAPTOP);
      await page.getByTestId('open-keypad').click();
      const look = (key: string) =>
        page.locator(`.keyboard [data-key="${key}"]`).evaluate((element) => {
          const style = (globalThis as any).getComputedStyle(element);
          return { background: style.backgroundColor, outline: style.outlineStyle === 'none' ? 'none' : `${style.outlineStyle} ${style.outlineColor}`, shadow: style.boxShadow };
        });
      const untouched = await look('Q');
      for (const key of ['A', 'B']) await page.locator(`.keyboard [data-key="${key}"]`).tap();
      expect(await page.getByTestId('keypad-display').textContent()).toBe('AB');
      // The first key tapped used to keep the lit look of a focused button. A key just tapped
      // is lit for a moment on purpose (\`:active\`, which Chromium holds at least 0.15 s after a
      // tap so the guard sees it); on a busy machine that moment can outlast the tap call, so
      // each key is given a few seconds to go dark, not forever.
      await expect.poll(() => look('A'), { timeout: 5_000 }).toEqual(untouched);
      await expect.poll(() => look('B'), { timeout: 5_000 }).toEqual(untouched);
      expect(await page.evaluate(() => (globalThis as any).document.activeElement?.classList.contains('key') ?? false)).toBe(false);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('each guard gets back the language they chose on the rail when their shift starts again', async () => {
    const page = await openKiosk(browser, stack.kioskUrl, LAPTOP);
    const language = page.getByTestId('language');
    // The button says "Language · Harshe · Langwej" over the language on screen.
    const current = language.locator('.nav-language-current');
    const guard = page.getByTestId('change-guard');
    const startShift = async (name: string) => {
      await guard.click();
      await page.fill('input[name=guardName]', name);
      await page.getByTestId('shift-start').click();
      await page.getByTestId('nav-scan').waitFor();
      // The rail comes back before the status read that names the new guard (up to a second
      // later): a language chosen before then would be kept for the guard going off duty.
      await expect.poll(() => guard.textContent(), { timeout: 15_000 }).toContain(`: ${name}`);
    };
    const choose = async (name: string) => {
      await chooseLanguage(page, name);
      expect(await current.textContent()).toBe(name);
    };
    await startShift('Aisha Musa');
    await choose('Hausa');
    await startShift('Musa Bello');
    await choose('English');
    await startShift('Aisha Musa');
    await expect.poll(() => current.textContent(), { timeout: 15_000 }).toBe('Hausa');
    await startShift('Musa Bello');
    await expect.poll(() => current.textContent(), { timeout: 15_000 }).toBe('English');
    await page.close();
  }, 60_000);
});

describe.skipIf(!process.env.TSARO_TEST_CHROMIUM)('first-run setup tells the installer what to fix (real Chromium)', () => {
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    stack = await startKioskStack({ name: 'setup-hints', configured: false });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a bare http://host:port marks the server field and says to add /v1/external; an admin key marks the key field', async () => {
    const page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(stack.kioskUrl);
    await page.getByTestId('setup-save').waitFor();
    const bare = stack.serverUrl.replace(/\/v1\/external\/?$/, '').replace(/\/$/, '');
    await page.fill('input[name=serverUrl]', bare);
    await page.fill('input[name=apiKey]', stack.gateKey);
    await page.fill('input[name=entryPoint]', 'Gate A');
    await page.fill('input[name=latitude]', '6.4281');
    await page.fill('input[name=longitude]', '3.4219');
    await page.getByTestId('setup-save').click();
    await page.getByTestId('setup-error').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('setup-error').textContent()).toContain('Fix what is marked');
    expect(await page.locator('input[name=serverUrl]').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('input[name=apiKey]').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('.setup-checks').textContent()).toContain(`${bare}/v1/external`);

    await page.fill('input[name=serverUrl]', stack.serverUrl);
    await page.fill('input[name=apiKey]', stack.org.keys.live);
    await page.getByTestId('setup-save').click();
    await expect.poll(() => page.locator('input[name=apiKey]').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    expect(await page.locator('input[name=serverUrl]').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('.setup-checks').textContent()).toContain('admin');
    await page.close();
  }, 60_000);
});
