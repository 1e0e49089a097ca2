import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, joinConsole } from '../support/console.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser, nextCode, type BrowserPerson } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * One person, several organizations, in the console (issue #34): a control-room operator of one
 * estate company is invited to a second, joins it on the link's page with the sign-in they have
 * (their password, then their code), and switches between the two in the top bar without signing
 * in again; each organization's screens show its own incidents, the choice survives a reload,
 * and each organization's audit log names them.
 */
let stack: ConsoleStack;
let shield: TestOrganization;
let lekki: TestOrganization;
let page: Page;
let person: BrowserPerson;
const EMAIL = 'kemi@control.ng';
const incidents = { shield: '', lekki: '' };

const card = (incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
const switcher = () => page.getByTestId('organization-switch');

beforeAll(async () => {
  stack = await startConsoleStack('organizations');
  shield = await stack.server.createOrganization({ name: 'Shield Security' });
  lekki = await stack.server.createOrganization({ name: 'Lekki Gardens Estate' });
  incidents.shield = (await shield.live.post('/incidents', incidentBody({ title: 'Fence alarm at Shield' }))).body.incident.incident_id;
  incidents.lekki = (await lekki.live.post('/incidents', incidentBody({ title: 'Gate alarm at Lekki Gardens' }))).body.incident.incident_id;
  ({ page } = await stack.open());
  person = await joinInBrowser(page, stack.server, await inviteFromHost(stack.server, shield.organizationId, 'operator', EMAIL), { email: EMAIL, name: 'Kemi Adeyemi', role: 'operator' });
}, 120_000);
afterAll(() => stack?.stop());

describe('one person in several organizations (Chromium, real server)', () => {
  it('with one organization there is no switcher, only its name', async () => {
    await page.getByTestId('organization').waitFor();
    expect(await page.getByTestId('organization').textContent()).toBe('Shield Security');
    expect(await switcher().count()).toBe(0);
  });

  it('joins a second organization on its link with the password and code they have, and works there', async () => {
    await page.goto(await inviteFromHost(stack.server, lekki.organizationId, 'admin', EMAIL));
    await page.getByTestId('signs-in-already').waitFor();
    expect(await page.getByTestId('signs-in-already').textContent()).toContain('enter your password to join Lekki Gardens Estate');
    // Neither a new password nor a name: the sign-in they have.
    expect(await page.getByLabel('The same password again').count()).toBe(0);
    await page.getByLabel('Your Tsaro password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join Lekki Gardens Estate' }).click();
    await page.getByTestId('totp-form').waitFor();
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(stack.server, person.totpSecret!));
    await page.getByRole('button', { name: 'Continue' }).click();
    await switcher().waitFor();
    expect(await switcher().locator('option:checked').textContent()).toBe('Lekki Gardens Estate (admin)');
    expect(await switcher().locator('option').allTextContents()).toEqual(['Shield Security (operator)', 'Lekki Gardens Estate (admin)']);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Live board', exact: true }).click();
    await card(incidents.lekki).waitFor({ timeout: 10_000 });
    expect(await card(incidents.shield).count()).toBe(0);
    // An admin there: People is theirs to manage in Lekki.
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People', exact: true }).count()).toBe(1);
  });

  it('switches between them without signing in again, and the choice survives a reload', async () => {
    await switcher().selectOption({ label: 'Shield Security (operator)' });
    await card(incidents.shield).waitFor({ timeout: 10_000 });
    expect(await card(incidents.lekki).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People', exact: true }).count()).toBe(0);
    expect(await page.getByTestId('sign-in-form').count()).toBe(0);
    await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
    await page.reload();
    await switcher().waitFor();
    expect(await switcher().locator('option:checked').textContent()).toBe('Shield Security (operator)');
    await card(incidents.shield).waitFor({ timeout: 10_000 });
    // A new incident of the organization worked in arrives on its board by the stream; the other's does not.
    const fresh = (await shield.live.post('/incidents', incidentBody({ title: 'Second alarm at Shield' }))).body.incident.incident_id as string;
    const other = (await lekki.live.post('/incidents', incidentBody({ title: 'Second alarm at Lekki' }))).body.incident.incident_id as string;
    await card(fresh).waitFor({ timeout: 10_000 });
    expect(await card(other).count()).toBe(0);
  });

  it("each organization's audit log names them", async () => {
    const personId = (await page.evaluate("fetch('/v1/external/console/session').then((r) => r.json())")) as { session: { person: { person_id: string } } };
    for (const org of [shield, lekki]) {
      const owner = await joinConsole(stack.server, org.organizationId, 'owner');
      const entries = (await owner.browser.get('/audit-log?limit=100')).body.results as { action: string; actor: { id: string; label: string } }[];
      const theirs = entries.filter((entry) => entry.actor.id === personId.session.person.person_id);
      expect(theirs.map((entry) => entry.action)).toContain('acceptInvitation');
      expect(theirs[0]!.actor.label).toBe('Kemi Adeyemi');
    }
  });
});
