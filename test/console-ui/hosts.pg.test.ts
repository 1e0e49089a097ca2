import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #27 on several hosts: two servers on one PostgreSQL database (the same SECRETS_KEY, the
 * same hand-moved clock). What a person does in the console on host A holds on host B: a revoked
 * key is refused there within a second (the key cache hears it by NOTIFY), a removed person's
 * session at once (sessions are read from the database on every request).
 */
let stack: ConsoleStack;
let hostB: TestServer;
let org: TestOrganization;
let pageA: Page;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  stack = await startConsoleStack('hosts', { engine: 'postgres' });
  hostB = await startTestServer({ database: stack.server.database, clock: stack.server.clock });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  ({ page: pageA } = await stack.open());
  const link = await inviteFromHost(stack.server, org.organizationId, 'owner', 'ada@lekkishield.ng');
  await joinInBrowser(pageA, stack.server, link, { email: 'ada@lekkishield.ng', name: 'Ada Obi', role: 'owner' });
});
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await hostB?.stop();
  await stack?.stop();
});

describe('the console on two hosts sharing one PostgreSQL database', () => {
  it('a key revoked in the console on host A is refused (401) on host B within a second', async () => {
    await pageA.getByTestId('new-key').click();
    await pageA.getByLabel('Name').fill('Gatehouse tablet');
    await pageA.getByRole('checkbox', { name: /^incidents:read / }).check();
    await pageA.getByRole('button', { name: 'Create key' }).click();
    const secret = (await pageA.getByTestId('secret-once').getByTestId('secret').textContent())!.trim();
    await pageA.getByRole('button', { name: 'Done' }).click();
    const onB = hostB.client(secret);
    // Host B knows the key (and caches it) before it is revoked.
    await vi.waitFor(async () => expect((await onB.get('/incidents')).status).toBe(200), { timeout: 5_000, interval: 50 });

    const row = pageA.getByTestId('key-row').filter({ hasText: 'Gatehouse tablet' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const revoked = pageA.waitForResponse((response) => response.request().method() === 'DELETE' && /\/api-keys\/key_/.test(response.url()));
    await row.getByRole('group').getByRole('button', { name: 'Revoke' }).click();
    expect((await revoked).status()).toBe(200);
    // The contract's "within a second": polled, bounded at 1 s from the revocation's answer.
    await vi.waitFor(async () => expect((await onB.get('/incidents')).status).toBe(401), { timeout: 1_000, interval: 20 });
  });

  it("a person removed in the console on host A has their session refused at once on host B", async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: new URL(hostB.baseUrl).origin, timezoneId: 'UTC' });
    contexts.push(context);
    const pageB = await context.newPage();
    const link = await inviteFromHost(hostB, org.organizationId, 'developer', 'tunde@lekkishield.ng');
    await joinInBrowser(pageB, hostB, link, { email: 'tunde@lekkishield.ng', name: 'Tunde Bakare', role: 'developer' });
    const keysOnB = `(async () => (await fetch('/v1/external/api-keys')).status)()`;
    expect(await pageB.evaluate<number>(keysOnB)).toBe(200);

    await pageA.getByRole('navigation').getByRole('link', { name: 'People', exact: true }).click();
    const row = pageA.getByTestId('person-row').filter({ hasText: 'tunde@lekkishield.ng' });
    await row.getByRole('button', { name: 'Remove' }).click();
    const removed = pageA.waitForResponse((response) => response.request().method() === 'DELETE' && /\/console\/people\/per_/.test(response.url()));
    await row.getByRole('group').getByRole('button', { name: 'Remove' }).click();
    expect((await removed).status()).toBe(200);

    // At once: the very next request on host B, no waiting.
    expect(await pageB.evaluate<number>(keysOnB)).toBe(401);
    await pageB.getByRole('navigation').getByRole('link', { name: 'Webhooks', exact: true }).click();
    await pageB.getByTestId('sign-in-form').waitFor();
    await pageB.getByText('Your session ended').waitFor();
  });
});
