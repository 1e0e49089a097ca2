import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaffRole } from '../../shared/schemas/staff.ts';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser, joinStaffInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * A controller's incident screen and the roster (issue #47), in Chromium against the real
 * server: a network admin verifies an applicant on the roster; a controller opens a partner's live
 * incident from the queue, sees whom to call (tel: links), takes it, offers it to the newly
 * verified responder (whose phone sees the offer), notes what was done and closes it with an
 * outcome; the partner's incident says who at Tsaro handled it. A subject's name with markup in it
 * shows as the text it is.
 */
const AT = { latitude: 6.4474, longitude: 3.4739 };
let stack: ConsoleStack;
let org: TestOrganization;
let admin: WatchedPage;
let controller: WatchedPage;
/** The partner's control room, a viewer. */
let partner: WatchedPage;

async function joinAs(page: Page, role: StaffRole, name: string, email: string) {
  await joinStaffInBrowser(page, stack.server, { email, role, name });
  await page.getByRole('heading', { name: 'Live queue' }).waitFor();
}

beforeAll(async () => {
  stack = await startConsoleStack('control-incident', { config: { DISPATCH_RADIUS_KM: '15' } });
  org = await stack.server.createOrganization({ name: 'Lekki Gardens' });
  admin = await stack.open();
  controller = await stack.open();
  partner = await stack.open();
  await joinInBrowser(partner.page, stack.server, await inviteFromHost(stack.server, org.organizationId, 'viewer', 'ada@lekki.example'), { email: 'ada@lekki.example', name: 'Ada Obi', role: 'viewer' });
}, 180_000);
afterAll(() => stack?.stop());

describe("a controller's incident screen and the roster (Chromium, real server)", () => {
  it('verify on the roster; open, take, offer, note and close an incident; the partner sees who handled it', async () => {
    const site = await org.live.post('/sites', { name: 'Admiralty Estate', call_list: [{ name: 'Gate house', phone: '+2348031112222' }] });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    // An applicant near the incident: offered nothing by the engine until verified.
    const applicant = await addResponder(stack.server.running.database.db, stack.server.clock, { name: 'Ngozi Eze', phone: '+2348035550000', latitude: AT.latitude, longitude: AT.longitude + 1 / 110.5, environment: 'live' }, { standing: 'applied', skills: '["medical"]' });
    const created = await org.live.post(
      '/incidents',
      incidentBody({ subject: { name: '<b>Ada</b> Obi', phone: '+2348039876543' }, site_id: site.body.site.site_id, location: { coordinates: [AT.longitude, AT.latitude], address: 'Admiralty Way, Lekki' } }),
    );
    const incidentId = created.body.incident.incident_id as string;

    // The network admin verifies the applicant on the roster.
    await joinAs(admin.page, 'network_admin', 'Musa Garba', 'musa@tsaro.ng');
    await admin.page.getByRole('link', { name: 'Responders' }).click();
    const row = admin.page.locator(`[data-testid=roster-row][data-responder="${applicant.responder.responder_id}"]`);
    await expect.poll(async () => row.getByTestId('standing').textContent(), { timeout: 15_000 }).toBe('Applied');
    await row.getByRole('button', { name: 'Verify Ngozi Eze' }).click();
    await admin.page.getByRole('status').filter({ hasText: 'Ngozi Eze is verified.' }).waitFor();
    await expect.poll(async () => row.getByTestId('standing').textContent()).toBe('Verified');
    await admin.page.screenshot({ path: 'test-artifacts/console-ui/control-incident/roster.png', fullPage: true });

    // The controller opens the incident from the queue.
    await joinAs(controller.page, 'controller', 'Kemi Adeyemi', 'kemi@tsaro.ng');
    const page = controller.page;
    const queued = page.locator(`[data-testid=queue-row][data-incident="${incidentId}"]`);
    await queued.waitFor({ timeout: 15_000 });
    await queued.getByRole('link', { name: /^Open/ }).click();
    await page.getByTestId('control-incident').waitFor();
    // Markup a partner wrote is text.
    await expect.poll(async () => page.getByTestId('control-subject').textContent()).toBe('<b>Ada</b> Obi');
    expect(await page.locator('[data-testid=control-subject] b').count()).toBe(0);
    // Whom to call: the subject and the site's list, as tel: links.
    expect(await page.locator('a[href="tel:+2348039876543"]').count()).toBe(1);
    await page.getByTestId('control-call-list').waitFor();
    expect(await page.locator('[data-testid=control-call-list] a[href="tel:+2348031112222"]').textContent()).toBeTruthy();

    await page.getByRole('button', { name: 'Take' }).click();
    await page.getByRole('status').filter({ hasText: 'You are handling it.' }).waitFor();
    await expect.poll(async () => page.getByTestId('control-owner').textContent()).toBe('Tsaro control (Kemi)');

    const candidate = page.locator(`[data-testid=candidate][data-responder="${applicant.responder.responder_id}"]`);
    await candidate.waitFor({ timeout: 15_000 });
    expect(await candidate.textContent()).toContain('medical');
    await candidate.getByRole('button', { name: 'Offer to Ngozi Eze' }).click();
    await page.getByRole('status').filter({ hasText: 'Offered to Ngozi Eze.' }).waitFor();
    await expect
      .poll(async () => ((await responderCall(stack.server, applicant.token)('/offers')).body.offers as { incident: { incident_id: string } }[]).map((offer) => offer.incident.incident_id), { timeout: 15_000 })
      .toEqual([incidentId]);
    await expect.poll(async () => page.getByTestId('control-offers').textContent(), { timeout: 15_000 }).toContain('Ngozi Eze: pending');

    await page.getByLabel('Note what was done').fill('Police on the way');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('status').filter({ hasText: 'Noted.' }).waitFor();
    await expect.poll(async () => page.getByTestId('control-timeline').textContent()).toContain('Tsaro control (Kemi): Police on the way');

    await page.getByLabel('Outcome').selectOption('referred_to_authorities');
    await page.getByLabel('Closing notes').fill('Police took over');
    await page.getByRole('button', { name: 'Close incident' }).click();
    await page.getByRole('status').filter({ hasText: 'Closed: referred to authorities.' }).waitFor();
    await expect.poll(async () => page.getByTestId('control-status').textContent()).toBe('resolved');

    const seen = (await org.live.get(`/incidents/${incidentId}`)).body.incident;
    expect(seen).toMatchObject({ status: 'resolved', resolution_outcome: 'referred_to_authorities', handled_by: 'Tsaro control (Kemi)' });
    expect(await responderCall(stack.server, applicant.token)('/offers').then((answer) => answer.body.offers)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/console-ui/control-incident/closed.png', fullPage: true });
    // The staff's interval report counts it.
    await page.getByRole('link', { name: 'Reports' }).click();
    const all = page.locator('[data-testid=interval-row][data-key=all]');
    await all.waitFor({ timeout: 15_000 });
    expect(await all.locator('td').nth(1).textContent()).toBe('1');
    await page.screenshot({ path: 'test-artifacts/console-ui/control-incident/staff-reports.png', fullPage: true });
    // The partner's incident page says who at Tsaro handled it, and their reports list its intervals.
    await partner.page.goto(`/console/incidents/${incidentId}`);
    await expect.poll(async () => partner.page.getByTestId('handled-by').textContent(), { timeout: 15_000 }).toBe('Tsaro control (Kemi)');
    await partner.page.goto('/console/reports');
    const intervals = partner.page.getByTestId('response-intervals');
    await intervals.waitFor({ timeout: 15_000 });
    const overall = intervals.locator('tbody tr').first();
    expect(await overall.locator('td').nth(0).textContent()).toBe('All');
    expect(await overall.locator('td').nth(1).textContent()).toBe('1');
    await partner.page.screenshot({ path: 'test-artifacts/console-ui/control-incident/partner-reports.png', fullPage: true });
    // The only failed loads are the session probes before signing in (401).
    expect([...admin.problems, ...controller.problems, ...partner.problems].filter((problem) => !problem.includes('status of 401'))).toEqual([]);
  });

  it('the staff screens at a control room laptop (1366x768) and a 10-inch tablet both ways: axe-core finds no serious fault, and the screens are kept as screenshots', async () => {
    const page = controller.page;
    const incidentId = (await org.live.post('/incidents', incidentBody({ location: { coordinates: [AT.longitude, AT.latitude] } }))).body.incident.incident_id as string;
    const screens: Array<[string, string]> = [
      ['queue', '/console/staff'],
      ['incident', `/console/staff/incidents/${incidentId}`],
      ['roster', '/console/staff/roster'],
      ['reports', '/console/staff/reports'],
    ];
    const sizes: Array<[string, { width: number; height: number }]> = [
      ['desktop', { width: 1366, height: 768 }],
      ['tablet-landscape', { width: 1280, height: 800 }],
      ['tablet-portrait', { width: 800, height: 1280 }],
    ];
    const faults: string[] = [];
    for (const [size, viewport] of sizes) {
      await page.setViewportSize(viewport);
      for (const [name, path] of screens) {
        await page.goto(path);
        await page.getByRole('main').waitFor();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        // Nothing wider than the screen: a control room never scrolls sideways.
        expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at ${size}`).toBeLessThanOrEqual(viewport.width);
        faults.push(...(await axeViolations(page)).map((fault) => `${name} at ${size}: ${fault}`));
        if (size !== 'tablet-landscape' && process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: `docs/console/staff-${name}-${size}.png` });
      }
    }
    expect(faults).toEqual([]);
    await page.setViewportSize({ width: 1366, height: 768 });
  });
});
