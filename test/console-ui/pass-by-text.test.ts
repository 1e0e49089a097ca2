import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, startKannel, type KannelRig } from '../support/kannel.ts';
import type { TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #48 in the console (real Chromium, real Kannel with fakesmsc as the SMSC): a code is
 * issued with its purpose and its pass sent by text; the link the visitor's phone received opens
 * the pass, and is dead after the code is revoked. The call list says which numbers are not
 * texted.
 */
let rig: KannelRig;
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;

describe.skipIf(!process.env.TSARO_TEST_KANNEL)('a pass sent by text from the console (real Chromium, real Kannel)', () => {
  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    stack = await startConsoleStack('pass-by-text', {
      deliverTexts: false,
      config: { SMS_GATEWAY: 'kannel', KANNEL_SENDSMS_URL: rig.sendsmsUrl, KANNEL_USERNAME: rig.username, KANNEL_PASSWORD: rig.password },
    });
    org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
    await org.live.patch(`/sites/${(await org.live.get('/sites')).body.results[0].site_id}`, {
      call_list: [
        { name: 'Estate control', phone: '0803 123 4567' },
        { name: 'Police', phone: '112' },
      ],
    });
    ({ page } = await stack.open());
    const email = 'kemi@lekkishield.ng';
    await joinInBrowser(page, stack.server, await inviteFromHost(stack.server, org.organizationId, 'operator', email), { email, name: 'Kemi Adeyemi', role: 'operator' });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await rig?.stop();
  });

  it('the call list says 112 is called, not texted', async () => {
    await page.goto('/console/sites');
    const list = page.getByTestId('call-list').first();
    await list.waitFor();
    expect(await list.textContent()).toContain('Police: 112 (not texted: An emergency short code: called, never texted)');
    expect(await list.textContent()).not.toMatch(/Estate control: \+2348031234567 \(not texted/);
  });

  it('a code issued with its purpose is sent by text; the link opens the pass, and is dead after a revoke', async () => {
    await page.goto('/console/visitors/codes');
    await page.getByTestId('issue-one').click();
    const form = page.getByTestId('issue-one-form');
    await form.getByLabel("Visitor's name").fill('Chioma Eze');
    await form.getByLabel('Phone').fill('0803 111 2222');
    await form.getByTestId('code-purpose').fill('Plumbing repair');
    await form.getByRole('button', { name: 'Issue the code' }).click();
    const pass = page.getByTestId('pass');
    await pass.getByTestId('qr').waitFor();
    expect(await pass.textContent()).toContain('Purpose: Plumbing repair');
    const code = (await pass.getByTestId('pass-code').textContent())!;
    expect((await org.live.get(`/access-codes?search=${code}`)).body.results[0].purpose).toBe('Plumbing repair');

    await pass.getByRole('button', { name: 'Send by text' }).click();
    await pass.getByTestId('send-pass-said').getByText('Sent to +2348031112222').waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'pass-by-text', 'sent-1366x768.png') });
    expect(await stack.server.running.deliverTexts()).toBe(1);
    const [text] = await rig.waitForReceived(1);
    expect(text!.to.replace(/^\+/, '')).toBe('2348031112222');
    expect(text!.text).toContain(`Code ${code}`);
    const path = text!.text.match(/(\/p\/[A-Za-z0-9_-]{22})/)![1]!;

    // What the visitor's phone opens: the pass as an image.
    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    const opened = await phone.goto(path);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(await opened!.text()).toContain(code);
    await phone.screenshot({ path: join(ARTIFACTS, 'pass-by-text', 'pass-390x844.png') });

    const codeId = (await org.live.get(`/access-codes?search=${code}`)).body.results[0].code_id;
    expect((await org.live.delete(`/access-codes/${codeId}`)).status).toBe(200);
    const dead = await phone.goto(path);
    expect(dead!.status()).toBe(410);
    await phone.close();
  });
});
