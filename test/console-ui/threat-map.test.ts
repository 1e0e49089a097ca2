import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importThreatFile } from '../../server/threat/import.ts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { SCREENSHOTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #28's threat map over the shipped event data (THREAT_SEED): by default it shows the
 * data's own last window, not an empty "last 90 days"; a click scores a place, two clicks a
 * route; and the whole map, borders included, comes from the console's own origin.
 */
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let problems: string[];
const outside: string[] = [];

beforeAll(async () => {
  stack = await startConsoleStack('threat-map', { config: { THREAT_SEED: '1' } });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  ({ page, problems } = await stack.open());
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(stack.origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
  });
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@lekkishield.ng');
  await joinInBrowser(page, stack.server, link, { email: 'kemi@lekkishield.ng', name: 'Kemi Adeyemi', role: 'operator' });
  await page.getByRole('navigation').getByRole('link', { name: 'Threat map', exact: true }).click();
  await page.getByTestId('screen-threat-map').waitFor();
}, 120_000);
afterAll(() => stack?.stop());

describe('the threat map (real Chromium, real server, shipped data)', () => {
  it("opens on the data's own last 90 days over Nigeria, with its date and sources in view, never empty", async () => {
    const { through } = (await org.live.get('/threat/coverage')).body.countries.find((country: { country: string }) => country.country === 'NG');
    await expect.poll(() => page.getByTestId('data-through').textContent(), { timeout: 15_000 }).toBe(`The data runs through ${through}.`);
    expect(await page.getByTestId('map-until').inputValue()).toBe(through);
    await expect.poll(() => page.getByTestId('map-counts').textContent(), { timeout: 15_000 }).toMatch(/^[1-9]\d* events in [1-9]\d* places/);
    // The partner's own incidents in progress are on it too, as they happen.
    expect((await org.live.post('/incidents', incidentBody())).status).toBe(201);
    await expect.poll(() => page.getByTestId('map-counts').textContent(), { timeout: 10_000 }).toContain('1 of your incidents in progress');
    const attribution = await page.locator('.leaflet-control-attribution').textContent();
    expect(attribution).toContain('Natural Earth');
    expect(attribution).toContain('UCDP');
    // docs/console.md's picture, rewritten only when asked (npm test leaves the tree as it was).
    if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'threat-map-desktop.png') });
  });

  it('one click scores a place; in route mode two clicks check a route with its checkpoints', async () => {
    const map = page.getByTestId('threat-map').locator('.leaflet-container');
    const box = (await map.boundingBox())!;
    await map.click({ position: { x: box.width / 2, y: box.height / 2 } });
    await page.getByTestId('score-popup').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('score-popup').textContent()).toMatch(/^Safety \d{1,3}\/100/);

    await page.getByTestId('mode-route').click();
    await map.click({ position: { x: box.width * 0.4, y: box.height * 0.4 } });
    await map.click({ position: { x: box.width * 0.6, y: box.height * 0.6 } });
    const route = page.getByTestId('route-result');
    await route.waitFor({ timeout: 10_000 });
    expect(await route.textContent()).toMatch(/Route: \d{1,3}\/100 over \d+\.\d km/);
    expect(await route.locator('li').count()).toBe(10);
  });

  it('a shorter window ending earlier asks the heat map for exactly that window', async () => {
    const asked = page.waitForRequest((request) => request.url().includes('/danger-zones/heatmap') && request.url().includes('days=30'));
    await page.getByTestId('map-days').selectOption('30');
    const url = new URL((await asked).url());
    expect(url.searchParams.get('until')).toMatch(/^\d{4}-\d{2}-\d{2}T23:59:59Z$/);
  });

  it('opens without an error when the data runs through today (issue #48): the window ends now, not at midnight ahead', async () => {
    const today = stack.server.clock.now().toISOString().slice(0, 10);
    const file = join(mkdtempSync(join(tmpdir(), 'tsaro-today-')), 'today.csv');
    writeFileSync(file, ['id,date,latitude,longitude,type,confidence,fatalities,place', `t1,${today},6.4474,3.4739,crime,1,0,Lekki`].join('\n'));
    await importThreatFile(stack.server.running.database.db, stack.server.clock, 'community', file);
    await stack.server.running.refreshThreatIndex();
    const asked = page.waitForRequest((request) => request.url().includes('/danger-zones/heatmap'));
    const answered = page.waitForResponse((response) => response.url().includes('/danger-zones/heatmap'));
    await page.reload();
    await expect.poll(() => page.getByTestId('data-through').textContent(), { timeout: 15_000 }).toBe(`The data runs through ${today}.`);
    expect(await page.getByTestId('map-until').inputValue()).toBe(today);
    expect(new URL((await asked).url()).searchParams.get('until')).toBeNull();
    expect((await answered).status()).toBe(200);
    await expect.poll(() => page.getByTestId('map-counts').textContent(), { timeout: 15_000 }).toMatch(/^[1-9]\d* events in [1-9]\d* places/);
    expect(await page.getByTestId('screen-threat-map').getByRole('alert').count()).toBe(0);
  });

  it('axe-core finds no serious or critical fault on the map', async () => {
    expect(await axeViolations(page)).toEqual([]);
  });

  it('made no request outside the console origin, logged no error, and the CSP refused nothing', () => {
    expect(outside).toEqual([]);
    // The signed-out session check before joining answers 401: the API's word, not a fault.
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
