import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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
