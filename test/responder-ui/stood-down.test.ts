import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { joinStaff, type JoinedStaff } from '../support/staff.ts';
import { keepScreenshot, reportIncident, startResponderStack, type Phone, type ResponderStack } from './support/stack.ts';

/**
 * The phone's words when stood down (issue #47), in Chromium at a small phone's size (390x844):
 * Tsaro control withdrawing an open offer, or taking back the incident a responder holds, is
 * said plainly on the phone, by whom and why ("Stood down by Tsaro control (Kemi)"), instead of
 * the offer or the incident silently vanishing; the responder is free for the next one.
 */
const SMALL_PHONE = { width: 390, height: 844 };

let stack: ResponderStack;
let controller: JoinedStaff;
beforeAll(async () => {
  stack = await startResponderStack('stood-down');
  controller = await joinStaff(stack.server, 'controller', 'Kemi Adeyemi');
}, 180_000);
afterAll(() => stack?.stop());

async function onDuty(phone: Phone): Promise<Page> {
  const { page } = phone;
  await page.setViewportSize(SMALL_PHONE);
  await page.goto(phone.appUrl);
  await page.getByTestId('screen-duty').waitFor();
  await page.getByRole('switch', { name: 'On duty', exact: true }).click();
  await expect.poll(() => page.getByTestId('location-status').textContent(), { timeout: 20_000 }).toContain('Location sent');
  return page;
}

/** The notice fits the small phone: its words and its OK button, with no sideways scroll. */
async function fitsThePhone(page: Page) {
  const ok = await page.getByTestId('notice-ok').boundingBox();
  expect(ok!.y + ok!.height).toBeLessThanOrEqual(SMALL_PHONE.height);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(SMALL_PHONE.width);
}

describe('stood down by Tsaro control, on the phone (390x844)', () => {
  it('an open offer withdrawn: the phone names the controller and the reason, and the responder is free', async () => {
    // In Kano, away from the other test's phone.
    const kano = { latitude: 12.0022, longitude: 8.592 };
    const phone = await stack.addPhone('Hauwa Offered', '+2348030000201', kano);
    const page = await onDuty(phone);
    const incident = await reportIncident(stack.partner, { location: { coordinates: [kano.longitude + 0.005, kano.latitude], address: 'Bompai Road, Kano' } });
    await page.getByTestId('screen-offer').waitFor({ timeout: 15_000 });
    expect((await controller.browser.post(`/incidents/${incident.incident_id}/take`)).status).toBe(200);
    expect((await controller.browser.post(`/incidents/${incident.incident_id}/stand-down`, { responder_id: phone.responderId, reason: 'Police are already there' })).body).toMatchObject({ released: 'offer' });

    const notice = page.getByTestId('notice-stood-down');
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.getByRole('heading').textContent()).toBe('Stood down by Tsaro control (Kemi)');
    expect(await notice.locator('p').textContent()).toBe('Reason: Police are already there. The offer is withdrawn. You are free for the next incident.');
    await fitsThePhone(page);
    await keepScreenshot(page, stack.dir, 'stood-down-offer');
    await page.getByTestId('notice-ok').click();
    await page.getByTestId('screen-duty').waitFor();
    expect(await page.getByRole('switch', { name: 'On duty', exact: true }).getAttribute('aria-checked')).toBe('true');
    await phone.context.close();
  });

  it('the incident in hand taken back: the phone says by whom and why, drops the steps for it, and is on duty again', async () => {
    // In Port Harcourt.
    const ph = { latitude: 4.8156, longitude: 7.0498 };
    const phone = await stack.addPhone('Tari Holding', '+2348030000202', ph);
    const page = await onDuty(phone);
    const incident = await reportIncident(stack.partner, { title: 'Break-in at Trans Amadi', location: { coordinates: [ph.longitude + 0.005, ph.latitude], address: 'Trans Amadi, Port Harcourt' } });
    await page.getByTestId('screen-offer').waitFor({ timeout: 15_000 });
    await page.getByTestId('offer-accept').click();
    await page.getByTestId('screen-incident').waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident.status, { timeout: 15_000 }).toBe('assigned');
    expect((await controller.browser.post(`/incidents/${incident.incident_id}/stand-down`, { responder_id: phone.responderId, reason: 'Pulled out for your safety' })).body).toMatchObject({ released: 'assignment' });

    const notice = page.getByTestId('notice-stood-down');
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.getByRole('heading').textContent()).toBe('Stood down by Tsaro control (Kemi)');
    expect(await notice.locator('p').textContent()).toBe('Reason: Pulled out for your safety. Break-in at Trans Amadi is no longer yours. You are free for the next incident.');
    await fitsThePhone(page);
    await keepScreenshot(page, stack.dir, 'stood-down');
    await page.getByTestId('notice-ok').click();
    await page.getByTestId('screen-duty').waitFor();
    // Free again on the server, and nothing waits on the phone for the incident it lost.
    await expect
      .poll(async () => ((await (await fetch(stack.server.baseUrl.replace('/v1/external', '/v1/responder/me'), { headers: { authorization: `Bearer ${phone.token}` } })).json()) as any).responder.available, { timeout: 10_000 })
      .toBe(true);
    expect(await page.getByTestId('outbox-waiting').count()).toBe(0);
    await phone.context.close();
  });
});
