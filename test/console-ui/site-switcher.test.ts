import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * The console by site (issue #34): two estates with incidents, codes, visits and kiosks at each,
 * made through the real API. Choosing one shows only its things, each list read from the server
 * with its `site_id` (the requests are watched, so a filter done only in the browser fails), and
 * every board card names its site with the numbers to call; "All sites" shows both again, and the
 * choice survives a reload.
 */
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let problems: string[];
/** Every GET the console sent to the API since the test began watching. */
const reads: URL[] = [];

const OWNER = 'amina@lekkishield.ng';
let home: { site_id: string; name: string };
let admiralty: { site_id: string; name: string };
/** What was made at each site: incident ids, code visitors, walk-ins, kiosk ids. */
const at = {
  home: { incident: '', visitor: 'Chinedu Okafor', walkIn: 'DHL courier', kiosk: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9A1' },
  admiralty: { incident: '', visitor: 'Halima Yusuf', walkIn: 'Jumia rider', kiosk: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9A2' },
};
const ADMIRALTY_NUMBERS = ['tel:+2348057654321', 'tel:+2349090001122'];
const HOME_NUMBERS = ['tel:+2348031234567'];

const card = (incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
const numbers = (scope: ReturnType<Page['locator']>, testId: string) =>
  scope.getByTestId(testId).locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
const switcher = () => page.getByTestId('site-switch');

async function openScreen(label: string, testId: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByTestId(testId).waitFor();
}

/** The API reads of `path` (exactly, no sub-path) sent since `from`, with the site each asked for. */
const sitesAsked = (path: string, from: number) =>
  reads
    .slice(from)
    .filter((url) => url.pathname === `/v1/external${path}`)
    .map((url) => url.searchParams.get('site_id'));

/** A kiosk's heartbeat as a gate sends it, naming its site. */
const heartbeat = (kioskId: string, entryPoint: string, siteId: string) =>
  org.live.request('PUT', `/kiosks/${kioskId}/heartbeat`, {
    body: {
      entry_point: entryPoint,
      app_version: '0.1.0',
      queued_operations: 0,
      oldest_queued_at: null,
      last_sync_at: new Date().toISOString(),
      needs_attention: 0,
      clock: new Date().toISOString(),
      site_id: siteId,
    },
    headers: { 'idempotency-key': `beat-${kioskId}` },
  });

beforeAll(async () => {
  // The shipped threat data: the map asks for its heat only once it knows how current the data is.
  stack = await startConsoleStack('site-switcher', { config: { THREAT_SEED: '1' } });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  home = (await org.live.get('/sites')).body.results[0];
  expect((await org.live.patch(`/sites/${home.site_id}`, { call_list: [{ name: 'Estate control', phone: '0803 123 4567' }]})).status).toBe(200);
  const created = await org.live.post('/sites', {
    name: 'Admiralty Estate',
    entry_points: ['Admiralty gate'],
    location: { latitude: 6.4474, longitude: 3.4703 },
    call_list: [
      { name: 'Admiralty control', phone: '0805 765 4321' },
      { name: 'Police', phone: '0909 000 1122' },
    ],
  });
  expect(created.status).toBe(201);
  admiralty = created.body.site;

  for (const [where, site, gate] of [
    ['home', home, 'Main gate'],
    ['admiralty', admiralty, 'Admiralty gate'],
  ] as const) {
    const incident = await org.live.post('/incidents', incidentBody({ site_id: site.site_id, title: `SOS at ${site.name}`, subject: { name: `Resident of ${site.name}` } }));
    expect(incident.status).toBe(201);
    at[where].incident = incident.body.incident.incident_id;
    expect((await org.live.post('/access-codes', { visitor_name: at[where].visitor, visitor_phone: '+2348031112233', site_id: site.site_id })).status).toBe(201);
    expect((await org.live.post('/access-logs', { visitor_name: at[where].walkIn, visitor_phone: '+2348060000000', entry_point: gate, site_id: site.site_id, recorded_by: 'Sani' })).status).toBe(201);
    expect((await heartbeat(at[where].kiosk, gate, site.site_id)).status).toBe(200);
  }

  ({ page, problems } = await stack.open());
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname.startsWith('/v1/external/')) reads.push(url);
  });
  const link = await inviteFromHost(stack.server, org.organizationId, 'owner', OWNER);
  await joinInBrowser(page, stack.server, link, { email: OWNER, name: 'Amina Bello', role: 'owner' });
  await openScreen('Live board', 'screen-board');
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
}, 120_000);
afterAll(() => stack?.stop());

describe('the console by site (issue #34, Chromium, real server)', () => {
  it('shows every site at first; each card names its site and its call list, to tap', async () => {
    expect(await switcher().inputValue()).toBe('');
    expect(await switcher().locator('option').allTextContents()).toEqual(['All sites', 'Lekki Shield Estates', 'Admiralty Estate']);
    await card(at.home.incident).waitFor({ timeout: 10_000 });
    await card(at.admiralty.incident).waitFor();
    // By the incident's site_id: its title names no gate, and no entry point would find it.
    expect(await card(at.admiralty.incident).getByTestId('card-site').locator('strong').textContent()).toBe('Admiralty Estate');
    expect(await numbers(card(at.admiralty.incident), 'card-call-list')).toEqual(ADMIRALTY_NUMBERS);
    expect(await numbers(card(at.home.incident), 'card-call-list')).toEqual(HOME_NUMBERS);
    expect(await axeViolations(page)).toEqual([]);
  });

  it("choosing Admiralty shows only its incidents, read with its site_id; another site's new SOS stays off the board", async () => {
    const from = reads.length;
    await switcher().selectOption({ label: 'Admiralty Estate' });
    await card(at.home.incident).waitFor({ state: 'detached', timeout: 5_000 });
    await card(at.admiralty.incident).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Admiralty Estate');
    expect(await numbers(card(at.admiralty.incident), 'card-call-list')).toEqual(ADMIRALTY_NUMBERS);
    // The board asked the server for Admiralty's incidents (active, resolved, cancelled), and for no other site's.
    await expect.poll(() => sitesAsked('/incidents', from).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    expect(new Set(sitesAsked('/incidents', from))).toEqual(new Set([admiralty.site_id]));

    // Live: the stream carries every site's events; the board shows the chosen site's only.
    const elsewhere = (await org.live.post('/incidents', incidentBody({ site_id: home.site_id, title: 'Later SOS at home' }))).body.incident.incident_id;
    const here = (await org.live.post('/incidents', incidentBody({ site_id: admiralty.site_id, title: 'Later SOS at Admiralty' }))).body.incident.incident_id;
    // Events arrive in order: once the later one is shown, the earlier one was heard and left out.
    await card(here).waitFor({ timeout: 5_000 });
    expect(await card(elsewhere).count()).toBe(0);
    expect(await page.getByTestId('incident-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-incident-id')))).not.toContain(at.home.incident);
    await page.screenshot({ path: join(ARTIFACTS, 'site-switcher', 'board-one-site-desktop.png') });
  });

  it("the incident page names the incident's site and its numbers", async () => {
    await card(at.admiralty.incident).locator('.card-title').click();
    await page.getByTestId('screen-incident').waitFor();
    expect(await page.getByTestId('incident-site').locator('strong').textContent()).toBe('Admiralty Estate');
    expect(await numbers(page.locator('main'), 'incident-call-list')).toEqual(ADMIRALTY_NUMBERS);
    await page.screenshot({ path: join(ARTIFACTS, 'site-switcher', 'incident-desktop.png') });
  });

  it("codes, on site now, access logs and kiosks show only Admiralty's, each read with its site_id", async () => {
    const from = reads.length;
    await openScreen('Visitors', 'screen-visitors');
    await page.getByTestId('visitor-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('visitor-row').allTextContents()).toEqual([expect.stringContaining(at.admiralty.walkIn)]);

    await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Access codes' }).click();
    await page.getByTestId('code-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('code-row').allTextContents()).toEqual([expect.stringContaining(at.admiralty.visitor)]);
    // A code issued here is Admiralty's.
    await page.getByTestId('issue-one').click();
    const form = page.getByTestId('issue-one-form');
    expect(await form.getByTestId('new-for-site').textContent()).toContain('Admiralty Estate');
    await form.getByLabel("Visitor's name").fill('Tolu Ogun');
    await form.getByLabel('Phone').fill('+2348057778888');
    await form.getByRole('button', { name: 'Issue the code' }).click();
    // The pass opens to print; closed, the list is back.
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByTestId('code-row').filter({ hasText: 'Tolu Ogun' }).waitFor({ timeout: 5_000 });
    const issued = (await org.live.get(`/access-codes?search=${encodeURIComponent('Tolu Ogun')}`)).body.results;
    expect(issued.map((code: { site_id: string }) => code.site_id)).toEqual([admiralty.site_id]);

    await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Access logs' }).click();
    await page.getByTestId('log-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('log-row').allTextContents()).toEqual([expect.stringContaining(at.admiralty.walkIn)]);

    await openScreen('Kiosks', 'screen-kiosks');
    await page.getByTestId('kiosk-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('kiosk-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kiosk-id')))).toEqual([at.admiralty.kiosk]);

    for (const path of ['/access-logs', '/access-codes', '/kiosks']) expect({ path, sites: new Set(sitesAsked(path, from)) }).toEqual({ path, sites: new Set([admiralty.site_id]) });
  });

  it("a roll call taken now is Admiralty's: its visitors only", async () => {
    await openScreen('Visitors', 'screen-visitors');
    await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Roll call' }).click();
    await page.getByTestId('start-roll-call').click();
    await page.getByTestId('roll-call').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('roll-call').locator('h2').textContent()).toContain('Admiralty Estate');
    expect(await page.getByTestId('roll-entry').allTextContents()).toEqual([expect.stringContaining(at.admiralty.walkIn)]);
    const rolls = (await org.live.get('/roll-calls')).body.results as { site_id: string | null }[];
    expect(rolls.map((roll) => roll.site_id)).toEqual([admiralty.site_id]);
  });

  it("the threat map opens on Admiralty's position, with its incidents in progress", async () => {
    const from = reads.length;
    await openScreen('Threat map', 'screen-threat-map');
    // The heat map is asked for what the map shows: a few streets around the estate, not Nigeria.
    const box = async () => {
      const asked = reads.slice(from).filter((url) => url.pathname === '/v1/external/danger-zones/heatmap').at(-1);
      return asked?.searchParams.get('bounds')?.split(',').map(Number) ?? null;
    };
    await expect.poll(box, { timeout: 10_000 }).not.toBeNull();
    const [south, west, north, east] = (await box())!;
    expect({ south: south! < 6.4474, north: north! > 6.4474, west: west! < 3.4703, east: east! > 3.4703, small: north! - south! < 0.5 }).toEqual({
      south: true,
      north: true,
      west: true,
      east: true,
      small: true,
    });
    expect(new Set(sitesAsked('/incidents', from))).toEqual(new Set([admiralty.site_id]));
  });

  it('the choice survives a reload; "All sites" shows both again', async () => {
    await openScreen('Live board', 'screen-board');
    await page.reload();
    await page.getByTestId('screen-board').waitFor();
    expect(await switcher().inputValue()).toBe(admiralty.site_id);
    await card(at.admiralty.incident).waitFor({ timeout: 5_000 });
    expect(await card(at.home.incident).count()).toBe(0);

    const from = reads.length;
    await switcher().selectOption({ label: 'All sites' });
    await card(at.home.incident).waitFor({ timeout: 5_000 });
    await card(at.admiralty.incident).waitFor();
    await expect.poll(() => sitesAsked('/incidents', from).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    expect(new Set(sitesAsked('/incidents', from))).toEqual(new Set([null]));
    await openScreen('Visitors', 'screen-visitors');
    await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Access codes' }).click();
    await expect.poll(() => page.getByTestId('code-row').count(), { timeout: 5_000 }).toBe(3);
    // With every site shown, each code says whose it is.
    expect(await page.getByTestId('code-row').filter({ hasText: at.home.visitor }).textContent()).toContain('Lekki Shield Estates');
  });

  it('a saved choice that is no longer offered (an archived site) falls back to all sites', async () => {
    const old = (await org.live.post('/sites', { name: 'Old Ikoyi Estate' })).body.site;
    await page.reload();
    await switcher().selectOption({ label: 'Old Ikoyi Estate' });
    expect((await org.live.post(`/sites/${old.site_id}/archive`, {})).status).toBe(200);
    await page.reload();
    await page.getByTestId('screen-visitors').waitFor();
    expect(await switcher().inputValue()).toBe('');
    expect(await switcher().locator('option').allTextContents()).not.toContain('Old Ikoyi Estate');
  });

  it('on a tablet held upright (768 px) the switcher, every screen of the navigation and Sign out stay in view', async () => {
    await page.setViewportSize({ width: 768, height: 1024 });
    const switchBox = (await switcher().boundingBox())!;
    expect(switchBox.x + switchBox.width).toBeLessThanOrEqual(768);
    for (const link of await page.getByRole('navigation', { name: 'Console' }).getByRole('link').all()) {
      const box = (await link.boundingBox())!;
      expect({ name: await link.textContent(), inView: box.x + box.width <= 768 }).toEqual({ name: await link.textContent(), inView: true });
    }
    const name = (await page.locator('.topbar .who > span').first().boundingBox())!;
    const signOut = (await page.getByRole('button', { name: 'Sign out' }).boundingBox())!;
    expect(Math.abs(signOut.y + signOut.height / 2 - (name.y + name.height / 2))).toBeLessThan(8);
    await page.screenshot({ path: join(ARTIFACTS, 'site-switcher', 'frame-tablet-portrait.png') });
    await page.setViewportSize({ width: 1366, height: 768 });
  });

  it('logs no error and nothing the Content-Security-Policy refused (the signed-out session check before joining is a 401)', () => {
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
