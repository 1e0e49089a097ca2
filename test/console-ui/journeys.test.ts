import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testEngine } from '../support/database.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { PASSWORD } from '../support/console.ts';
import { axeViolations, inviteFromHost, joinInBrowser, nextCode, signInInBrowser, type BrowserPerson } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * Issue #27: a person's journeys through the console in Chromium against the real server (no
 * stubbed answer): joining with a password and an authenticator, a key made and revoked from the
 * console and used against the API, a signed test event and a resent failure reaching a receiver
 * on loopback, the audit log, a viewer, and axe-core on the main screens.
 */
const received: { headers: IncomingHttpHeaders; raw: string; event: { id: string; type: string; test?: boolean } }[] = [];
let answer = 200;
const receiver = createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers, raw, event: JSON.parse(raw) });
    res.statusCode = answer;
    res.end(answer === 200 ? 'ok' : 'down for maintenance');
  });
});
let receiverUrl = '';

let stack: ConsoleStack;
let org: TestOrganization;
let owner: BrowserPerson;
let ownerPage: WatchedPage;
let keySecret = '';
let keyId = '';

/** The person's last console problem-free check: no page error, nothing the CSP refused. */
const noProblems = (watched: WatchedPage) => expect(watched.problems.filter((p) => !/status of (401|403|404)/.test(p))).toEqual([]);

async function go(page: Page, link: string, ready: string) {
  await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
  await page.getByTestId(ready).first().waitFor();
}

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tsaro/hooks`;
  stack = await startConsoleStack('journeys', { engine: testEngine() });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
});
afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('a person in the console, against the real server', () => {
  it('(a) joins from an invite link: a password, an authenticator read from the page, ten recovery codes, then the console; signs out and in again with a fresh code', async () => {
    ownerPage = await stack.open();
    const { page } = ownerPage;
    const link = await inviteFromHost(stack.server, org.organizationId, 'owner', 'ada@lekkishield.ng', 'Ada Obi');
    expect(link).toMatch(new RegExp(`^${stack.origin}/console/join/[\\w-]{43}$`));
    owner = await joinInBrowser(page, stack.server, link, { email: 'ada@lekkishield.ng', name: 'Ada Obi', role: 'owner' });
    expect(await page.getByTestId('organization').textContent()).toContain('Lekki Shield Estates');
    // The link worked once.
    await page.goto(link);
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();

    await page.goto('/console/keys');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByTestId('sign-in-form').waitFor();
    expect(await page.getByText('You are signed out.').count()).toBe(1);
    await signInInBrowser(page, stack.server, owner);
    noProblems(ownerPage);
  });

  it('(b) makes a key in the console; its secret, copied from the page, works against the API with only its scopes', async () => {
    const { page } = ownerPage;
    await go(page, 'API keys', 'screen-keys');
    await page.getByTestId('new-key').click();
    await page.getByLabel('Name').fill('Estate app backend');
    for (const scope of ['incidents:read', 'access_codes:read']) await page.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    keySecret = (await page.getByTestId('secret-once').getByTestId('secret').textContent())!.trim();
    expect(keySecret).toMatch(/^svc_live_[A-Za-z0-9]{32,}$/);
    const row = page.getByTestId('key-row').filter({ hasText: 'Estate app backend' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`…${keySecret.slice(-4)}`);

    const key = stack.server.client(keySecret);
    expect((await key.get('/incidents')).status).toBe(200);
    expect((await key.get('/access-codes')).status).toBe(200);
    const write = await key.post('/incidents', incidentBody());
    expect(write.status).toBe(403);
    expect(write.body.message).toContain('incidents:write');
    expect((await key.get('/api-keys')).status).toBe(403);
    const listed = (await org.live.get('/api-keys?limit=100')).body.results.find((k: { name: string }) => k.name === 'Estate app backend');
    expect(listed.scopes.sort()).toEqual(['access_codes:read', 'incidents:read']);
    keyId = listed.key_id;
    await page.getByRole('button', { name: 'Done' }).click();
    noProblems(ownerPage);
  });

  it('(c) revokes the key from the console: the next API request with it is a 401', async () => {
    const { page } = ownerPage;
    const row = page.getByTestId('key-row').filter({ hasText: 'Estate app backend' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('group').getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await stack.server.client(keySecret).get('/incidents');
    expect(refused.status).toBe(401);
    await page.getByLabel('Show').selectOption('revoked');
    await page.getByTestId('key-row').filter({ hasText: 'Estate app backend' }).getByText('Revoked').waitFor();
    noProblems(ownerPage);
  });

  it('(d) in sandbox, a test event sent from the console arrives signed (Stripe verifies it); a failed delivery resent from the console arrives', async () => {
    const { page } = ownerPage;
    await page.getByTestId('env-sandbox').click();
    await page.getByTestId('sandbox-banner').waitFor();
    await go(page, 'Webhooks', 'screen-webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(receiverUrl);
    await page.getByLabel('Description (optional)').fill('Control room board <b>not bold</b>');
    await page.getByRole('checkbox', { name: /^incident\.\* / }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const signingSecret = (await page.getByTestId('secret-once').getByTestId('secret').textContent())!.trim();
    expect(signingSecret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    // What a partner wrote is text: the tag stays a tag on screen.
    await page.getByText('Control room board <b>not bold</b>').waitFor();
    expect(await page.locator('b', { hasText: 'not bold' }).count()).toBe(0);

    await page.getByRole('link', { name: receiverUrl }).click();
    await page.getByTestId('screen-endpoint').waitFor();
    await page.getByLabel('Type').selectOption('incident.created');
    await page.getByRole('button', { name: 'Send test' }).click();
    const sent = JSON.parse((await page.getByTestId('test-result').textContent())!) as { event: { id: string } };
    await vi.waitFor(() => expect(received.map((r) => r.event.id)).toContain(sent.event.id), { timeout: 15_000, interval: 50 });
    const delivered = received.find((r) => r.event.id === sent.event.id)!;
    const header = String(delivered.headers['svc-signature']);
    const t = Number(/t=(\d+)/.exec(header)![1]);
    const verified = new Stripe('sk_test_unused').webhooks.constructEvent(delivered.raw, header, signingSecret, 300, undefined, t) as unknown as { type: string; test: boolean };
    expect(verified).toMatchObject({ type: 'incident.created', test: true });
    // Its attempt shows in the delivery log without a reload (issue #34).
    await page.getByTestId('delivery-row').filter({ hasText: sent.event.id }).waitFor({ timeout: 10_000 });

    // The receiver is down for one event: its delivery fails, then is resent from the console once it is back.
    answer = 503;
    await page.getByLabel('Type').selectOption('incident.resolved');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByTestId('test-result').getByText('incident.resolved').waitFor();
    const failed = JSON.parse((await page.getByTestId('test-result').textContent())!) as { event: { id: string } };
    await vi.waitFor(() => expect(received.map((r) => r.event.id)).toContain(failed.event.id), { timeout: 15_000, interval: 50 });
    await page.getByLabel('Result').selectOption('failed');
    // The failed event's own row, not the first row: until the filtered page answers, the table
    // still shows the page before it (the first test event's delivery, which succeeded).
    const failedRow = page.getByTestId('delivery-row').filter({ hasText: failed.event.id }).first();
    await vi.waitFor(
      async () => {
        await page.getByLabel('Event id').fill(failed.event.id);
        await failedRow.waitFor({ timeout: 1000 });
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(await failedRow.textContent()).toContain('503');
    answer = 200;
    const before = received.length;
    const now = stack.server.clock.now().getTime();
    await page.getByLabel('From').fill(new Date(now - 3_600_000).toISOString().slice(0, 16));
    await page.getByLabel('to', { exact: true }).fill(new Date(now + 120_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Resend failures' }).click();
    await page.getByText(/1 event queued again/).waitFor();
    await vi.waitFor(() => expect(received.slice(before).map((r) => r.event.id)).toContain(failed.event.id), { timeout: 15_000, interval: 50 });
    await page.getByLabel('Result').selectOption('succeeded');
    const resentRow = page.getByTestId('delivery-row').filter({ hasText: failed.event.id }).filter({ hasText: 'Delivered' }).first();
    await vi.waitFor(
      async () => {
        await page.getByLabel('Event id').fill('');
        await page.getByLabel('Event id').fill(failed.event.id);
        await resentRow.waitFor({ timeout: 1000 });
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(await resentRow.textContent()).toContain('HTTP 200');
    noProblems(ownerPage);
  });

  it('(e) the audit log shows the key made and revoked by the person, and the test event sent', async () => {
    const { page } = ownerPage;
    await page.getByTestId('env-live').click();
    await go(page, 'Audit log', 'screen-audit-log');
    const created = page.getByTestId('audit-row').filter({ hasText: 'createApiKey' });
    await created.first().waitFor();
    expect(await created.count()).toBe(1);
    const text = await created.textContent();
    // By the name she gave and her id, never only an email.
    expect(text).toContain(owner.name);
    expect(text).toMatch(/Person per_/);
    expect(text).toContain(keyId);
    expect(await page.getByTestId('audit-row').filter({ hasText: 'revokeApiKey' }).filter({ hasText: keyId }).filter({ hasText: owner.name }).count()).toBe(1);
    expect(await page.getByTestId('audit-row').filter({ hasText: 'sendTestWebhookEvent' }).count()).toBe(2);
    expect(await page.getByTestId('audit-row').filter({ hasText: 'resendFailedWebhookEvents' }).count()).toBe(1);
    await page.getByLabel('Action').fill('createApiKey');
    await vi.waitFor(async () => expect(await page.getByTestId('audit-row').count()).toBe(1), { timeout: 10_000, interval: 100 });
    noProblems(ownerPage);
  });

  it('(f) a viewer sees no control to create a key, and the API refuses (403) when they try anyway', async () => {
    const viewerPage = await stack.open();
    const { page } = viewerPage;
    const link = await inviteFromHost(stack.server, org.organizationId, 'viewer', 'ngozi@lekkishield.ng');
    await joinInBrowser(page, stack.server, link, { email: 'ngozi@lekkishield.ng', name: 'Ngozi Eze', role: 'viewer' });
    await page.getByTestId('key-row').first().waitFor();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.getByRole('button', { name: /New key|Revoke|Roll/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    // The same request the owner's page made, from the viewer's page: cookie, CSRF token and Origin all in order.
    const tried = await page.evaluate<{ status: number; body: { message: string } }>(`(async () => {
      const { session } = await (await fetch('/v1/external/console/session')).json();
      const response = await fetch('/v1/external/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token, 'tsaro-environment': 'live' },
        body: JSON.stringify({ name: 'Sneaky', scopes: ['incidents:read'] }),
      });
      return { status: response.status, body: await response.json() };
    })()`);
    expect(tried.status).toBe(403);
    expect((await org.live.get('/api-keys?limit=100')).body.results.map((k: { name: string }) => k.name)).not.toContain('Sneaky');
    noProblems(viewerPage);
  });

  it('(h) the other controls answer as the real API does: invite from People, role change, roll, rotate, edit, sessions, password, a new authenticator', async () => {
    const { page } = ownerPage;
    const alerts = page.getByRole('alert');
    await page.getByTestId('env-live').click();
    await go(page, 'People', 'person-row');
    await page.getByRole('button', { name: 'Invite someone' }).click();
    await page.getByLabel('Email').fill('musa@lekkishield.ng');
    await page.getByLabel('Name (optional)').fill('Musa Bello');
    await page.getByRole('radio', { name: /^operator/ }).check();
    await page.getByTestId('invite-form').getByRole('button', { name: 'Make invitation link' }).click();
    const inviteUrl = (await page.getByTestId('invite-url').textContent())!.trim();
    expect(inviteUrl).toMatch(new RegExp(`^${stack.origin}/console/join/[\\w-]{43}$`));
    const musa = await stack.open();
    await joinInBrowser(musa.page, stack.server, inviteUrl, { email: 'musa@lekkishield.ng', name: 'Musa Bello', role: 'operator' });
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByLabel('Role of musa@lekkishield.ng').selectOption('developer');
    // The new role holds on the next page, with no new sign-in: a developer reads and makes keys.
    await musa.page.goto('/console/keys');
    await musa.page.getByTestId('new-key').waitFor();
    expect(await alerts.count()).toBe(0);

    await go(page, 'API keys', 'key-row');
    const row = page.getByTestId('key-row').filter({ hasText: 'Owner key (live)' }).first();
    await row.getByRole('button', { name: 'Roll' }).click();
    await row.getByLabel('Keep the old secret working for').selectOption('1');
    await row.getByRole('button', { name: 'Roll', exact: true }).click();
    const rolled = (await page.getByTestId('secret-once').getByTestId('secret').textContent())!.trim();
    expect((await stack.server.client(rolled).get('/api-keys')).status).toBe(200);
    expect(await alerts.count()).toBe(0);

    await page.getByTestId('env-sandbox').click();
    await go(page, 'Webhooks', 'endpoint-row');
    await page.getByRole('link', { name: receiverUrl }).click();
    await page.getByTestId('screen-endpoint').waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).last().click();
    expect((await page.getByTestId('secret').textContent())!.trim()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Description (optional)').fill('Control room board, rotated');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Control room board, rotated').first().waitFor();
    expect(await alerts.count()).toBe(0);

    // A second session of the owner's, ended from the account page.
    const other = await stack.open();
    await signInInBrowser(other.page, stack.server, owner);
    await go(page, 'Account', 'session-row');
    await vi.waitFor(
      async () => {
        await page.reload();
        await page.getByTestId('session-row').first().waitFor();
        expect(await page.getByTestId('session-row').count()).toBe(2);
      },
      { timeout: 10_000 },
    );
    await page.getByTestId('session-row').filter({ hasNotText: 'this browser' }).getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Sign out' }).click();
    await vi.waitFor(async () => expect(await page.getByTestId('session-row').count()).toBe(1), { timeout: 10_000 });
    await other.page.reload();
    await other.page.getByTestId('sign-in-form').waitFor();

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('harmattan-lagoon-gate-43');
    await page.getByLabel('New password again').fill('harmattan-lagoon-gate-43');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();

    await page.getByRole('button', { name: 'Set up a new authenticator' }).click();
    await page.getByTestId('totp-enrolment').getByTestId('qr').waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    await page.getByLabel('Six-digit code').fill(await nextCode(stack.server, secret));
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    owner = { ...owner, totpSecret: secret };
    await page.getByLabel('I have kept my recovery codes').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('screen-account').waitFor();
    expect(await alerts.count()).toBe(0);
    noProblems(ownerPage);
    noProblems(musa);
  });

  it('(g) axe-core finds no serious or critical violation on the sign-in, keys, webhooks and audit screens', async () => {
    const signIn = await stack.open();
    await signIn.page.goto('/console/');
    await signIn.page.getByTestId('sign-in-form').waitFor();
    const found: Record<string, string[]> = { 'sign-in': await axeViolations(signIn.page) };
    const { page } = ownerPage;
    // Each in Live and in Sandbox (its banner and tags on every screen).
    for (const environment of ['live', 'sandbox'] as const) {
      await page.getByTestId(`env-${environment}`).click();
      for (const [name, link, ready] of [
        ['keys', 'API keys', 'key-row'],
        ['webhooks', 'Webhooks', 'screen-webhooks'],
        ['audit', 'Audit log', 'audit-row'],
      ] as const) {
        await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
        await page.getByTestId(ready).first().waitFor();
        found[`${name} (${environment})`] = await axeViolations(page);
      }
    }
    expect(found).toEqual({
      'sign-in': [],
      'keys (live)': [],
      'webhooks (live)': [],
      'audit (live)': [],
      'keys (sandbox)': [],
      'webhooks (sandbox)': [],
      'audit (sandbox)': [],
    });
    noProblems(ownerPage);
    noProblems(signIn);
  });
});
