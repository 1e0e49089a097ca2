import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { KioskCallInput, KioskCallName, KioskCallResult } from '../../../shared/kiosk/calls.ts';
import { KIOSK_CALL_PATH } from '../../../shared/kiosk/client.ts';

export const SMALL = { width: 1024, height: 600 };
export const LARGE = { width: 1920, height: 1080 };
export const LAPTOP = { width: 1280, height: 800 };
/** An 800x1280 tablet held upright. */
export const PORTRAIT = { width: 800, height: 1280 };

/** Opens the kiosk and, on a kiosk that is set up, starts a shift for the guard. */
export async function openKiosk(browser: Browser | BrowserContext, url: string, viewport = SMALL, guardName = 'Sani Abubakar'): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  const shift = page.getByTestId('shift-start');
  const scan = page.getByTestId('nav-scan');
  await expect.poll(async () => (await shift.isVisible()) || (await scan.isVisible()), { timeout: 15_000 }).toBe(true);
  if (await shift.isVisible()) {
    await page.fill('input[name=guardName]', guardName);
    await shift.click();
    await scan.waitFor();
  }
  return page;
}

/**
 * What a USB scanner does: the text as real keystrokes 4 ms apart, then Enter. Each key carries
 * the moment it happened, as a device's key events do, and they go down the DevTools protocol
 * all at once rather than one round trip each (as `keyboard.type` does): a busy test machine
 * may deliver them late or in clumps, as a busy kiosk would, but cannot space them out like a
 * person's typing.
 */
export async function wedgeScan(page: Page, text: string): Promise<void> {
  const session = await page.context().newCDPSession(page);
  const sent: Promise<unknown>[] = [];
  const start = Date.now() / 1000;
  const keys = [...text];
  keys.forEach((character, index) => {
    const timestamp = start + index * 0.004;
    sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyDown', key: character, text: character, unmodifiedText: character, timestamp }));
    sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyUp', key: character, timestamp: timestamp + 0.001 }));
  });
  const enter = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13, timestamp: start + keys.length * 0.004 };
  sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyDown', ...enter, text: '\r', unmodifiedText: '\r' }));
  sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyUp', ...enter }));
  await Promise.all(sent);
  await session.detach();
}

/** A call on the kiosk's handler map, as the page makes it: for a test to read the core's state. */
export async function kioskCall<N extends KioskCallName>(stack: { kioskUrl: string }, name: N, input: KioskCallInput<N>): Promise<KioskCallResult<N>> {
  const response = await fetch(new URL(`${KIOSK_CALL_PATH}${name}`, stack.kioskUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { result: KioskCallResult<N> };
  if (!response.ok) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result;
}

const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '../../../docs/screenshots');

/**
 * Keeps a screenshot of what the guard sees in the test's folder (test-artifacts/ui/...). With
 * TSARO_UPDATE_SCREENSHOTS=1 the 1024x600 ones of `readme` screens also replace the README's,
 * in docs/screenshots.
 */
export async function keepScreenshot(page: Page, dir: string, name: string, readme = false): Promise<void> {
  const viewport = page.viewportSize();
  const size = viewport ? `${viewport.width}x${viewport.height}` : 'page';
  const image = await page.screenshot({ path: join(dir, `${name}-${size}.png`) });
  if (readme && process.env.TSARO_UPDATE_SCREENSHOTS === '1' && viewport?.width === SMALL.width && viewport.height === SMALL.height) {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    writeFileSync(join(DOCS_SCREENSHOTS, `${name}.png`), image);
  }
}

/** Presses the panic button with a finger (the mouse here) and lets go once `until` has settled. */
export async function pressPanicButton(page: Page, until: () => Promise<unknown>): Promise<void> {
  const box = (await page.locator('.panic-button').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  try {
    await until();
  } finally {
    await page.mouse.up();
  }
}

/**
 * Holds the panic button down (the mouse as a finger) until its fill is full, then lets go, and
 * says how long it was held before it went full, by the page's own clock. Full shows as
 * data-state="done" for only 0.8 s before the button goes back to idle (renderer
 * hold-button.tsx), and Playwright's own waits look from the test process, every half second at
 * worst on top of the round trips: so the page watches for it itself, from before the press,
 * and keeps what it saw.
 */
export async function holdPanicButton(page: Page, timeout = 15_000): Promise<{ heldMs: number }> {
  const button = page.locator('.panic-button');
  await button.evaluate((element) => {
    const win = globalThis as any;
    const seen: { downAt: number | null; doneAt: number | null } = { downAt: null, doneAt: null };
    win.panicHold = seen;
    element.addEventListener('pointerdown', () => (seen.downAt ??= Date.now()), { capture: true, once: true });
    const observer = new win.MutationObserver(() => {
      if (win.document.querySelector('.panic-button[data-state="done"]')) {
        seen.doneAt = Date.now();
        observer.disconnect();
      }
    });
    observer.observe(win.document.body, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
  });
  await pressPanicButton(page, () => page.waitForFunction(() => (globalThis as any).panicHold.doneAt !== null, undefined, { polling: 100, timeout }));
  const { downAt, doneAt } = await page.evaluate(() => (globalThis as any).panicHold as { downAt: number; doneAt: number });
  return { heldMs: doneAt - downAt };
}

/**
 * Puts the answer to a scan away as the guard does, with its "Next visitor" button. The answer
 * also goes by itself (4 s admitted, 6 s refused: renderer result-overlay.tsx), so after slow
 * work (screenshots, other sizes, calls to the server) on a busy machine it may be gone before
 * the tap, and a plain click would wait its 30 s for a button that is not coming back. Either
 * way the answer is gone, and the screen under it back, when this returns; a tap that fails
 * while the answer is still up fails the test.
 */
export async function dismissAnswer(page: Page): Promise<void> {
  const answer = page.locator('.result');
  if (await answer.count()) {
    try {
      await answer.locator('.result-next').click({ timeout: 5_000 });
    } catch (error) {
      if (await answer.count()) throw error;
    }
  }
  await answer.waitFor({ state: 'detached', timeout: 10_000 });
}

/**
 * Picks a language as a guard does: the rail's language button opens the list of all of them,
 * each in its own name, and one tap on a name picks it (the list closes).
 */
export async function chooseLanguage(page: Page, name: string): Promise<void> {
  const rail = page.getByTestId('language');
  if ((await rail.locator('.nav-language-current').textContent()) === name) return;
  await rail.click();
  const choices = page.getByTestId('language-choices');
  await choices.locator('button[data-language]').filter({ hasText: name }).click();
  await choices.waitFor({ state: 'detached' });
  await expect.poll(() => rail.locator('.nav-language-current').textContent()).toBe(name);
}

/**
 * Where an element is on the screen as a finger finds it: its box wholly inside the viewport, and
 * its middle not covered or clipped away (the topmost element there is it or inside it). A box
 * inside the viewport can still be scrolled out of its list, or hidden under a banner.
 */
export async function reachable(locator: Locator): Promise<{ inViewport: boolean; onTop: boolean; box: string }> {
  return locator.evaluate((element: any) => {
    const win = globalThis as any;
    const rect = element.getBoundingClientRect();
    const inViewport = rect.width > 0 && rect.height > 0 && rect.left >= 0 && rect.top >= 0 && rect.right <= win.innerWidth && rect.bottom <= win.innerHeight;
    const top = win.document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return { inViewport, onTop: Boolean(top && element.contains(top)), box: `${Math.round(rect.left)},${Math.round(rect.top)} ${Math.round(rect.width)}x${Math.round(rect.height)}` };
  });
}
