import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleAppBuilt } from '../../console/build.ts';
import { inviteOrReset } from '../../server/people/service.ts';
import { ManualClock } from '../support/clock.ts';
import { browserTmp } from '../support/temp.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { ensureRendererBuilt } from '../ui/support/build-renderer.ts';
import { GATE_SCOPES, startKioskHost, type KioskHost } from '../ui/support/kiosk-stack.ts';
import { holdPanicButton, kioskCall, openKiosk, wedgeScan } from '../ui/support/page.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #34's journey: a security company with three estates, on two hosts sharing one
 * PostgreSQL database. The owner makes three sites of two gates each; a real kiosk
 * (`npm run kiosk:web`) stands at each gate of two of them, each with its gate's key (limited to
 * its site) and talking to the host nearest it. An estate manager limited to estate A sees only
 * A, in the console on host B and through the key they make; the control room operator, on host
 * A, sees every estate and filters by one. A pass for A is refused at B's gate online and with
 * B's host stopped; an SOS at B's gate puts B's numbers on the operator's board, over the stream
 * (the board does not poll) and without a reload. How fast a frame crosses from one host to another
 * is bench/event-stream.ts's to measure (aim: p99 under 1 s), not this test's: beside the whole
 * suite on two cores, a wait of 2 s here failed while the product was right.
 */

/** Kiosks scan and beat on the machine's real time; each person's code is their first, so a real clock serves TOTP too. */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

type Site = { site_id: string; name: string; gates: string[]; numbers: string[] };
const ESTATES = [
  { name: 'Admiralty Estate', gates: ['Admiralty north gate', 'Admiralty south gate'], call_list: [{ name: 'Admiralty control', phone: '0805 765 4321' }], latitude: 6.4474, longitude: 3.4703 },
  { name: 'Banana Island Estate', gates: ['Banana main gate', 'Banana service gate'], call_list: [{ name: 'Banana control', phone: '0803 222 3344' }, { name: 'Police', phone: '112' }], latitude: 6.4549, longitude: 3.4452 },
  { name: 'Chevron Drive Estate', gates: ['Chevron east gate', 'Chevron west gate'], call_list: [{ name: 'Chevron control', phone: '0802 111 0000' }], latitude: 6.4382, longitude: 3.5312 },
] as const;

let stack: ConsoleStack;
let hostB: TestServer;
let org: TestOrganization;
let browser: Browser;
const sites: Site[] = [];
const kiosks: { site: number; gate: string; host: KioskHost }[] = [];
let operator: Page;
let manager: Page;
let restoreTemp: () => void = () => undefined;

const nav = (page: Page, label: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
const kioskRows = (page: Page) => page.locator('[data-testid=kiosk-row]');

beforeAll(async () => {
  await Promise.all([ensureRendererBuilt(), ensureConsoleAppBuilt()]);
  const clock = new WallClock();
  stack = await startConsoleStack('estates', { engine: 'postgres', clock, config: { KIOSK_OFFLINE_AFTER_S: '60' } });
  hostB = await startTestServer({ database: stack.server.database, clock });
  browser = stack.browser;
  org = await stack.server.createOrganization({ name: 'Shield Security' });

  // The owner's three estates, two gates each, each with its call list (through the API with the owner's key).
  for (const estate of ESTATES) {
    const made = await org.live.post('/sites', { name: estate.name, entry_points: estate.gates, call_list: estate.call_list, location: { latitude: estate.latitude, longitude: estate.longitude } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const site = made.body.site as { site_id: string; call_list: { phone: string }[] };
    sites.push({ site_id: site.site_id, name: estate.name, gates: [...estate.gates], numbers: site.call_list.map((entry) => `tel:${entry.phone}`) });
  }

  // A kiosk at each gate of estates A and B, with its gate's key limited to its estate: A's gates talk to host A, B's to host B.
  const dir = join(ARTIFACTS, 'estates');
  mkdirSync(dir, { recursive: true });
  const temp = browserTmp('tsaro-estates-');
  restoreTemp = temp.restore;
  for (const index of [0, 1]) {
    const key = await org.live.post('/api-keys', { name: `${sites[index]!.name} gates`, scopes: GATE_SCOPES, site_ids: [sites[index]!.site_id] });
    expect(key.status).toBe(201);
    for (const gate of sites[index]!.gates) {
      const host = await startKioskHost({
        dir,
        tmp: temp.dir,
        logName: `${gate.replace(/\W+/g, '-')}.log`,
        env: { KIOSK_HEARTBEAT_S: '5' },
        configured: { serverUrl: index === 0 ? stack.server.baseUrl : hostB.baseUrl, apiKey: key.body.secret, entryPoint: gate, latitude: ESTATES[index]!.latitude, longitude: ESTATES[index]!.longitude },
      });
      kiosks.push({ site: index, gate, host });
    }
  }

  // Something at each estate for the lists: an incident and a code.
  for (const site of sites) {
    expect((await org.live.post('/incidents', incidentBody({ site_id: site.site_id, title: `Fence alarm at ${site.name}` }))).status).toBe(201);
    expect((await org.live.post('/access-codes', { visitor_name: `Guest of ${site.name}`, visitor_phone: '+2348031112233', site_id: site.site_id })).status).toBe(201);
  }

  // The control room operator, every estate, on host A; the estate manager of A, on host B.
  ({ page: operator } = await stack.open());
  await joinInBrowser(operator, stack.server, await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@shield.ng'), { email: 'kemi@shield.ng', name: 'Kemi Adeyemi', role: 'operator' });
  const managerInvite = await inviteOrReset(
    { db: hostB.running.database.db, clock: hostB.clock, publicUrl: new URL(hostB.baseUrl).origin },
    { organizationId: org.organizationId, email: 'tunde@admiralty.ng', role: 'admin', siteIds: [sites[0]!.site_id] },
  );
  const managerContext = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: new URL(hostB.baseUrl).origin, timezoneId: 'UTC', locale: 'en-GB' });
  manager = await managerContext.newPage();
  await joinInBrowser(manager, hostB, managerInvite.invite_url, { email: 'tunde@admiralty.ng', name: 'Tunde Bakare', role: 'admin' });
}, 300_000);

afterAll(async () => {
  for (const kiosk of kiosks) await kiosk.host.stop();
  await hostB?.stop().catch(() => undefined);
  await stack?.stop();
  restoreTemp();
});

describe('many estates, one control room (issue #34; two hosts on PostgreSQL, four real kiosks, Chromium)', () => {
  it("the estate manager of A sees only A: board, sites, kiosks, reports, and the lists of the key they make", async () => {
    const [a, b] = sites as [Site, Site, Site];
    await nav(manager, 'Kiosks');
    await expect.poll(async () => (await kioskRows(manager).allTextContents()).join('|'), { timeout: 30_000 }).toContain(a.gates[1]);
    const kiosksSeen = await kioskRows(manager).allTextContents();
    expect(kiosksSeen).toHaveLength(2);
    expect(kiosksSeen.join('|')).not.toContain(b.gates[0]);
    // No "All sites" for them: their estate is the only one offered.
    expect(await manager.getByTestId('site-switch').locator('option').allTextContents().catch(() => [])).not.toContain('All sites');
    await nav(manager, 'Live board');
    await manager.locator('[data-testid=incident-card]').first().waitFor({ timeout: 15_000 });
    const cards = await manager.locator('[data-testid=incident-card]').allTextContents();
    expect(cards.join('|')).toContain(`Fence alarm at ${a.name}`);
    expect(cards.join('|')).not.toContain(b.name);
    await nav(manager, 'Sites');
    await expect.poll(async () => await manager.locator('main').textContent(), { timeout: 10_000 }).toContain(a.name);
    expect(await manager.locator('main').textContent()).not.toContain(b.name);
    expect(await manager.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People', exact: true }).count()).toBe(0);
    // Their reports and the key they make read only A (through their session, then the key).
    const read = (path: string) => manager.evaluate(`fetch('/v1/external${path}', { headers: { 'tsaro-environment': 'live' } }).then((r) => r.json())`) as Promise<Record<string, unknown>>;
    expect((await read('/incidents/analytics')).total).toBe(1);
    const csrf = ((await read('/console/session')) as { session: { csrf_token: string } }).session.csrf_token;
    const made = (await manager.evaluate(
      `fetch('/v1/external/api-keys', { method: 'POST', headers: { 'content-type': 'application/json', 'tsaro-environment': 'live', 'x-csrf-token': ${JSON.stringify(csrf)} }, body: JSON.stringify({ name: 'Admiralty reception', scopes: ['incidents:read', 'access_codes:read', 'logs:read'] }) }).then((r) => r.json())`,
    )) as { secret: string; api_key: { site_ids: string[] } };
    expect(made.api_key.site_ids).toEqual([a.site_id]);
    const theirKey = hostB.client(made.secret);
    const incidents = (await theirKey.get('/incidents')).body.results as { site_id: string }[];
    expect(incidents.map((incident) => incident.site_id)).toEqual([a.site_id]);
    const codes = (await theirKey.get('/access-codes')).body.results as { site_id: string }[];
    expect(new Set(codes.map((code) => code.site_id))).toEqual(new Set([a.site_id]));
  });

  it('the control room operator sees every estate and filters by one', async () => {
    const [, b] = sites as [Site, Site, Site];
    await nav(operator, 'Kiosks');
    await expect.poll(async () => (await kioskRows(operator).allTextContents()).length, { timeout: 30_000 }).toBe(4);
    await operator.getByTestId('site-switch').selectOption({ label: b.name });
    await expect.poll(async () => (await kioskRows(operator).allTextContents()).join('|'), { timeout: 10_000 }).not.toContain('Admiralty');
    const onlyB = await kioskRows(operator).allTextContents();
    expect(onlyB).toHaveLength(2);
    for (const gate of b.gates) expect(onlyB.join('|')).toContain(gate);
  });

  it("an SOS at B's gate puts B's numbers on the operator's board, pushed from the other host", async () => {
    const [, b] = sites as [Site, Site, Site];
    await operator.getByTestId('site-switch').selectOption({ label: 'All sites' });
    await nav(operator, 'Live board');
    await operator.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
    const gateB = kiosks.find((kiosk) => kiosk.site === 1)!;
    const page = await openKiosk(browser, gateB.host.url);
    try {
      await operator.evaluate('window.__boardDocument = true');
      await page.getByTestId('nav-panic').click();
      await holdPanicButton(page);
      const card = operator.locator('[data-testid=incident-card]').filter({ hasText: b.gates[0] });
      await card.getByTestId('card-call-list').waitFor({ timeout: 15_000 });
      expect(await operator.evaluate('window.__boardDocument')).toBe(true);
      const numbers = await card.getByTestId('card-call-list').locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
      expect(numbers).toEqual(b.numbers);
      expect(await card.getByTestId('card-site').textContent()).toContain(b.name);
    } finally {
      await page.close();
    }
  });

  it("a pass for A is refused at B's gate online, and with B's host stopped", async () => {
    const [a, b] = sites as [Site, Site, Site];
    const pass = (await org.live.post('/access-codes', { visitor_name: 'Ifeoma Nwosu', visitor_phone: '+2348035550000', site_id: a.site_id, max_uses: 3 })).body.access_code as { code_id: string; qr_payload: string };
    const gateB = kiosks.find((kiosk) => kiosk.site === 1)!;
    const page = await openKiosk(browser, gateB.host.url);
    const bar = page.locator('.status-bar');
    await expect.poll(() => bar.getAttribute('data-online'), { timeout: 20_000 }).toBe('true');
    // Synced after it learned its estate: B's codes (and every estate's pass keys), no code of A.
    await expect.poll(async () => (await kioskCall({ kioskUrl: gateB.host.url }, 'syncNow', {})).online && (await kioskCall({ kioskUrl: gateB.host.url }, 'kioskStatus', {})).cachedCodes, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);

    await wedgeScan(page, pass.qr_payload);
    const result = page.locator('.result');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.getAttribute('data-reason')).toBe('other_site');
    expect(await result.textContent()).not.toContain('Decided offline');
    await page.keyboard.press('Escape').catch(() => undefined);

    await hostB.running.stop();
    await page.reload();
    await expect.poll(() => page.locator('.status-bar').getAttribute('data-online'), { timeout: 20_000 }).toBe('false');
    await wedgeScan(page, pass.qr_payload);
    const offline = page.locator('.result');
    await offline.waitFor({ timeout: 20_000 });
    expect(await offline.getAttribute('data-reason')).toBe('other_site');
    expect(await offline.textContent()).toContain('Decided offline');
    // No use of A's pass was spent at B.
    expect((await org.live.get(`/access-codes/${pass.code_id}`)).body.access_code.use_count).toBe(0);
    await page.close();
    expect(b.name).toBeDefined();
  });
});
