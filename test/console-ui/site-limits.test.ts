import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_SCOPES } from '../../shared/kiosk/gate-scopes.ts';
import { joinConsole, type JoinedPerson } from '../support/console.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * People, gates, keys and endpoints limited to sites (issue #34), in Chromium against the real
 * server: an estate manager (an admin limited to Admiralty) sees Admiralty only and none of the
 * organization's people or audit log, and the gates they make are Admiralty's; an owner limits
 * someone to a site from People, and a key, a gate or an endpoint to a site; Reports and On site
 * now ask the server for the chosen site's numbers (the requests are watched).
 */
let stack: ConsoleStack;
let org: TestOrganization;
let owner: WatchedPage;
let manager: WatchedPage;
let managerPerson: JoinedPerson;
/** Every GET the owner's console sent to the API. */
const reads: URL[] = [];

const OWNER = 'amina@lekkishield.ng';
const MANAGER = 'bayo@admiralty.ng';
const GATE_SCOPE_NAMES = GATE_SCOPES.map(([scope]) => scope);
let home: { site_id: string; name: string };
let admiralty: { site_id: string; name: string };
const at = {
  home: { incident: '', visitor: 'Chinedu Okafor', walkIn: 'DHL courier' },
  admiralty: { incident: '', visitor: 'Halima Yusuf', walkIn: 'Jumia rider' },
};

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });
async function openScreen(page: Page, label: string, testId: string): Promise<void> {
  await nav(page).getByRole('link', { name: label, exact: true }).click();
  await page.getByTestId(testId).waitFor();
}
const card = (page: Page, incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
/** The sites a row names: "Every site", or each site's name. */
const sitesOf = (row: ReturnType<Page['locator']>) =>
  row
    .getByTestId('sites-of')
    .evaluate((element) => (element.tagName === 'UL' ? [...element.querySelectorAll('li')].map((li) => li.textContent) : [element.textContent]));
/** The API reads of `path` (exactly) sent since `from`, with the site each asked for. */
const sitesAsked = (path: string, from: number) =>
  reads
    .slice(from)
    .filter((url) => url.pathname === `/v1/external${path}`)
    .map((url) => url.searchParams.get('site_id'));
/** The organization's active keys, through the owner's own key. */
const keyNamed = async (name: string) =>
  ((await org.live.get('/api-keys?status=active&limit=100')).body.results as { name: string; site_ids: string[] | null }[]).find((key) => key.name === name);

async function makeGate(page: Page, name: string, entryPoint: string): Promise<string | null> {
  await openScreen(page, 'Gates', 'screen-gates');
  await page.getByTestId('new-gate-button').click();
  const form = page.getByTestId('new-gate');
  const forSite = form.getByTestId('new-for-site');
  const said = (await forSite.count()) ? await forSite.locator('strong').textContent() : null;
  await form.getByLabel('Gate name').fill(name);
  await form.getByLabel('Entry point').fill(entryPoint);
  await form.getByLabel('Location (latitude, longitude)').fill('6.4474, 3.4703');
  await form.getByRole('button', { name: 'Create gate key' }).click();
  await page.getByTestId('gate-setup').waitFor();
  return said;
}

beforeAll(async () => {
  stack = await startConsoleStack('site-limits');
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  home = (await org.live.get('/sites')).body.results[0];
  const created = await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['Admiralty gate'] });
  expect(created.status).toBe(201);
  admiralty = created.body.site;
  for (const [where, site, gate] of [
    ['home', home, 'Main gate'],
    ['admiralty', admiralty, 'Admiralty gate'],
  ] as const) {
    const incident = await org.live.post('/incidents', incidentBody({ site_id: site.site_id, title: `SOS at ${site.name}` }));
    expect(incident.status).toBe(201);
    at[where].incident = incident.body.incident.incident_id;
    expect((await org.live.post('/access-codes', { visitor_name: at[where].visitor, visitor_phone: '+2348031112233', site_id: site.site_id })).status).toBe(201);
    expect((await org.live.post('/access-logs', { visitor_name: at[where].walkIn, visitor_phone: '+2348060000000', entry_point: gate, site_id: site.site_id, recorded_by: 'Sani' })).status).toBe(201);
  }

  owner = await stack.open();
  owner.page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname.startsWith('/v1/external/')) reads.push(url);
  });
  await joinInBrowser(owner.page, stack.server, await inviteFromHost(stack.server, org.organizationId, 'owner', OWNER), { email: OWNER, name: 'Amina Bello', role: 'owner' });

  // The estate manager joins as an invitation limited to Admiralty makes them; their browser carries that session.
  managerPerson = await joinConsole(stack.server, org.organizationId, 'admin', MANAGER, { siteIds: [admiralty.site_id] });
  manager = await stack.open();
  const [name, value] = managerPerson.browser.cookie!.split(/=(.*)/s) as [string, string];
  await manager.context.addCookies([{ name, value, url: stack.origin }]);
  await manager.page.goto('/console/board');
  await manager.page.getByTestId('screen-board').waitFor();
}, 120_000);
afterAll(() => stack?.stop());

describe('people, gates, keys and endpoints limited to sites (issue #34, Chromium, real server)', () => {
  it("an admin limited to Admiralty sees only its incidents and codes, is offered no People, Audit log or \"All sites\", and adds no sites", async () => {
    const { page } = manager;
    await card(page, at.admiralty.incident).waitFor({ timeout: 10_000 });
    expect(await card(page, at.home.incident).count()).toBe(0);
    // Their one site by name, never "All sites".
    expect(await page.getByTestId('site-switch').count()).toBe(0);
    expect(await page.getByTestId('site-name').textContent()).toBe('Admiralty Estate');
    // People and the audit log are the organization's: the server answers them 403.
    const links = await nav(page).getByRole('link').allTextContents();
    expect(links).toEqual(expect.arrayContaining(['Live board', 'Sites', 'Visitors', 'API keys', 'Gates']));
    expect(links).not.toContain('People');
    expect(links).not.toContain('Audit log');

    await openScreen(page, 'Visitors', 'screen-visitors');
    await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Access codes' }).click();
    await page.getByTestId('code-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('code-row').allTextContents()).toEqual([expect.stringContaining(at.admiralty.visitor)]);

    // Their own site's call list and gates, yes; adding or archiving sites, no.
    await openScreen(page, 'Sites', 'screen-sites');
    await page.getByTestId('site-row').first().waitFor();
    expect(await page.getByTestId('site-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-site-id')))).toEqual([admiralty.site_id]);
    expect(await page.getByTestId('new-site-button').count()).toBe(0);
    await page.getByTestId('site-row').getByRole('button', { name: 'Edit' }).click();
    await page.getByTestId('edit-site').waitFor();
    expect(await page.getByRole('button', { name: 'Archive site' }).count()).toBe(0);
  });

  it("a gate they make is Admiralty's: its key is limited to Admiralty, and listed as such", async () => {
    const { page } = manager;
    expect(await makeGate(page, 'Admiralty north', 'North gate')).toBe('Admiralty Estate');
    expect(await page.getByTestId('setup-site').textContent()).toContain('Admiralty Estate');
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByTestId('gate-row').filter({ hasText: 'Gate: Admiralty north' });
    await row.waitFor();
    expect(await sitesOf(row)).toEqual(['Admiralty Estate']);
    expect((await keyNamed('Gate: Admiralty north'))?.site_ids).toEqual([admiralty.site_id]);
    await page.screenshot({ path: join(ARTIFACTS, 'site-limits', 'gates-manager-desktop.png') });
  });

  it("an owner's gate made with Admiralty chosen is limited to it; Admiralty's gate list leaves out other sites' keys and notes those of every site", async () => {
    const { page } = owner;
    expect((await org.live.post('/api-keys', { name: 'Gate: Home main', scopes: GATE_SCOPE_NAMES, site_ids: [home.site_id] })).status).toBe(201);
    expect((await org.live.post('/api-keys', { name: 'Gate: Old lodge', scopes: GATE_SCOPE_NAMES })).status).toBe(201);
    await page.getByTestId('site-switch').selectOption({ label: 'Admiralty Estate' });
    expect(await makeGate(page, 'Admiralty south', 'South gate')).toBe('Admiralty Estate');
    expect((await keyNamed('Gate: Admiralty south'))?.site_ids).toEqual([admiralty.site_id]);
    await page.getByRole('button', { name: 'Done' }).click();

    const names = () => page.getByTestId('gate-row').locator('td:first-child').allTextContents();
    await expect.poll(names, { timeout: 5_000 }).toContain('Gate: Admiralty south');
    expect((await names()).sort()).toEqual(['Gate: Admiralty north', 'Gate: Admiralty south', 'Gate: Old lodge']);
    expect(await sitesOf(page.getByTestId('gate-row').filter({ hasText: 'Gate: Old lodge' }))).toEqual(['Every site']);
    expect(await page.getByTestId('every-site-note').textContent()).toContain('every site');

    await page.getByTestId('site-switch').selectOption({ label: 'All sites' });
    await expect.poll(async () => (await names()).sort(), { timeout: 5_000 }).toEqual(['Gate: Admiralty north', 'Gate: Admiralty south', 'Gate: Home main', 'Gate: Old lodge']);
  });

  it('an owner invites someone limited to Admiralty from People; the invitation lists the site', async () => {
    const { page } = owner;
    await openScreen(page, 'People', 'screen-people');
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const form = page.getByTestId('invite-form');
    await form.getByLabel('Email').fill('kemi@admiralty.ng');
    await form.getByRole('radio', { name: /^operator/ }).check();
    await form.getByRole('radio', { name: 'Only these sites' }).check();
    await form.getByRole('checkbox', { name: 'Admiralty Estate' }).check();
    // An owner reaches every site: choosing owner takes the choice away.
    await form.getByRole('radio', { name: /^owner/ }).check();
    expect(await form.getByTestId('invite-sites').count()).toBe(0);
    await form.getByRole('radio', { name: /^operator/ }).check();
    await form.getByRole('button', { name: 'Make invitation link' }).click();
    const inviteUrl = (await page.getByTestId('invite-url').textContent())!.trim();
    await page.getByRole('button', { name: 'Done' }).click();

    const row = page.getByTestId('invitation-row').filter({ hasText: 'kemi@admiralty.ng' });
    await row.waitFor();
    expect(await sitesOf(row)).toEqual(['Admiralty Estate']);
    const token = inviteUrl.split('/').pop()!;
    expect((await stack.server.client().get(`/console/invitations/${token}`)).body.invitation.site_ids).toEqual([admiralty.site_id]);
    // The people list says who reaches what: the manager Admiralty, the owner every site.
    expect(await sitesOf(page.getByTestId('person-row').filter({ hasText: MANAGER }))).toEqual(['Admiralty Estate']);
    expect(await sitesOf(page.getByTestId('person-row').filter({ hasText: OWNER }))).toEqual(['Every site']);
    await page.screenshot({ path: join(ARTIFACTS, 'site-limits', 'people-desktop.png') });
  });

  it('Reports and On site now with Admiralty chosen ask the server for its numbers (site_id)', async () => {
    const { page } = owner;
    await page.getByTestId('site-switch').selectOption({ label: 'Admiralty Estate' });
    let from = reads.length;
    await openScreen(page, 'Reports', 'screen-reports');
    await page.getByTestId('report-total').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('report-total').locator('strong').textContent()).toBe('1');
    expect(await page.getByTestId('visitors-by-gate').locator('h2').textContent()).toContain('1 in');
    expect(new Set(sitesAsked('/incidents/analytics', from))).toEqual(new Set([admiralty.site_id]));
    expect(new Set(sitesAsked('/access-logs/stats', from))).toEqual(new Set([admiralty.site_id]));

    from = reads.length;
    await openScreen(page, 'Visitors', 'screen-visitors');
    await page.getByTestId('visitor-row').first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('visitor-row').allTextContents()).toEqual([expect.stringContaining(at.admiralty.walkIn)]);
    expect(new Set(sitesAsked('/access-logs/current-visitors', from))).toEqual(new Set([admiralty.site_id]));

    from = reads.length;
    await page.getByTestId('site-switch').selectOption({ label: 'All sites' });
    await openScreen(page, 'Reports', 'screen-reports');
    await expect.poll(() => page.getByTestId('report-total').locator('strong').textContent(), { timeout: 5_000 }).toBe('2');
    expect(new Set(sitesAsked('/incidents/analytics', from))).toEqual(new Set([null]));
  });

  it('a key and a webhook endpoint made for Admiralty are limited to it and say so; an endpoint changed to every site says that', async () => {
    const { page } = owner;
    await openScreen(page, 'API keys', 'screen-keys');
    await page.getByTestId('new-key').click();
    const form = page.getByTestId('create-key');
    await form.getByLabel('Name').fill('Admiralty app');
    await form.getByRole('checkbox', { name: /^incidents:read / }).check();
    // Every site at first, for an owner.
    expect(await form.getByRole('radio', { name: /^Every site/ }).isChecked()).toBe(true);
    await form.getByRole('radio', { name: 'Only these sites' }).check();
    await form.getByRole('checkbox', { name: 'Admiralty Estate' }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('secret-once').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect((await keyNamed('Admiralty app'))?.site_ids).toEqual([admiralty.site_id]);
    expect(await sitesOf(page.getByTestId('key-row').filter({ hasText: 'Admiralty app' }))).toEqual(['Admiralty Estate']);

    await page.getByTestId('env-sandbox').click();
    await openScreen(page, 'Webhooks', 'screen-webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const url = 'http://127.0.0.1:9/admiralty-hooks';
    await page.getByLabel('URL').fill(url);
    await page.getByRole('checkbox', { name: /^visitor\.\* / }).check();
    await page.getByTestId('endpoint-form').getByRole('radio', { name: 'Only these sites' }).check();
    await page.getByTestId('endpoint-form').getByRole('checkbox', { name: 'Admiralty Estate' }).check();
    await page.getByTestId('endpoint-form').getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByTestId('secret-once').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    const endpoints = (await org.sandbox.get('/webhook-endpoints')).body.results as { url: string; site_ids: string[] | null }[];
    expect(endpoints.find((endpoint) => endpoint.url === url)?.site_ids).toEqual([admiralty.site_id]);

    await page.getByRole('link', { name: url }).click();
    await page.getByTestId('screen-endpoint').waitFor();
    expect(await sitesOf(page.getByTestId('endpoint-sites'))).toEqual(['Admiralty Estate']);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByTestId('endpoint-form').getByRole('radio', { name: /^Every site/ }).check();
    await page.getByTestId('endpoint-form').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => sitesOf(page.getByTestId('endpoint-sites')), { timeout: 5_000 }).toEqual(['Every site']);
    expect(((await org.sandbox.get('/webhook-endpoints')).body.results as { url: string; site_ids: string[] | null }[]).find((endpoint) => endpoint.url === url)?.site_ids).toBeNull();
    // Back to Live from a screen that lists no endpoint: the webhooks list and an endpoint's page
    // read the sandbox endpoint again in Live before their new answer comes (a 404 in the log).
    await openScreen(page, 'API keys', 'screen-keys');
    await page.getByTestId('env-live').click();
  });

  it("an owner gives the estate manager every site from People: the manager's next page offers All sites", async () => {
    const { page } = owner;
    await openScreen(page, 'People', 'screen-people');
    const row = page.getByTestId('person-row').filter({ hasText: MANAGER });
    await row.getByRole('button', { name: `Change the sites of ${MANAGER}` }).click();
    await row.getByRole('radio', { name: /^Every site/ }).check();
    await row.getByRole('button', { name: 'Save sites' }).click();
    await expect.poll(() => sitesOf(row), { timeout: 5_000 }).toEqual(['Every site']);
    expect((await managerPerson.browser.get('/console/session')).body.session.person.site_ids).toBeNull();

    await manager.page.reload();
    await manager.page.getByTestId('site-switch').waitFor();
    expect(await manager.page.getByTestId('site-switch').locator('option').allTextContents()).toEqual(['All sites', 'Lekki Shield Estates', 'Admiralty Estate']);
    expect(await nav(manager.page).getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['People', 'Audit log']));
  });

  it('logs no error and nothing the Content-Security-Policy refused (the signed-out session check before joining is a 401)', () => {
    for (const { problems } of [owner, manager]) expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
