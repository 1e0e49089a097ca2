import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinStaff } from '../support/staff.ts';
import { reportIncident, startResponderStack, type ResponderStack } from './support/stack.ts';

/**
 * Responder safety on the phone (issue #47): on scene the app offers "I'm OK" with when the next
 * is due, and a panic button pressed twice to be sure puts the case at the top of the staff queue;
 * out of service with a reason takes the responder out of offers until they come back.
 */
describe('safety on the phone (412x915, fake geolocation)', () => {
  let stack: ResponderStack;
  beforeAll(async () => {
    stack = await startResponderStack('safety');
  }, 180_000);
  afterAll(() => stack?.stop());

  it("on scene: I'm OK checks in; panic, pressed twice, puts the case at the top of the controllers' queue", async () => {
    const controller = await joinStaff(stack.server, 'controller', 'Kemi Adeyemi');
    const phone = await stack.addPhone('Sani Safety', '+2348030000201');
    const { page } = phone;
    await page.goto(phone.appUrl);
    await page.getByTestId('screen-duty').waitFor();
    await page.getByRole('switch', { name: 'On duty', exact: true }).click();
    await expect.poll(() => page.getByTestId('location-status').textContent(), { timeout: 20_000 }).toContain('Location sent');

    const incident = await reportIncident(stack.partner);
    await page.getByTestId('screen-offer').waitFor({ timeout: 15_000 });
    await page.getByTestId('offer-accept').click();
    await page.getByTestId('step-on-my-way').click();
    await page.getByTestId('step-on-scene').click();
    // The first check-in is due a period after arriving.
    const checkIn = page.getByTestId('check-in');
    await expect.poll(async () => (await checkIn.count()) > 0 && checkIn.textContent(), { timeout: 15_000 }).toMatch(/Next "I'm OK" in [45] min/);
    await page.getByTestId('check-in-ok').click();
    await page.getByRole('status').filter({ hasText: 'Tsaro control knows you are OK' }).waitFor();

    // Panic: the first press arms it, the second sends it.
    await page.getByTestId('panic').click();
    expect(await page.getByTestId('panic').textContent()).toBe('Press again to send panic');
    const before = ((await controller.browser.get('/queue')).body.incidents as any[]).find((item) => item.incident_id === incident.incident_id);
    expect(before.urgency).not.toBe('responder_in_danger');
    await page.getByTestId('panic').click();
    await page.getByRole('status').filter({ hasText: 'Panic sent' }).waitFor();
    const queue = (await controller.browser.get('/queue')).body.incidents as any[];
    expect(queue[0]).toMatchObject({ incident_id: incident.incident_id, urgency: 'responder_in_danger' });
    const alerts = (await controller.browser.get('/alerts')).body.alerts as any[];
    expect(alerts.find((alert) => alert.responder_id === phone.responderId)).toMatchObject({ kind: 'panic', message: 'Sani Safety pressed panic on scene' });
    await controller.browser.post(`/incidents/${incident.incident_id}/close`, { outcome: 'assisted' });
  });

  it('out of service with a reason: the phone says so, the controllers see why, and back in service the phone reports on duty at once', async () => {
    const controller = await joinStaff(stack.server, 'controller', 'Bisi Ola');
    const phone = await stack.addPhone('Obi Outservice', '+2348030000202', { latitude: 6.6, longitude: 3.35 });
    const { page } = phone;
    await page.goto(phone.appUrl);
    await page.getByTestId('screen-duty').waitFor();
    await page.getByRole('switch', { name: 'On duty', exact: true }).click();
    await page.getByTestId('out-of-service-start').click();
    await page.getByLabel('Why are you out of service?').fill('Flat tyre');
    await page.getByRole('button', { name: 'Go out of service' }).click();
    await expect.poll(async () => page.getByTestId('out-of-service').textContent(), { timeout: 10_000 }).toContain('Out of service: Flat tyre');
    const entry = async () => ((await controller.browser.get('/responders?environment=live')).body.responders as any[]).find((r) => r.responder_id === phone.responderId);
    expect(await entry()).toMatchObject({ duty_status: 'out_of_service', out_of_service_reason: 'Flat tyre', available: false });
    await page.getByRole('button', { name: 'Back in service' }).click();
    await expect.poll(async () => (await entry()).duty_status, { timeout: 15_000 }).toBe('available');
  });
});
