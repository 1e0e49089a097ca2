import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, startKannel, type KannelRig } from '../support/kannel.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #35 in the console: an incident's page shows who Tsaro texted when nobody came, and
 * how each text stands, as Kannel's delivery reports arrive (real Kannel, fakesmsc as the SMSC).
 */
let rig: KannelRig;
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let siteId: string;

describe.skipIf(!process.env.TSARO_TEST_KANNEL)('text messages on an incident page (real Chromium, real Kannel)', () => {
  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    stack = await startConsoleStack('texts', {
      deliverTexts: false,
      // Two texts a number an hour: the second test goes over it.
      config: { SMS_GATEWAY: 'kannel', KANNEL_SENDSMS_URL: rig.sendsmsUrl, KANNEL_USERNAME: rig.username, KANNEL_PASSWORD: rig.password, DISPATCH_WINDOW_S: '60', SMS_MAX_PER_RECIPIENT_HOUR: '2' },
    });
    org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
    ({ page } = await stack.open());
    const email = 'kemi@lekkishield.ng';
    await joinInBrowser(page, stack.server, await inviteFromHost(stack.server, org.organizationId, 'operator', email), { email, name: 'Kemi Adeyemi', role: 'operator' });
    const site = await org.live.post('/sites', {
      name: 'Admiralty Estate',
      call_list: [
        { name: 'Estate control', phone: '0803 123 4567' },
        { name: 'Chairman', phone: '0805 765 4321' },
      ],
    });
    siteId = site.body.site.site_id;
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await rig?.stop();
  });

  it("before the alarm the page says when the site's list will be texted; after it, each text and its delivery", async () => {
    const id = (await org.live.post('/incidents', incidentBody({ site_id: siteId }))).body.incident.incident_id as string;
    await page.goto(`/console/incidents/${id}`);
    await page.getByTestId('screen-incident').waitFor();
    await page.getByTestId('texts-why').getByText("the site's call list is texted if nobody accepts in time").waitFor({ timeout: 5_000 });

    stack.server.clock.advance(61_000);
    await stack.server.running.advanceDispatch();
    expect(await stack.server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(2);
    const texts = page.getByTestId('incident-texts').locator('li');
    // The page follows the incident live: the reports arrive as timeline entries, and the list reads again.
    await expect.poll(async () => texts.evaluateAll((items) => items.map((item) => item.getAttribute('data-status'))), { timeout: 15_000 }).toEqual(['delivered', 'delivered']);
    const words = await page.getByTestId('incident-texts').textContent();
    expect(words).toContain('Estate control');
    // Read as a person writes it, dialled in E.164 (issue #48).
    expect(words).toContain('0805 765 4321');
    expect(await page.getByTestId('incident-texts').locator('a[href="tel:+2348057654321"]').count()).toBeGreaterThan(0);
    expect(words).toContain('nobody accepted');
    // The timeline follows the same live reports: the second delivery can reach it a moment after the list.
    await expect.poll(() => page.getByTestId('timeline').textContent(), { timeout: 15_000 }).toContain('Text delivered to Chairman (+2348057654321)');
  });

  it('over the hourly ceiling the board and the incident page say how many alarms were merged, and a merged text shows as merged (issue #46)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await org.live.post('/incidents', incidentBody({ site_id: siteId }))).body.incident.incident_id as string);
    stack.server.clock.advance(61_000);
    await stack.server.running.advanceDispatch();
    // Each number had one text: one more goes, its other two alarms become one text waiting its turn.
    expect(await stack.server.running.deliverTexts()).toBe(2);
    await page.goto('/console/board');
    const note = page.getByTestId('texts-over-ceiling');
    await note.waitFor({ timeout: 10_000 });
    expect(await note.textContent()).toContain('2 alarms were merged: each number is sent them as one text naming how many, at most one every 120 s');
    const messages = (await org.live.get('/messages?status=merged')).body.results as { incident_id: string }[];
    expect(messages).toHaveLength(2);
    await page.goto(`/console/incidents/${messages[0]!.incident_id}`);
    await page.getByTestId('screen-incident').waitFor();
    await page.getByTestId('incident-texts').locator('li[data-status="merged"]').first().waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('incident-texts').textContent()).toContain('Merged into one text with the other alarms to this number');
    await page.getByTestId('incident-texts').getByTestId('texts-over-ceiling').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'texts', 'over-ceiling.png'), fullPage: true });
  });
});
