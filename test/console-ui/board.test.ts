import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { SCREENSHOTS, startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #28's live board and incident page against the real server (SQLite): what partners
 * wrote stays text, an escalated SOS stands out until a person acknowledges it, an operator
 * cancels with a reason, and axe-core finds no serious fault.
 */
const XSS = {
  title: '<script>window.__xss = "title"</script>Gate 2',
  name: '<img src=x onerror="window.__xss = \'name\'">Ada',
  description: '<svg onload="window.__xss = \'description\'"></svg> pressed twice',
  gate: '<b>North</b> gate',
};
let stack: ConsoleStack;
let org: TestOrganization;
let page: Page;
let problems: string[];
const OPERATOR = 'kemi@lekkishield.ng';
/** How the timeline and the audit log name her: by the name she gave. */
const OPERATOR_NAME = 'Kemi Adeyemi';

/**
 * What the incident map drew, from a screenshot of it: its width, the distinct colours (a blank
 * box has one or two) and the pixels of the incident marker's red fill (#dc2626).
 */
async function mapPixels(page: Page): Promise<{ width: number; colours: number; incidentRed: number }> {
  const png = PNG.sync.read(await page.getByTestId('incident-map').screenshot());
  const colours = new Set<number>();
  let incidentRed = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
    colours.add((r << 16) | (g << 8) | b);
    if (Math.abs(r - 0xdc) < 12 && Math.abs(g - 0x26) < 12 && Math.abs(b - 0x26) < 12) incidentRed++;
  }
  return { width: png.width, colours: colours.size, incidentRed };
}

const card = (incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
async function openBoard(): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Live board', exact: true }).click();
  await page.getByTestId('screen-board').waitFor();
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
}

beforeAll(async () => {
  stack = await startConsoleStack('board');
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  ({ page, problems } = await stack.open());
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', OPERATOR);
  await joinInBrowser(page, stack.server, link, { email: OPERATOR, name: OPERATOR_NAME, role: 'operator' });
  // The estates' numbers, read by the board when it opens: the default site's, and another site's with its gate.
  const home = (await org.live.get('/sites')).body.results[0];
  await org.live.patch(`/sites/${home.site_id}`, { call_list: [{ name: 'Estate control', phone: '0803 123 4567' }] });
  await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['Gate 7'], call_list: [{ name: 'Admiralty control', phone: '0805 765 4321' }, { name: 'Police', phone: '0909 000 1122' }] });
  await openBoard();
  // The stream's pill says whether changes arrive, in words that cannot be read as the environment.
  expect(await page.getByTestId('stream-status').textContent()).toBe('Up to date');
});
afterAll(() => stack?.stop());

describe('the live board and an incident page (real Chromium, real server)', () => {
  // Each test starts on the board, whatever the one before it left open.
  beforeEach(async () => {
    if (!(await page.getByTestId('screen-board').isVisible())) await openBoard();
  });

  it('shows what a partner wrote (<script>, <img onerror>, <svg onload>) as text, on the board and on the incident page', async () => {
    const created = await org.live.post(
      '/incidents',
      incidentBody({ title: XSS.title, description: XSS.description, subject: { name: XSS.name, metadata: { entry_point: XSS.gate } } }),
    );
    const id = created.body.incident.incident_id as string;
    await card(id).waitFor({ timeout: 5_000 });
    // Titled by where (the gate, then its estate: this gate is nobody's, so the default site's); the partner's title under it (issue #48).
    expect((await card(id).locator('.card-title').textContent())!.startsWith(`${XSS.gate}, `)).toBe(true);
    expect(await card(id).getByTestId('card-what').textContent()).toBe(XSS.title);
    expect(await card(id).textContent()).toContain(XSS.name);
    expect(await card(id).locator('script, img, svg, b').count()).toBe(0);
    // No responder is near the estate: the card says so instead of counting down "Assign within" (issue #34).
    await card(id).getByText('No responder near: call for help now').waitFor({ timeout: 10_000 });
    // The gate filter lists the entry point as text too.
    expect(await page.getByTestId('filter-entry-point').locator('option', { hasText: XSS.gate }).count()).toBe(1);

    await card(id).locator('.card-title').click();
    await page.getByTestId('screen-incident').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(`SOS at ${XSS.gate}, `);
    expect(await page.getByTestId('incident-title').textContent()).toBe(XSS.title);
    expect(await page.getByTestId('subject-name').textContent()).toBe(XSS.name);
    expect(await page.getByTestId('incident-description').textContent()).toBe(XSS.description);
    // Nothing the partner wrote became markup. The map draws its own svg once its chunk has
    // loaded (when is up to the machine): wait for it, so the count is the same on every run.
    await page.locator('.leaflet-container svg').first().waitFor({ timeout: 10_000 });
    // The map is drawn across the panel, not in a box 0 px wide (issue #34).
    const map = await page.getByTestId('incident-map').boundingBox();
    expect(map?.width).toBeGreaterThan(300);
    expect(map?.height).toBeGreaterThan(200);
    // And drawn: the pixels, not only the box, at 1366 and at 768 px wide (issue #34).
    for (const viewport of [{ width: 1366, height: 768 }, { width: 768, height: 1024 }]) {
      await page.setViewportSize(viewport);
      await expect.poll(() => mapPixels(page), { timeout: 10_000 }).toMatchObject({ incidentRed: expect.any(Number) });
      const drawn = await mapPixels(page);
      expect(drawn.width, `${viewport.width} px: the map spans the panel`).toBeGreaterThan(viewport.width / 3);
      expect(drawn.incidentRed, `${viewport.width} px: the incident's red marker is drawn`).toBeGreaterThan(50);
      expect(drawn.colours, `${viewport.width} px: borders and land, not a blank box`).toBeGreaterThan(20);
    }
    await page.setViewportSize({ width: 1366, height: 768 });
    expect(await page.locator('main :is(script, img, svg, b):not(.leaflet-container *)').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await openBoard();
  });

  it('an SOS nobody accepted stands out, flashes the title and sounds until someone acknowledges it; the acknowledgement is in the timeline and the audit log', async () => {
    const created = await org.live.post('/incidents', incidentBody({ subject: { name: 'Musa Bello' } }));
    const id = created.body.incident.incident_id as string;
    const atGate = (await org.live.post('/incidents', incidentBody({ subject: { name: 'Ngozi Eze', metadata: { entry_point: 'Gate 7' } } }))).body.incident.incident_id as string;
    await card(id).waitFor({ timeout: 5_000 });
    // Heard live: marked new until someone looks, and the title says so.
    expect(await card(id).getByText('New', { exact: true }).count()).toBe(1);

    stack.server.clock.advance(61_000);
    await stack.server.running.advanceDispatch();
    const attention = page.getByTestId('lane-attention').locator(`[data-incident-id="${id}"][data-attention=yes]`);
    await attention.waitFor({ timeout: 5_000 });
    expect(await attention.textContent()).toContain('Nobody has accepted');
    // Each card names the numbers to call: its gate's site, else the organization's default site (issue #34).
    const numbers = (incidentId: string) => card(incidentId).getByTestId('card-call-list').locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(await numbers(id)).toEqual(['tel:+2348031234567']);
    await card(atGate).getByTestId('card-call-list').waitFor({ timeout: 5_000 });
    expect(await numbers(atGate)).toEqual(['tel:+2348057654321', 'tel:+2349090001122']);
    await card(atGate).getByTestId('acknowledge').click();
    await expect.poll(() => page.title(), { timeout: 5_000 }).toContain('NOBODY ACCEPTED');

    // Browsers refuse sound before a click: the board says it is off and asks once.
    expect(await page.getByTestId('sound').getAttribute('data-sound')).toBe('off');
    await page.getByTestId('sound-on').click();
    await page.locator('[data-testid=sound][data-sound=on]').waitFor();
    // Board cards say where: the gate and its estate (issue #48).
    expect(await card(atGate).locator('.card-title').textContent()).toBe('Gate 7, Admiralty Estate');

    await attention.getByTestId('acknowledge').click();
    await page.locator(`[data-incident-id="${id}"][data-attention=no]`).waitFor({ timeout: 5_000 });
    expect(await card(id).textContent()).toContain(`Acknowledged by ${OPERATOR_NAME}`);
    await expect.poll(() => page.title(), { timeout: 5_000 }).not.toContain('NOBODY ACCEPTED');

    const incident = (await org.live.get(`/incidents/${id}`)).body.incident;
    expect(incident.timeline.at(-1)).toMatchObject({ event: 'acknowledged', status: 'escalated', message: `Acknowledged by ${OPERATOR_NAME}` });
    const audit = (await org.live.get('/audit-log?limit=100')).body.results as { action: string; resource_id: string | null; actor: { type: string; label: string } }[];
    const entry = audit.find((row) => row.resource_id === id && row.action === 'acknowledgeIncident');
    expect(entry?.actor).toMatchObject({ type: 'person', label: OPERATOR_NAME });
  });

  it('after a reload the browser has silenced the board again: it says so in large letters, "Sound is off: click to turn on", and one click anywhere turns it on (issue #48)', async () => {
    await page.reload();
    await page.getByTestId('screen-board').waitFor();
    const sound = page.getByTestId('sound');
    expect(await sound.getAttribute('data-sound')).toBe('off');
    const wake = page.getByTestId('sound-on');
    expect(await wake.textContent()).toContain('Sound is off: click to turn on');
    expect(await sound.textContent()).toContain('one click anywhere brings the sound back');
    // Readable from across the room: large, bold, at the top of the screen, on red.
    const looks = await wake.evaluate((element) => {
      const style = (globalThis as any).getComputedStyle(element);
      const bar = (globalThis as any).getComputedStyle(element.parentElement);
      return { size: parseFloat(style.fontSize), weight: Number(style.fontWeight), bar: bar.backgroundColor };
    });
    expect(looks.size).toBeGreaterThanOrEqual(24);
    expect(looks.weight).toBeGreaterThanOrEqual(700);
    expect(looks.bar).toBe('rgb(153, 27, 27)');
    const box = (await sound.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(768 / 2);
    if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'board-sound-off-desktop.png') });
    expect(await axeViolations(page)).toEqual([]);
    await page.getByTestId('screen-board').locator('h1').click();
    await page.locator('[data-testid=sound][data-sound=on]').waitFor({ timeout: 5_000 });
  });

  it('an incident page reads in words: no field names, times as times, who cancelled by name (issue #48)', async () => {
    const pressedAt = stack.server.clock.now().toISOString();
    const created = await org.live.post('/incidents', incidentBody({ subject: { name: 'Sani Abubakar', metadata: { entry_point: 'Gate 7', kiosk_id: 'kio_01J0000000000000000000000', pressed_at: pressedAt } } }));
    const id = created.body.incident.incident_id as string;
    await card(id).waitFor({ timeout: 5_000 });
    await card(id).locator('.card-title').click();
    await page.getByTestId('screen-incident').waitFor();
    expect((await page.getByRole('heading', { level: 1 }).textContent())?.trim()).toBe('SOS at Gate 7, Admiralty Estate');
    const words = (await page.getByTestId('screen-incident').textContent())!;
    for (const field of ['pressed_at', 'kiosk_id', 'entry_point', pressedAt, 'dispatching', 'sos ·']) expect(words, field).not.toContain(field);
    expect(await page.getByTestId('detail-pressed_at').locator('time').getAttribute('datetime')).toBe(pressedAt);
    expect(await page.getByTestId('incident-status').textContent()).toBe('Offering to responders');
    expect(await page.getByTestId('timeline').textContent()).toContain('Offered to responders');
    if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'incident-words-desktop.png'), fullPage: true });
    await page.getByTestId('cancel-incident').click();
    await page.getByTestId('cancel-reason').fill('Guard leaned on the button');
    await page.getByTestId('confirm-cancel').click();
    await page.locator('[data-testid=screen-incident][data-status=cancelled]').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('timeline').textContent()).toContain(`Cancelled by ${OPERATOR_NAME}: Guard leaned on the button`);
    expect(await axeViolations(page)).toEqual([]);
    await openBoard();
  });

  it('an operator cancels an incident with a reason from its page; the reason is in the timeline', async () => {
    const created = await org.live.post('/incidents', incidentBody({ subject: { name: 'Chidi Okafor' } }));
    const id = created.body.incident.incident_id as string;
    await card(id).waitFor({ timeout: 5_000 });
    await card(id).locator('.card-title').click();
    await page.getByTestId('screen-incident').waitFor();
    // This server has no SMS gateway: the page says nobody is texted, rather than showing nothing (issue #35).
    await page.getByTestId('texts-why').getByText('Text messages are off on this server').waitFor({ timeout: 5_000 });
    // Times in 24-hour form, as the gate kiosk writes them ("18:04", never "6:04 pm": issue #35).
    const times = await page.getByTestId('timeline').locator('time').allTextContents();
    expect(times.length).toBeGreaterThan(0);
    for (const time of times) expect(time).toMatch(/^\d{1,2} \w{3,4} \d{4}, ([01]\d|2[0-3]):[0-5]\d$/);
    await page.getByTestId('cancel-incident').click();
    await page.getByTestId('cancel-reason').fill('Resident pressed the button by mistake; confirmed by phone');
    await page.getByTestId('confirm-cancel').click();
    await page.locator('[data-testid=screen-incident][data-status=cancelled]').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('timeline').textContent()).toContain('Resident pressed the button by mistake');
    const incident = (await org.live.get(`/incidents/${id}`)).body.incident;
    expect(incident.status).toBe('cancelled');
    expect(JSON.stringify(incident.timeline)).toContain('Resident pressed the button by mistake; confirmed by phone');

    // A note from the page arrives in the timeline (and the stream brings it to every other screen).
    await openBoard();
    // The board reads its lists after it opens: wait for the card, then count it.
    await page.getByTestId('lane-closed').locator(`[data-incident-id="${id}"]`).first().waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('lane-closed').locator(`[data-incident-id="${id}"]`).count()).toBe(1);
  });

  it('axe-core finds no serious or critical fault on the board and on an incident page', async () => {
    expect(await axeViolations(page)).toEqual([]);
    const created = await org.live.post('/incidents', incidentBody({ subject: { name: 'Ngozi Eze' } }));
    const id = created.body.incident.incident_id as string;
    await card(id).locator('.card-title').click();
    await page.getByTestId('screen-incident').waitFor();
    await page.getByTestId('note-text').fill('Called the resident: on the way to the gate');
    await page.getByTestId('add-note').click();
    await page.getByTestId('timeline').getByText('Called the resident: on the way to the gate').waitFor({ timeout: 5_000 });
    // Who wrote it, by name (issue #48).
    expect(await page.getByTestId('timeline').textContent()).toContain(`${OPERATOR_NAME}: Called the resident: on the way to the gate`);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('logs no error and nothing the Content-Security-Policy refused (the signed-out session check before joining is a 401)', () => {
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
