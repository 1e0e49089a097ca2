import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaffRole } from '../../shared/schemas/staff.ts';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { joinStaffInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * The operations centre's duty panel (issue #47), in Chromium against the real server: a network
 * admin draws a circle and a polygon and plans a shift; a controller sees a responder's panic in
 * the alerts and marks it dealt with, and cannot plan.
 */
let stack: ConsoleStack;
let admin: Page;
let controller: Page;

async function joinAs(page: Page, role: StaffRole, name: string, email: string) {
  await joinStaffInBrowser(page, stack.server, { email, role, name });
  await page.getByTestId('duty-panel').waitFor();
}

beforeAll(async () => {
  stack = await startConsoleStack('duty-panel');
  admin = (await stack.open()).page;
  controller = (await stack.open()).page;
  await joinAs(admin, 'network_admin', 'Musa Garba', 'musa@tsaro.ng');
  await joinAs(controller, 'controller', 'Kemi Adeyemi', 'kemi@tsaro.ng');
}, 180_000);
afterAll(() => stack?.stop());

describe('the duty panel (Chromium, real server)', () => {
  it('a network admin draws a circle and a polygon and plans a shift; a bad polygon says which field', async () => {
    const { responder } = await addResponder(stack.server.running.database.db, stack.server.clock, { name: 'Shola Shift', phone: '+2348031234567', latitude: 6.45, longitude: 3.47, environment: 'live' });
    await admin.reload();
    await admin.getByTestId('duty-panel').waitFor();
    const area = admin.getByTestId('new-area');
    await area.getByLabel('Area name').fill('Lekki Phase 1');
    await area.getByLabel('Centre latitude').fill('6.4474');
    await area.getByLabel('Centre longitude').fill('3.4739');
    await area.getByLabel('Radius (m)').fill('3000');
    await area.getByRole('button', { name: 'Draw area' }).click();
    await expect.poll(async () => admin.getByTestId('areas').textContent(), { timeout: 15_000 }).toContain('Lekki Phase 1');
    expect(await admin.getByTestId('areas').textContent()).toContain('circle, 3000 m');

    await area.getByLabel('Area name').fill('Two points');
    await area.getByLabel('Shape').selectOption('Polygon');
    await area.getByLabel(/Corners/).fill('6.43, 3.40\n6.43, 3.50');
    await area.getByRole('button', { name: 'Draw area' }).click();
    await admin.getByRole('alert').filter({ hasText: 'shape.coordinates[0]' }).waitFor();
    await area.getByLabel('Area name').fill('Ikoyi');
    await area.getByLabel(/Corners/).fill('6.43, 3.40\n6.43, 3.50\n6.47, 3.50\n6.47, 3.40');
    await area.getByRole('button', { name: 'Draw area' }).click();
    await expect.poll(async () => admin.getByTestId('areas').textContent(), { timeout: 15_000 }).toContain('polygon, 4 points');

    const shift = admin.getByTestId('new-shift');
    await shift.getByLabel('Responder').selectOption(responder.responder_id);
    await shift.getByLabel('Area').selectOption({ label: 'Ikoyi' });
    await shift.getByLabel('From').selectOption('22');
    await shift.getByLabel('To').selectOption('6');
    await shift.getByRole('button', { name: 'Plan shift' }).click();
    await expect.poll(async () => admin.getByTestId('shifts').textContent(), { timeout: 15_000 }).toContain('Shola Shift');
    expect(await admin.getByTestId('shifts').textContent()).toContain('22:00 to 06:00');

    // The controller reads them, and has no form to change them.
    await expect.poll(async () => controller.getByTestId('shifts').textContent(), { timeout: 15_000 }).toContain('Shola Shift');
    expect(await controller.getByTestId('new-area').count()).toBe(0);
    expect(await controller.getByTestId('new-shift').count()).toBe(0);

    await admin.getByRole('button', { name: 'Remove the shift of Shola Shift' }).click();
    await expect.poll(async () => admin.getByTestId('shifts').textContent(), { timeout: 15_000 }).not.toContain('Shola Shift');
  });

  it("a responder's panic shows in the controller's alerts, and Dealt with clears it", async () => {
    const { token } = await addResponder(stack.server.running.database.db, stack.server.clock, { name: 'Pam Panic', phone: '+2348037654321', latitude: 6.45, longitude: 3.47, environment: 'live' });
    expect((await responderCall(stack.server, token)('/panic', { method: 'POST', body: { message: 'Being followed' } })).status).toBe(200);
    const alerts = controller.getByTestId('alerts');
    await expect.poll(async () => (await alerts.count()) > 0 && alerts.textContent(), { timeout: 15_000 }).toContain('Pam Panic pressed panic: Being followed');
    await alerts.getByRole('button', { name: 'Dealt with' }).first().click();
    await expect.poll(async () => (await alerts.count()) === 0 || !(await alerts.textContent())!.includes('Pam Panic'), { timeout: 15_000 }).toBe(true);
  });
});
