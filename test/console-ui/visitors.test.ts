import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #28's sites against the real server: a visitor the API lets in is on site without a
 * reload and gone at checkout; a guest list of 120 is checked whole and sent in batches of 50;
 * many codes are revoked at once; a pass prints with its QR code.
 */
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let problems: string[];

async function go(tab: 'On site now' | 'Access codes' | 'Access logs'): Promise<void> {
  await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: tab, exact: true }).click();
}

beforeAll(async () => {
  stack = await startConsoleStack('visitors');
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  ({ page, problems } = await stack.open());
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@lekkishield.ng');
  await joinInBrowser(page, stack.server, link, { email: 'kemi@lekkishield.ng', name: 'Kemi Adeyemi', role: 'operator' });
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Visitors', exact: true }).click();
  await page.getByTestId('on-site').waitFor();
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
  await page.evaluate('window.__sameDocument = true');
});
afterAll(() => stack?.stop());

describe('visitors (real Chromium, real server)', () => {

  it('a visitor validated through the API appears on site at their gate, and leaves at checkout, without a reload', async () => {
    const code = (await org.live.post('/access-codes', { visitor_name: 'Bisi Ade', visitor_phone: '+2348030000101', entry_point: 'North gate' })).body.access_code;
    const validated = (await org.live.post('/access-codes/validate', { code: code.code, entry_point: 'North gate' })).body;
    expect(validated.valid).toBe(true);
    const row = page.locator(`[data-testid=visitor-row][data-log-id="${validated.log_id}"]`);
    await row.waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('on-site-gate').filter({ has: row }).getByRole('heading').textContent()).toContain('North gate');
    expect(await row.textContent()).toContain('Bisi Ade');

    expect((await org.live.patch(`/access-logs/${validated.log_id}/checkout`, {})).status).toBe(200);
    await row.waitFor({ state: 'detached', timeout: 5_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
  });

  it('a guest list with one bad row sends nothing; fixed, 120 visitors go in batches of 50 and every code is issued once', async () => {
    await go('Access codes');
    await page.getByTestId('issue-csv').click();
    const rows = Array.from({ length: 120 }, (_, i) => `Guest ${i + 1},+23480300${String(i).padStart(5, '0')},South gate`);
    const bad = join(ARTIFACTS, 'visitors', 'guests-bad.csv');
    writeFileSync(bad, ['visitor_name,visitor_phone,entry_point', ...rows.slice(0, 60), ',+2348039999999,South gate', ...rows.slice(60)].join('\n'));
    const batches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/access-codes/bulk')) batches.push(request.postData()!);
    });
    await page.getByTestId('csv-file').setInputFiles(bad);
    await page.getByTestId('csv-problems').waitFor();
    expect(await page.getByTestId('csv-problems').textContent()).toContain('Row 62: visitor_name');
    expect(await page.getByTestId('csv-send').count()).toBe(0);

    const good = join(ARTIFACTS, 'visitors', 'guests.csv');
    writeFileSync(good, ['visitor_name,visitor_phone,entry_point', ...rows].join('\n'));
    await page.getByTestId('csv-file').setInputFiles(good);
    await page.getByTestId('csv-send').click();
    await page.getByTestId('csv-done').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('csv-done').textContent()).toContain('120 codes issued');
    expect(batches.map((body) => (JSON.parse(body) as { visitors: unknown[] }).visitors.length)).toEqual([50, 50, 20]);
    const stats = (await org.live.get('/access-codes?search=Guest&limit=1')).body;
    expect(stats.totalResults).toBe(120);
  });

  it('revokes many codes at once, all or nothing, and prints a pass with its QR code', async () => {
    await page.getByTestId('code-status').selectOption('active');
    const rows = page.getByTestId('code-row');
    await rows.first().waitFor();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await rows.nth(i).getAttribute('data-code-id'))!);
      await rows.nth(i).getByRole('checkbox').check();
    }
    await page.getByRole('button', { name: 'Revoke 3 selected' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('3 codes revoked').waitFor({ timeout: 5_000 });
    for (const id of ids) expect((await org.live.get(`/access-codes/${id}`)).body.access_code.status).toBe('revoked');

    await rows.first().getByRole('button', { name: 'Print pass' }).click();
    const pass = page.getByTestId('pass');
    await pass.getByTestId('qr').waitFor();
    expect(await pass.getByTestId('pass-code').textContent()).toMatch(/^[A-Z0-9]+-[A-Z0-9]{4}$/);
    expect(await axeViolations(page)).toEqual([]);
    await pass.getByRole('button', { name: 'Close' }).click();
  });

  it('access logs filter by entry point and export the filtered visits as CSV', async () => {
    await go('Access logs');
    await page.getByLabel('Entry point').fill('North gate');
    await page.getByTestId('log-row').first().waitFor();
    expect(await page.getByTestId('log-row').count()).toBe(1);
    const download = page.waitForEvent('download');
    await page.getByTestId('logs-csv').click();
    const file = await (await download).path();
    const text = (await import('node:fs')).readFileSync(file, 'utf8');
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(2);
    expect(text).toContain('Bisi Ade');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('logs no error and nothing the Content-Security-Policy refused (the signed-out session check before joining is a 401)', () => {
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});

describe('the visitor screens moved from /console/sites/ (issue #31)', () => {
  it('an old address under /console/sites/ lands on the same tab under /console/visitors/', async () => {
    await page.goto('/console/sites/codes');
    await page.waitForURL('**/console/visitors/codes');
    await page.getByTestId('screen-visitors').waitFor();
    expect(await page.getByRole('navigation', { name: 'Visitors' }).getByRole('link', { name: 'Access codes', exact: true }).getAttribute('aria-current')).toBe('page');
  });
});
