import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GATE_SCOPES } from '../../shared/kiosk/gate-scopes.ts';
import { createApiKey } from '../../server/auth/service.ts';
import { joinConsole } from '../support/console.ts';
import type { TestOrganization } from '../support/server.ts';
import { join } from 'node:path';
import { ARTIFACTS, SCREENS, startConsoleStack, type ConsoleStack } from './support/stack.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';


/**
 * Each list filter of the console finds what is on the second page: the filter goes to the
 * server with the page (issue #31), instead of hiding rows of the one page the browser holds
 * while the pager counts everything. What each filter must find is made first, so newest-first
 * it sits past the first twenty rows.
 */
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;

beforeAll(async () => {
  stack = await startConsoleStack('list-filters');
  const { server } = stack;
  org = await server.createOrganization({ name: 'Banana Island Estate' });
  // What the console's new-gate flow makes: exactly the kiosk's scopes.
  await org.live.post('/api-keys', { name: 'Gate: North', scopes: GATE_SCOPES.map(([scope]) => scope) });
  server.clock.advance(1000);
  const doomed = await org.live.post('/api-keys', { name: 'Old backend', scopes: ['incidents:read'] });
  await org.live.delete(`/api-keys/${doomed.body.api_key.key_id}`);
  server.clock.advance(1000);
  // Sandbox endpoints on loopback, for an event this test never causes: nothing is sent.
  const endpoint = await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/retired-hook', events: ['incident.resolved'] });
  await org.sandbox.patch(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`, { status: 'disabled' });
  server.clock.advance(1000);
  await joinConsole(server, org.organizationId, 'developer', 'dev-ifeoma@banana.ng');
  for (let i = 0; i < 22; i++) {
    server.clock.advance(1000);
    await org.live.post('/api-keys', { name: `Backend ${i}`, scopes: ['incidents:read', 'incidents:write'] });
    await org.sandbox.post('/webhook-endpoints', { url: `http://127.0.0.1:9/hook-${i}`, events: ['incident.resolved'] });
    await joinConsole(server, org.organizationId, 'viewer', `viewer-${i}@banana.ng`);
  }
  // Gates read up to 100 keys at a time and filtered them in the browser: over 100 newer keys hid the gate.
  for (let i = 22; i < 102; i++) await org.live.post('/api-keys', { name: `Backend ${i}`, scopes: ['incidents:read'] });
  ({ page } = await stack.open());
  const link = await inviteFromHost(server, org.organizationId, 'owner', 'owner@banana.ng');
  await joinInBrowser(page, server, link, { email: 'owner@banana.ng', name: 'Tunde Bakare', role: 'owner' });
}, 180_000);
afterAll(() => stack?.stop());

async function openScreen(label: string, testId: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByTestId(testId).waitFor();
}

/** The rows' text once the list has answered with `expected` rows. */
async function rowsOnceLoaded(selector: string, expected: (count: number) => boolean): Promise<string[]> {
  await expect.poll(async () => expected(await page.locator(selector).count()), { timeout: 10_000 }).toBe(true);
  return page.locator(selector).allTextContents();
}

describe('each console list filter finds an item on the second page (Chromium, real server)', () => {
  it('API keys: "Revoked keys" shows the revoked key made before twenty others', async () => {
    await openScreen('API keys', 'screen-keys');
    const firstPage = await rowsOnceLoaded('[data-testid=key-row]', (n) => n === 20);
    expect(firstPage.join('\n')).not.toContain('Old backend');
    await page.selectOption('#key-shown', 'revoked');
    const revoked = await rowsOnceLoaded('[data-testid=key-row]', (n) => n === 1);
    expect(revoked[0]).toContain('Old backend');
  });

  it('Gates: the gate key made before a hundred backend keys is listed', async () => {
    await openScreen('Gates', 'screen-gates');
    await page.getByTestId('screen-gates').getByText('Gate: North').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('screen-gates').getByText(/^Backend/).count()).toBe(0);
  });

  it('People: "developer" shows the developer who joined before twenty viewers', async () => {
    await openScreen('People', 'screen-people');
    const firstPage = await rowsOnceLoaded('[data-testid=person-row]', (n) => n === 20);
    expect(firstPage.join('\n')).not.toContain('dev-ifeoma@banana.ng');
    await page.selectOption('#people-role', 'developer');
    const developers = await rowsOnceLoaded('[data-testid=person-row]', (n) => n === 1);
    expect(developers[0]).toContain('dev-ifeoma@banana.ng');
  });

  it('Webhooks (sandbox): "Disabled" shows the endpoint disabled before twenty others were added', async () => {
    await page.getByTestId('env-sandbox').click();
    await openScreen('Webhooks', 'screen-webhooks');
    const firstPage = await rowsOnceLoaded('[data-testid=endpoint-row]', (n) => n === 20);
    expect(firstPage.join('\n')).not.toContain('retired-hook');
    await page.selectOption('#endpoint-status', 'disabled');
    const disabled = await rowsOnceLoaded('[data-testid=endpoint-row]', (n) => n === 1);
    expect(disabled[0]).toContain('retired-hook');
  });
});

describe('the two-step policy on the People screen (issue #32)', () => {
  it('an owner requires two-step of viewers with one tick; operators are ticked by default', async () => {
    await openScreen('People', 'screen-people');
    const policy = page.getByTestId('two-step-policy');
    await policy.getByLabel('Viewers').waitFor();
    expect(await policy.getByLabel(/^Operators/).isChecked()).toBe(true);
    expect(await policy.getByLabel('Viewers').isChecked()).toBe(false);
    await policy.getByLabel('Viewers').click();
    await vi.waitFor(async () => expect(await policy.getByLabel('Viewers').isChecked()).toBe(true), { timeout: 5_000 });
    const viewer = await joinConsole(stack.server, org.organizationId, 'viewer', 'new-viewer@banana.ng');
    expect(viewer.totpSecret).toBeDefined();
    expect(await axeViolations(page)).toEqual([]);
    for (const [size, viewport] of Object.entries(SCREENS)) {
      await page.setViewportSize(viewport);
      await policy.screenshot({ path: join(ARTIFACTS, 'list-filters', `two-step-policy-${size}.png`) });
    }
  });
});

describe("the owners' review of keys made beyond their maker's grant (issue #32)", () => {
  it("an owner sees a developer's admin key from before the grant rule, with its maker, and keeps it", async () => {
    const developer = await joinConsole(stack.server, org.organizationId, 'developer', 'dev-chidi@banana.ng');
    await createApiKey(stack.server.running.database.db, stack.server.clock, {
      organizationId: org.organizationId,
      environment: 'live',
      name: 'Chidi’s admin script',
      scopes: ['admin', 'incidents:read'],
      maker: { type: 'person', id: developer.personId, label: 'Chidi Okafor', role: 'developer' },
    });
    await page.getByTestId('env-live').click();
    await openScreen('API keys', 'screen-keys');
    const review = page.getByTestId('keys-to-review');
    await review.getByTestId('review-row').first().waitFor();
    expect(await review.getByTestId('review-row').allTextContents()).toEqual([expect.stringContaining('by Chidi Okafor (developer)')]);
    expect(await axeViolations(page)).toEqual([]);
    await review.getByRole('button', { name: 'Keep' }).click();
    await review.waitFor({ state: 'detached', timeout: 5_000 });
    expect(await page.getByTestId('key-row').filter({ hasText: 'Chidi’s admin script' }).getByTestId('key-maker').textContent()).toBe('by Chidi Okafor (developer)');
  });
});

describe('the frame on a tablet (issue #34)', () => {
  it('on a tablet held upright (768 px), every screen of the navigation is in view and Sign out stays beside the name', async () => {
    const before = page.viewportSize()!;
    await page.setViewportSize({ width: 768, height: 1024 });
    try {
      const links = page.getByRole('navigation', { name: 'Console' }).getByRole('link');
      // An owner's fourteen screens (Organization since issue #48).
      expect(await links.count()).toBe(14);
      for (const link of await links.all()) {
        const box = (await link.boundingBox())!;
        expect({ name: await link.textContent(), right: box.x + box.width <= 768 }).toEqual({ name: await link.textContent(), right: true });
      }
      const name = (await page.locator('.topbar .who > span').first().boundingBox())!;
      const signOut = (await page.getByRole('button', { name: 'Sign out' }).boundingBox())!;
      expect(Math.abs(signOut.y + signOut.height / 2 - (name.y + name.height / 2))).toBeLessThan(8);
    } finally {
      await page.setViewportSize(before);
    }
  });
});

describe('sites in the console (issue #34)', () => {
  it('an owner adds an estate with its gates and call list; the numbers show as people read them (0909 000 1122) and ring in E.164 on a tap; a gate is added in place', async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    await openScreen('Sites', 'screen-sites');
    await page.getByTestId('site-row').first().waitFor();
    expect(await page.getByTestId('site-row').first().textContent()).toContain('Banana Island Estate');
    await page.getByTestId('new-site-button').click();
    const form = page.getByTestId('new-site');
    await form.getByLabel('Name', { exact: true }).fill('Admiralty Estate');
    await form.getByLabel('Gates').fill('North gate, South gate');
    await form.getByLabel('Name 1').fill('Estate control');
    await form.getByLabel('Phone 1').fill('0803 123 4567');
    await form.getByRole('button', { name: 'Add a number' }).click();
    await form.getByLabel('Name 2').fill('Police');
    await form.getByLabel('Phone 2').fill('+234 909 000 1122');
    // Texts to this number are written in Hausa (issue #35).
    await form.getByLabel('Texts in 2').selectOption('ha');
    await form.getByRole('button', { name: 'Add site' }).click();
    const row = page.getByTestId('site-row').filter({ hasText: 'Admiralty Estate' });
    await row.waitFor();
    expect(await row.getByTestId('call-list').locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(['tel:+2348031234567', 'tel:+2349090001122']);
    expect(await row.textContent()).toContain('North gate');
    expect(await row.getByTestId('call-list').textContent()).toContain('Police: 0909 000 1122 (texts in Hausa)');
    expect(await axeViolations(page)).toEqual([]);

    // Edited in a panel above the list, at its full width (issue #48).
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByTestId('edit-site');
    await edit.getByLabel('New gate').fill('Service gate');
    await edit.getByRole('button', { name: 'Add gate' }).click();
    await expect.poll(async () => row.textContent(), { timeout: 5_000 }).toContain('Service gate');
    // The numbers are edited as people write them, not in E.164 (issue #48).
    expect(await edit.getByLabel('Phone 1').inputValue()).toBe('0803 123 4567');
    expect(await edit.getByLabel('Phone 2').inputValue()).toBe('0909 000 1122');
    // A number that is not one is refused, naming it.
    await edit.getByLabel('Phone 2').fill('12');
    await edit.getByRole('button', { name: 'Save call list' }).click();
    await edit.getByText(/call_list\[1\]\.phone/).waitFor();
  });
});

