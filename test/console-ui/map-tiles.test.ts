import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { SCREENSHOTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Streets where the operator has them (issue #48): a folder of z/x/y.png tiles
 * (CONSOLE_TILE_DIR), served by Tsaro on the console's own origin and drawn under the maps'
 * markers, with the shipped land and borders wherever the folder has no tile. The tiles are
 * drawn here with pngjs: magenta squares over the middle of Nigeria at zoom 6, where the
 * threat map opens, and nothing around them.
 */
const MAGENTA = [0xff, 0x00, 0xff] as const;
/** The shipped land's fill (console/src/map/base-map.tsx). */
const LAND = [0xf8, 0xfa, 0xfc] as const;
const DRAWN = { z: 6, xs: [32, 33], ys: [29, 30, 31] };

function tileFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsaro-tiles-'));
  for (const x of DRAWN.xs) {
    mkdirSync(join(dir, String(DRAWN.z), String(x)), { recursive: true });
    for (const y of DRAWN.ys) {
      const png = new PNG({ width: 256, height: 256 });
      for (let i = 0; i < png.data.length; i += 4) [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]] = [...MAGENTA, 0xff];
      writeFileSync(join(dir, String(DRAWN.z), String(x), `${y}.png`), PNG.sync.write(png));
    }
  }
  return dir;
}

/** The pixels of the map of one colour (give or take a little antialiasing). */
async function pixelsOf(page: Page, colour: readonly number[]): Promise<number> {
  const png = PNG.sync.read(await page.getByTestId('threat-map').locator('.leaflet-container').screenshot());
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (Math.abs(png.data[i]! - colour[0]!) < 6 && Math.abs(png.data[i + 1]! - colour[1]!) < 6 && Math.abs(png.data[i + 2]! - colour[2]!) < 6) count++;
  }
  return count;
}

let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let problems: string[];
const outside: string[] = [];
const tileAnswers: Array<{ path: string; status: number }> = [];

beforeAll(async () => {
  stack = await startConsoleStack('map-tiles', { config: { CONSOLE_TILE_DIR: tileFolder(), CONSOLE_TILE_ATTRIBUTION: 'Streets: Lekki Shield survey' } });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  ({ page, problems } = await stack.open());
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(stack.origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
  });
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (path.startsWith('/console/tiles/')) tileAnswers.push({ path, status: response.status() });
  });
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@lekkishield.ng');
  await joinInBrowser(page, stack.server, link, { email: 'kemi@lekkishield.ng', name: 'Kemi Adeyemi', role: 'operator' });
  await page.getByRole('navigation').getByRole('link', { name: 'Threat map', exact: true }).click();
  await page.getByTestId('screen-threat-map').waitFor();
}, 120_000);
afterAll(() => stack?.stop());

describe("the operator's own street tiles (CONSOLE_TILE_DIR; real Chromium, real server)", () => {
  it('draws the folder\'s tiles from the console\'s own origin, with the shipped land where the folder has none', async () => {
    await expect.poll(() => tileAnswers.filter((answer) => answer.status === 200).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(4);
    expect(tileAnswers.every((answer) => /^\/console\/tiles\/6\/\d+\/\d+\.png$/.test(answer.path))).toBe(true);
    // The drawn tiles are on the map, and around them (no tile there) the shipped land still is.
    await expect.poll(() => pixelsOf(page, MAGENTA), { timeout: 15_000 }).toBeGreaterThan(4 * 256 * 256 * 0.5);
    expect(await pixelsOf(page, LAND)).toBeGreaterThan(10_000);
    expect(tileAnswers.some((answer) => answer.status === 404)).toBe(true);
    expect(await page.locator('.leaflet-control-attribution').textContent()).toContain('Streets: Lekki Shield survey');
    // This server has no threat data (no THREAT_SEED): the map says so and still asks for today's window, which is accepted.
    await expect.poll(() => page.getByTestId('data-through').textContent(), { timeout: 15_000 }).toBe('No threat data on this server yet.');
    await expect.poll(() => page.getByTestId('map-counts').textContent(), { timeout: 15_000 }).toMatch(/^0 events in 0 places/);
    expect(await page.getByTestId('screen-threat-map').getByRole('alert').count()).toBe(0);
    if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'threat-map-tiles-desktop.png') });
  });

  it('keeps the console to its own origin: nothing fetched elsewhere, the policy unchanged, nothing refused', async () => {
    expect(outside).toEqual([]);
    const policy = (await fetch(`${stack.origin}/console/`)).headers.get('content-security-policy');
    expect(policy).toContain("img-src 'self' data:;");
    // A tile the folder lacks is a 404 the browser logs; anything else is a fault.
    expect(problems.filter((problem) => !/status of 401/.test(problem) && !/status of 404/.test(problem))).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  });
});
