import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser, joinStaffInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * The operations centre's screen (issue #47), in Chromium against the real server: a controller
 * joins from the host's link (a password, then the authenticator, always), sees a partner's live
 * incident in the queue, takes it, and offers it to a responder beyond every automatic round; the
 * responder's phone hears of the offer as of any other; the partner's board says who at Tsaro
 * is handling it.
 */
const AT = { latitude: 6.4474, longitude: 3.4739 };
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
/** The partner's control room, a viewer on its live board. */
let partner: Page;

beforeAll(async () => {
  stack = await startConsoleStack('operations', { config: { DISPATCH_RADIUS_KM: '15' } });
  org = await stack.server.createOrganization({ name: 'Lekki Gardens' });
  page = (await stack.open()).page;
  partner = (await stack.open()).page;
  await joinInBrowser(partner, stack.server, await inviteFromHost(stack.server, org.organizationId, 'viewer', 'ada@lekki.example'), { email: 'ada@lekki.example', name: 'Ada Obi', role: 'viewer' });
  await partner.goto('/console/board');
  await partner.getByTestId('screen-board').waitFor();
}, 180_000);
afterAll(() => stack?.stop());

describe('the operations queue (Chromium, real server)', () => {
  it('a controller joins with an authenticator, takes a live incident from the queue and offers it to a chosen responder, whose phone sees it', async () => {
    await joinStaffInBrowser(page, stack.server, { email: 'kemi@tsaro.ng', role: 'controller', name: 'Kemi Adeyemi' });
    await page.getByRole('heading', { name: 'Live queue' }).waitFor();

    const far = await addResponder(stack.server.running.database.db, stack.server.clock, { name: 'Tunde Far', phone: '+2348039990000', latitude: AT.latitude, longitude: AT.longitude + 30 / 110.5, environment: 'live' });
    const created = await org.live.post('/incidents', incidentBody({ location: { coordinates: [AT.longitude, AT.latitude], address: 'Admiralty Way, Lekki' } }));
    const incidentId = created.body.incident.incident_id as string;
    const row = page.locator(`[data-testid=queue-row][data-incident="${incidentId}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('Lekki Gardens');
    await row.getByRole('button', { name: 'Take' }).click();
    await page.getByRole('status').filter({ hasText: 'You are handling it.' }).waitFor();
    await expect.poll(async () => row.textContent(), { timeout: 15_000 }).toContain('Tsaro control (Kemi)');
    // The partner's board says who at Tsaro is handling it, from the event stream.
    const handledBy = partner.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"] [data-testid=handled-by]`);
    await expect.poll(async () => (await handledBy.count()) > 0 && (await handledBy.textContent()), { timeout: 15_000 }).toBe('Tsaro control (Kemi)');

    await page.getByRole('button', { name: 'Offer to Tunde Far' }).click();
    await page.getByRole('status').filter({ hasText: 'Offered to Tunde Far.' }).waitFor();
    await expect
      .poll(async () => ((await responderCall(stack.server, far.token)('/offers')).body.offers as { incident: { incident_id: string } }[]).map((offer) => offer.incident.incident_id), { timeout: 15_000 })
      .toEqual([incidentId]);
    const timeline = (await org.live.get(`/incidents/${incidentId}`)).body.incident.timeline as { message: string }[];
    expect(timeline.map((entry) => entry.message)).toEqual(expect.arrayContaining(['Tsaro control (Kemi) is handling it', expect.stringMatching(/^Tsaro control \(Kemi\) offered it to Tunde Far/)]));
  });
});
