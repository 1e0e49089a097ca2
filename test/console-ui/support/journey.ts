import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { twoStepRequired, type Role } from '../../../shared/schemas/console.ts';
import { inviteOrReset } from '../../../server/people/service.ts';
import { inviteStaff } from '../../../server/staff/service.ts';
import type { StaffRole } from '../../../shared/schemas/staff.ts';
import { PASSWORD, totpCode } from '../../support/console.ts';
import type { TestServer } from '../../support/server.ts';
import { ROOT } from './stack.ts';

export interface BrowserPerson {
  email: string;
  name: string;
  role: Role;
  /** Read from the enrolment page's text, as a person types it into an authenticator app. */
  totpSecret: string | undefined;
  recoveryCodes: string[];
}

/** The invite link `tsaro console invite` prints (made on the host, for the console's origin); `siteIds` limits the role to those sites. */
export async function inviteFromHost(server: TestServer, organizationId: string, role: Role, email: string, name?: string, siteIds?: string[]): Promise<string> {
  const { invite_url } = await inviteOrReset(
    { db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin },
    { organizationId, email, role, name, siteIds },
  );
  return invite_url;
}

/**
 * A member of Tsaro's staff invited from the host (`tsaro staff invite`) and joined in the browser
 * as a person does: their name, a password, then the authenticator from the secret the page shows
 * (staff never skip it). Resolves on the page the join leads to; the caller waits for its screen.
 */
export async function joinStaffInBrowser(page: Page, server: TestServer, person: { email: string; role: StaffRole; name: string }): Promise<{ totpSecret: string }> {
  const { invite_url } = await inviteStaff({ db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin }, { email: person.email, role: person.role });
  await page.goto(new URL(invite_url).pathname);
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Password (12 characters or more)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  // The password alone opens nothing: the authenticator comes next, always.
  const totpSecret = (await page.getByTestId('staff-totp-secret').textContent())!.trim();
  await page.getByLabel('Code').fill(await totpCode(server, totpSecret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  return { totpSecret };
}

/** A TOTP code an authenticator shows for the server's time, one step after the last one used. */
export async function nextCode(server: TestServer, secret: string): Promise<string> {
  server.clock.advance(30_000);
  return totpCode(server, secret);
}

/**
 * Opens an invite link and joins as a person does: name, password twice, then (owner, admin, operator)
 * the authenticator from the secret shown on the page and the ten recovery codes. Ends on the keys
 * screen (an operator, who reads no keys, on the live board).
 */
export async function joinInBrowser(
  page: Page,
  server: TestServer,
  inviteUrl: string,
  person: { email: string; name: string; role: Role },
  /** Called on each step's screen, e.g. to take its screenshot. */
  onStep: (step: 'join' | 'enrol' | 'recovery-codes') => Promise<void> = async () => undefined,
): Promise<BrowserPerson> {
  await page.goto(inviteUrl);
  await page.getByTestId('join-form').waitFor();
  await onStep('join');
  expect(await page.getByTestId('invitation').textContent()).toContain(person.email);
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('The same password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  let totpSecret: string | undefined;
  let recoveryCodes: string[] = [];
  // Owners and admins always, operators by the default policy: the second step is enrolled on joining.
  if (twoStepRequired(person.role, null)) {
    await page.getByTestId('totp-enrolment').getByTestId('qr').waitFor();
    totpSecret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    expect(await page.getByTestId('otpauth-uri').textContent()).toContain(`secret=${totpSecret}`);
    await onStep('enrol');
    await page.getByLabel('Six-digit code').fill(await nextCode(server, totpSecret));
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    recoveryCodes = (await codes.locator('ol.codes li').allTextContents()).map((code) => code.trim());
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    await onStep('recovery-codes');
    await page.getByLabel('I have kept my recovery codes').check();
    await page.getByRole('button', { name: 'Continue' }).click();
  }
  await endOnKeys(page, person.role);
  return { ...person, totpSecret, recoveryCodes };
}

/** Email, password, then (when enrolled) a fresh code from the authenticator. Ends on the keys screen. */
export async function signInInBrowser(page: Page, server: TestServer, person: BrowserPerson): Promise<void> {
  await page.goto('/console/');
  await page.getByTestId('sign-in-form').waitFor();
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (person.totpSecret) {
    await page.getByTestId('totp-form').waitFor();
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(server, person.totpSecret));
    await page.getByRole('button', { name: 'Continue' }).click();
  }
  await endOnKeys(page, person.role);
}

/**
 * A person lands on their role's home (a developer at the keys, everyone else on the live
 * board); the journeys of those who read keys then go on from the keys screen.
 */
async function endOnKeys(page: Page, role: Role): Promise<void> {
  if (role === 'developer') {
    await page.getByTestId('screen-keys').waitFor();
    return;
  }
  await page.getByTestId('screen-board').waitFor();
  if (role === 'operator') return;
  await page.getByRole('navigation').getByRole('link', { name: 'API keys', exact: true }).click();
  await page.getByTestId('screen-keys').waitFor();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core from the project's devDependencies; AXE_CORE_PATH names another copy (a machine whose node_modules predates it). */
const AXE = process.env.AXE_CORE_PATH ?? join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

/**
 * axe-core in the page: the serious and critical violations, each with where it is. Evaluated
 * through the DevTools protocol rather than `addScriptTag`: the console's CSP (script-src 'self')
 * rightly refuses an inline script tag.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((r) => r.violations)');
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}
