import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENS, SCREENSHOTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';
import { stubApi } from './support/stub-api.ts';

/** Every signed-in screen, and what a test waits for on it. */
const SIGNED_IN = [
  ['keys', '/console/keys', 'key-row'],
  ['webhooks', '/console/webhooks', 'endpoint-health'],
  ['endpoint', '/console/webhooks/whe_01', 'delivery-row'],
  ['events', '/console/events', 'event-row'],
  ['gates', '/console/gates', 'screen-gates'],
  ['people', '/console/people', 'person-row'],
  ['audit-log', '/console/audit-log', 'audit-row'],
  ['account', '/console/account', 'session-row'],
] as const;

describe('every console screen, at 1366×768 and on a 10-inch tablet both ways (API answers stubbed)', () => {
  let stack: ConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack('screens');
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  for (const [size, viewport] of Object.entries(SCREENS)) {
    it(`renders each signed-in screen at ${size}, text only, with no error and nothing the CSP refuses`, async () => {
      const { page, problems } = await stack.open(viewport);
      await stubApi(page);
      for (const [name, path, ready] of SIGNED_IN) {
        await page.goto(path);
        await page.getByTestId(ready).first().waitFor();
        if (name === 'events') await page.getByTestId('event-row').first().getByRole('button').click();
        if (name === 'events') await page.getByTestId('delivery-row').first().waitFor();
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: size !== 'desktop' });
      }
      // What a partner or visitor wrote is text: a tag in it stays a tag on screen.
      await page.goto('/console/webhooks');
      await page.getByText('<b>not bold</b> — text only').waitFor();
      expect(await page.locator('b', { hasText: 'not bold' }).count()).toBe(0);
      expect(problems).toEqual([]);
    });
  }

  it('marks Sandbox on every screen once switched, and keeps the choice', async () => {
    const { page, problems } = await stack.open(SCREENS.desktop);
    await stubApi(page);
    await page.goto('/console/keys');
    await page.getByTestId('env-sandbox').click();
    await page.getByTestId('sandbox-banner').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'keys-sandbox-desktop.png') });
    await page.goto('/console/webhooks');
    await page.getByTestId('sandbox-banner').waitFor();
    expect(problems).toEqual([]);
  });

  it('shows the sign-in, invitation, authenticator and recovery-code steps', async () => {
    const { page, problems } = await stack.open(SCREENS.desktop);
    await stubApi(page, { signedIn: false });
    await page.goto('/console/');
    await page.getByTestId('sign-in-form').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in-desktop.png') });
    await page.goto('/console/join/inv_abc');
    await page.getByTestId('join-form').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'join-desktop.png') });

    const enrol = await stack.open(SCREENS['tablet-portrait']);
    await stubApi(enrol.page, { stage: 'enrol_totp' });
    await enrol.page.goto('/console/');
    await enrol.page.getByTestId('qr').waitFor();
    await enrol.page.screenshot({ path: join(SCREENSHOTS, 'enrol-totp-tablet-portrait.png') });
    await enrol.page.getByLabel('Six-digit code').fill('123456');
    await enrol.page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await enrol.page.getByTestId('recovery-codes').waitFor();
    await enrol.page.screenshot({ path: join(SCREENSHOTS, 'recovery-codes-tablet-portrait.png') });
    expect([...problems, ...enrol.problems].filter((p) => !/status of 401/.test(p))).toEqual([]);
  });

  it('gives a new gate a key with the kiosk scopes and shows its setup values as text and a QR code', async () => {
    const { page, problems } = await stack.open(SCREENS.desktop);
    await stubApi(page);
    const created: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api-keys')) created.push(request.postDataJSON());
    });
    await page.goto('/console/gates');
    await page.getByTestId('new-gate-button').click();
    await page.getByLabel('Gate name').fill('Admiralty main gate');
    await page.getByLabel('Entry point').fill('Gate A');
    await page.getByLabel('Location (latitude, longitude)').fill('6.4281, 3.4216');
    await page.getByRole('button', { name: 'Create gate key' }).click();
    await page.getByTestId('gate-setup').getByTestId('qr').waitFor();
    expect(created).toEqual([{ name: 'Gate: Admiralty main gate', scopes: ['access_codes:validate', 'access_codes:write', 'logs:read', 'incidents:write', 'incidents:read'] }]);
    expect(await page.getByTestId('setup-KIOSK_SERVER_URL').textContent()).toBe(`${stack.origin}/v1/external`);
    expect(await page.getByTestId('setup-KIOSK_LOCATION').textContent()).toBe('6.4281,3.4216');
    await page.screenshot({ path: join(SCREENSHOTS, 'gate-setup-desktop.png') });
    expect(problems).toEqual([]);
  });

  it('hides every write control from a viewer', async () => {
    const { page } = await stack.open(SCREENS.desktop);
    await stubApi(page, { role: 'viewer' });
    await page.goto('/console/keys');
    await page.getByTestId('key-row').first().waitFor();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Revoke|Roll/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.goto('/console/webhooks/whe_01');
    await page.getByTestId('delivery-row').first().waitFor();
    expect(await page.getByRole('button', { name: /Resend|Delete|Rotate|Disable|Send test/ }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'keys-viewer-desktop.png') });
  });
});
