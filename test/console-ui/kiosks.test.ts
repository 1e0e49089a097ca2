import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleAppBuilt } from '../../console/build.ts';
import { launchChromium } from '../ui/support/browser.ts';
import { ensureRendererBuilt } from '../ui/support/build-renderer.ts';
import { GATE, startKioskStack, type KioskStack } from '../ui/support/kiosk-stack.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';

/**
 * Issue #28's kiosks, end to end: a real gate kiosk (`npm run kiosk:web`, its core sending a
 * heartbeat every KIOSK_HEARTBEAT_S) shows online in the console; switched off, it goes offline
 * after KIOSK_OFFLINE_AFTER_S, as a `kiosk.offline` event the console hears on its stream, on
 * the kiosks screen and on the board, without a reload.
 */
let stack: KioskStack;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  await Promise.all([ensureRendererBuilt(), ensureConsoleAppBuilt()]);
  stack = await startKioskStack({
    name: 'console-kiosks',
    env: { KIOSK_HEARTBEAT_S: '5' },
    serverConfig: { KIOSK_OFFLINE_AFTER_S: '8', SWEEP_INTERVAL_S: '1' },
  });
  browser = await launchChromium();
  const context = await browser.newContext({ baseURL: new URL(stack.serverUrl).origin, viewport: { width: 1366, height: 768 }, timezoneId: 'UTC', locale: 'en-GB' });
  page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  const link = await inviteFromHost(stack.server, stack.org.organizationId, 'operator', 'kemi@admiralty.ng');
  await joinInBrowser(page, stack.server, link, { email: 'kemi@admiralty.ng', name: 'Kemi Adeyemi', role: 'operator' });
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("a gate's kiosk in the console (real kiosk host, real server, Chromium)", () => {
  it('shows online by its heartbeat, with its gate, version, queue and clock', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Kiosks', exact: true }).click();
    const row = page.locator('[data-testid=kiosk-row][data-status=online]');
    await row.waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain(GATE.entryPoint);
    expect(await row.textContent()).toMatch(/0\.\d+\.\d+/);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('on a tablet held upright (768 px) the row keeps Rename and Retire in view', async () => {
    await page.setViewportSize({ width: 768, height: 1024 });
    try {
      const row = page.locator('[data-testid=kiosk-row]').first();
      for (const name of ['Rename', 'Retire']) {
        const box = (await row.getByRole('button', { name }).boundingBox())!;
        expect({ name, inView: box.x >= 0 && box.x + box.width <= 768 }).toEqual({ name, inView: true });
      }
    } finally {
      await page.setViewportSize({ width: 1366, height: 768 });
    }
  });

  it('goes offline when the kiosk stops, heard as kiosk.offline on the stream: on the kiosks screen and the board, without a reload', async () => {
    await page.evaluate('window.__sameDocument = true');
    await stack.stopHost();
    const stoppedAt = Date.now();
    await page.locator('[data-testid=kiosk-row][data-status=offline]').waitFor({ timeout: 30_000 });
    // Offline no sooner than KIOSK_OFFLINE_AFTER_S after its last heartbeat (at most 5 s before the stop).
    expect(Date.now() - stoppedAt).toBeGreaterThan(3_000);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Live board', exact: true }).click();
    await page.getByTestId('kiosks-offline').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('kiosks-offline').textContent()).toContain(GATE.entryPoint);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    const events = (await stack.api.get('/events?type=kiosk.offline')).body.results as { type: string }[];
    expect(events.map((event) => event.type)).toEqual(['kiosk.offline']);
  });

  it('a kiosk whose clock battery died (its clock says 1970) is shown so many years behind, in red (issue #46)', async () => {
    const kioskId = 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9DB';
    const clock = '1970-01-01T00:00:00.000Z';
    const body = { entry_point: 'Gate B', app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock };
    expect((await stack.api.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body })).status).toBe(200);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Kiosks', exact: true }).click();
    const cell = page.locator(`[data-testid=kiosk-row][data-kiosk-id=${kioskId}] [data-testid=kiosk-clock]`);
    await cell.waitFor({ timeout: 10_000 });
    const years = Math.round(Date.now() / (365.25 * 24 * 3600 * 1000));
    expect((await cell.textContent())?.trim()).toBe(`${years} years behind`);
    expect(await cell.getAttribute('class')).toBe('tone-bad');
  });

  it('logs no error but the signed-out session check before joining', () => {
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
