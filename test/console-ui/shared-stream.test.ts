import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * A browser allows six connections to one origin, and a control room keeps several tabs open:
 * the console's tabs share one event stream (issue #28). One tab holds it; the others hear its
 * events; when that tab closes, another takes the stream over and misses nothing.
 */
let stack: ConsoleStack;
let org: TestOrganization;
let first: WatchedPage;
const streamsOpened: string[] = [];

const card = (page: Page, incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
async function boardIn(page: Page, name: string): Promise<void> {
  page.on('request', (request) => request.url().includes('/events/stream') && streamsOpened.push(name));
  await page.goto('/console/board');
  await page.getByTestId('screen-board').waitFor();
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
}

beforeAll(async () => {
  stack = await startConsoleStack('shared-stream');
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  first = await stack.open();
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@lekkishield.ng');
  await joinInBrowser(first.page, stack.server, link, { email: 'kemi@lekkishield.ng', name: 'Kemi Adeyemi', role: 'operator' });
});
afterAll(() => stack?.stop());

describe('console tabs share one event stream (real Chromium, real server)', () => {
  it('three tabs open one stream between them, and each shows an SOS as it happens', async () => {
    streamsOpened.length = 0;
    await boardIn(first.page, 'first');
    const second = await first.context.newPage();
    const third = await first.context.newPage();
    await boardIn(second, 'second');
    await boardIn(third, 'third');
    expect(streamsOpened).toEqual(['first']);

    const id = (await org.live.post('/incidents', incidentBody({ subject: { name: 'Musa Bello' } }))).body.incident.incident_id as string;
    for (const page of [first.page, second, third]) await card(page, id).waitFor({ timeout: 5_000 });
    expect(streamsOpened).toEqual(['first']);
  });

  it('when the tab holding the stream closes, another takes it over, resuming after the last event heard', async () => {
    const [, second, third] = first.context.pages();
    streamsOpened.length = 0;
    await first.page.close();
    await expect.poll(() => streamsOpened.length, { timeout: 10_000 }).toBe(1);
    const id = (await org.live.post('/incidents', incidentBody({ subject: { name: 'Ngozi Eze' } }))).body.incident.incident_id as string;
    for (const page of [second!, third!]) await card(page, id).waitFor({ timeout: 5_000 });
    expect(streamsOpened).toHaveLength(1);
    expect(first.problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
