import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot, PHONE, partnerView, reportIncident, startResponderStack, type Phone, type ResponderStack } from './support/stack.ts';

async function onDuty(phone: Phone) {
  await phone.page.goto(phone.appUrl);
  await phone.page.getByTestId('duty-switch').click();
  await expect.poll(() => phone.page.getByTestId('location-status').textContent(), { timeout: 20_000 }).toContain('Location sent');
}

describe('two phones, one incident; a partner cancel; the operator signing a phone out', () => {
  let stack: ResponderStack;
  beforeAll(async () => {
    stack = await startResponderStack('race');
  }, 180_000);
  afterAll(() => stack?.stop());

  it('two responders accepting the same offer at the same moment: one is assigned, the other sees that someone else took it', async () => {
    const first = await stack.addPhone('Tunde Bakare', '+2348030000201');
    const second = await stack.addPhone('Ngozi Eze', '+2348030000202', { latitude: 6.4465, longitude: 3.4701 });
    await onDuty(first);
    await onDuty(second);
    await expect.poll(async () => (await stack.server.running.database.db.selectFrom('responders').select('available').where('responder_id', 'in', [first.responderId, second.responderId]).execute()).every((row) => row.available), { timeout: 10_000 }).toBe(true);
    const incident = await reportIncident(stack.partner);
    await Promise.all([first.page.getByTestId('screen-offer').waitFor({ timeout: 10_000 }), second.page.getByTestId('screen-offer').waitFor({ timeout: 10_000 })]);
    await Promise.all([first.page.getByTestId('offer-accept').click(), second.page.getByTestId('offer-accept').click()]);

    const outcome = async (phone: Phone) => {
      await expect.poll(async () => (await phone.page.getByTestId('notice-taken').isVisible()) || (await phone.page.getByTestId('incident-step').textContent()) === 'Assigned to you', { timeout: 15_000 }).toBe(true);
      return (await phone.page.getByTestId('notice-taken').isVisible()) ? 'taken' : 'assigned';
    };
    const results = [await outcome(first), await outcome(second)];
    expect(results.sort()).toEqual(['assigned', 'taken']);
    const loser = (await first.page.getByTestId('notice-taken').isVisible()) ? first : second;
    const winner = loser === first ? second : first;
    expect(await loser.page.getByRole('heading').textContent()).toBe('Someone else took it');
    await keepScreenshot(loser.page, stack.dir, 'taken');
    const assigned = (await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident;
    expect(assigned.responder.responder_id).toBe(winner.responderId);
    expect((await partnerView(stack.partner, incident.incident_id)).events.filter((event) => event === 'assigned')).toHaveLength(1);

    // The partner cancels: the winner's phone shows it at once and frees the responder.
    expect((await stack.partner.post(`/incidents/${incident.incident_id}/cancel`, { reason: 'Member reached hospital' })).status).toBe(200);
    await winner.page.getByTestId('notice-cancelled').waitFor({ timeout: 10_000 });
    await keepScreenshot(winner.page, stack.dir, 'cancelled');
    await winner.page.getByTestId('notice-ok').click();
    await winner.page.getByTestId('screen-duty').waitFor();
    await expect.poll(async () => (await stack.server.running.database.db.selectFrom('responders').select('available').where('responder_id', '=', winner.responderId).executeTakeFirst())?.available, { timeout: 10_000 }).toBeTruthy();
  });

  it("the operator's deactivate signs the phone out; a phone without location permission says so plainly", async () => {
    const phone = await stack.addPhone('Ibrahim Musa', '+2348030000203');
    await onDuty(phone);
    const { deactivateResponder } = await import('../../server/responders/service.ts');
    await deactivateResponder(stack.server.running.database.db, stack.server.clock, phone.responderId);
    // The long poll the phone is holding answers 401 within a second: it does not wait out its 25 s.
    await phone.page.getByTestId('screen-sign-in').waitFor({ timeout: 10_000 });
    expect(await phone.page.getByTestId('sign-in-notice').textContent()).toContain('Signed out');
    expect(await phone.page.evaluate(() => (globalThis as any).localStorage.getItem('tsaro-responder-state'))).not.toContain('rtk_');
    await keepScreenshot(phone.page, stack.dir, 'signed-out');
    // A phone that was never signed in, and a pasted link that holds no token.
    const fresh = await (await stack.browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true })).newPage();
    await fresh.goto(new URL('/responder/', phone.appUrl).href);
    await fresh.getByTestId('screen-sign-in').waitFor();
    await keepScreenshot(fresh, stack.dir, 'sign-in');
    await fresh.fill('input[name=link]', 'https://example.org/responder/');
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    expect(await fresh.locator('.error').textContent()).toContain('rtk_');

    const denied = await stack.addPhone('Halima Sule', '+2348030000204');
    await denied.context.clearPermissions();
    await denied.page.goto(denied.appUrl);
    await denied.page.getByTestId('duty-switch').click();
    await expect.poll(() => denied.page.getByTestId('location-status').textContent(), { timeout: 10_000 }).toContain('Location is denied');
    await keepScreenshot(denied.page, stack.dir, 'location-denied');
  });
});
