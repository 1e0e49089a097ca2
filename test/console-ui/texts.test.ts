import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, startKannel, type KannelRig } from '../support/kannel.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

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
      config: { SMS_GATEWAY: 'kannel', KANNEL_SENDSMS_URL: rig.sendsmsUrl, KANNEL_USERNAME: rig.username, KANNEL_PASSWORD: rig.password, DISPATCH_WINDOW_S: '60' },
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
    expect(words).toContain('+2348057654321');
    expect(words).toContain('nobody accepted');
    // The timeline follows the same live reports: the second delivery can reach it a moment after the list.
    await expect.poll(() => page.getByTestId('timeline').textContent(), { timeout: 15_000 }).toContain('Text delivered to Chairman (+2348057654321)');
  });
});
