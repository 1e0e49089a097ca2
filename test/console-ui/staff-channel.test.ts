import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourIn } from '../../server/duty/status.ts';
import { addResponder } from '../../server/responders/service.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { joinStaff } from '../support/staff.ts';
import { axeViolations, joinStaffInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * The staff console on the staff channel (issue #47), in Chromium against the real server: the
 * queue and the duty panel read GET /v1/staff/live and never poll while it is up; an escalation
 * reaches the queue as it happens, with no reload and no read of GET /queue. With the channel
 * down the screen says so, the lists are read by hand meanwhile, and the reconnection's snapshot
 * ends that; a session ended elsewhere goes back to the sign-in.
 */
const AT = { latitude: 6.4474, longitude: 3.4739 };
let stack: ConsoleStack;
let org: TestOrganization;
let controller: WatchedPage;
/** Requests the page made, by path. */
const asked: string[] = [];
const count = (path: string) => asked.filter((seen) => seen === path).length;

async function joinAsController(page: Page) {
  await joinStaffInBrowser(page, stack.server, { email: 'kemi@tsaro.ng', role: 'controller', name: 'Kemi Adeyemi' });
  await page.getByRole('heading', { name: 'Live queue' }).waitFor();
}

beforeAll(async () => {
  stack = await startConsoleStack('staff-channel', { config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '600' } });
  org = await stack.server.createOrganization({ name: 'Lekki Gardens' });
  controller = await stack.open();
  controller.page.on('request', (request) => asked.push(new URL(request.url()).pathname));
  await joinAsController(controller.page);
}, 180_000);
afterAll(() => stack?.stop());

const rowOf = (incidentId: string) => controller.page.locator(`[data-testid=queue-row][data-incident="${incidentId}"]`);

describe('the staff console on the staff channel (Chromium, real server)', () => {
  it('an escalation appears on the queue as it happens: no reload, no read of the queue, one stream', async () => {
    const page = controller.page;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const created = await org.live.post('/incidents', incidentBody({ title: 'Nobody near', location: { coordinates: [AT.longitude, AT.latitude], address: 'Admiralty Way, Lekki' } }));
    const incidentId = created.body.incident.incident_id as string;
    const row = rowOf(incidentId);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.locator('td').first().textContent()).toBe('');

    // Nobody accepts within the dispatch window: the engine escalates it.
    stack.server.clock.advance(61_000);
    expect(await stack.server.running.advanceDispatch()).toBeGreaterThan(0);
    expect((await org.live.get(`/incidents/${incidentId}`)).body.incident.status).toBe('escalated');
    await expect.poll(async () => row.locator('td').first().textContent(), { timeout: 15_000 }).toBe('Escalated');
    expect(await row.locator('td').nth(3).textContent()).toBe('escalated');

    // It came on the channel: the page never asked for the queue, never reloaded, and holds one stream.
    expect(count('/v1/staff/queue')).toBe(0);
    expect(['/v1/staff/alerts', '/v1/staff/areas', '/v1/staff/shifts'].map(count)).toEqual([0, 0, 0]);
    expect(count('/v1/staff/live')).toBe(1);
    expect(loads).toEqual([]);
    expect(await page.getByTestId('channel-paused').count()).toBe(0);
    await org.live.post(`/incidents/${incidentId}/cancel`, {});
    await expect.poll(async () => row.count(), { timeout: 15_000 }).toBe(0);
  });

  it('the channel down: the screen says so and reads the queue by hand meanwhile; back, the snapshot resumes and the reading stops', async () => {
    const page = controller.page;
    // The next opening is refused (as a host that cannot read the network answers), and the open stream ends.
    await page.route('**/v1/staff/live', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'unavailable', message: 'down' }) }));
    await stack.server.running.staffLive.stop();
    const paused = page.getByTestId('channel-paused');
    await paused.waitFor({ timeout: 15_000 });
    expect(await paused.textContent()).toContain('Live updates paused, reconnecting');
    await page.screenshot({ path: 'test-artifacts/console-ui/staff-channel/paused.png', fullPage: true });

    // Meanwhile an SOS still reaches the queue, read by hand.
    const before = count('/v1/staff/queue');
    const incidentId = (await org.live.post('/incidents', incidentBody({ title: 'While paused', location: { coordinates: [AT.longitude, AT.latitude] } }))).body.incident.incident_id as string;
    await rowOf(incidentId).waitFor({ timeout: 15_000 });
    expect(count('/v1/staff/queue')).toBeGreaterThan(before);

    // The channel back: a new snapshot, the notice gone, and no more reading by hand.
    const streams = count('/v1/staff/live');
    await page.unroute('**/v1/staff/live');
    await paused.waitFor({ state: 'detached', timeout: 30_000 });
    expect(count('/v1/staff/live')).toBeGreaterThan(streams);
    const settled = count('/v1/staff/queue');
    // Longer than the fallback's 3 s: none came.
    await page.waitForTimeout(4_500);
    expect(count('/v1/staff/queue')).toBe(settled);
    // And the channel carries changes again: the cancel leaves the queue.
    await org.live.post(`/incidents/${incidentId}/cancel`, {});
    await expect.poll(async () => rowOf(incidentId).count(), { timeout: 15_000 }).toBe(0);
    expect(count('/v1/staff/queue')).toBe(settled);
    expect(controller.problems.filter((problem) => !problem.includes('status of 401') && !problem.includes('503'))).toEqual([]);
  });

  it("an area with a shift now and nobody available inside it: outlined on the map, listed with who is on shift and where, and an alert for the responder outside it; the screen passes axe-core and is kept as a screenshot", async () => {
    const page = controller.page;
    const lists = ['/v1/staff/alerts', '/v1/staff/areas', '/v1/staff/shifts', '/v1/staff/queue'];
    const readBefore = lists.map(count);
    const admin = await joinStaff(stack.server, 'network_admin', 'Musa Garba');
    const area = (await admin.browser.post('/areas', { name: 'Ikoyi', shape: { type: 'Polygon', coordinates: [[[3.42, 6.44], [3.46, 6.44], [3.46, 6.46], [3.42, 6.46], [3.42, 6.44]]] } })).body.area;
    // On shift for Ikoyi, on duty in Lekki, about 3 km east of it.
    const away = await addResponder(stack.server.running.database.db, stack.server.clock, { name: 'Ade Away', phone: '+2348039990002', latitude: 6.45, longitude: 3.4874, environment: 'live' });
    const hour = hourIn(stack.server.clock.now(), 'Africa/Lagos');
    expect((await admin.browser.post('/shifts', { responder_id: away.responder.responder_id, area_id: area.area_id, start_hour: hour, end_hour: (hour + 2) % 24 })).status).toBe(201);
    await stack.server.running.runJob('duty-alerts');

    const gap = page.locator('[data-testid=uncovered] li[data-kind=area]');
    await page.getByText(/^Places with nobody within reach/).click();
    await expect.poll(async () => ((await gap.count()) ? gap.first().textContent() : ''), { timeout: 15_000 }).toBe('Area Ikoyi: nobody available inside (nearest 3.03 km outside). On shift: Ade Away (available, 3.0 km outside)');
    await expect.poll(async () => page.locator('[data-testid=alerts] [data-kind=on_shift_outside_area]').textContent(), { timeout: 15_000 }).toContain('Ade Away is on shift for Ikoyi and on duty outside it');
    expect(await page.getByTestId('shifts').textContent()).toContain('Ade Away');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByTestId('live-map').scrollIntoViewIfNeeded();
    if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: 'docs/console/staff-queue-uncovered-area-desktop.png', fullPage: true });
    // The area, the shift, the alert and the gap all came on the channel: no list was read.
    expect(lists.map(count)).toEqual(readBefore);
  });

  it("an incident's screen reads the incident again when the channel says it changed, and not while nothing does", async () => {
    const page = controller.page;
    const incidentId = (await org.live.post('/incidents', incidentBody({ title: 'Watched', location: { coordinates: [AT.longitude, AT.latitude] } }))).body.incident.incident_id as string;
    await rowOf(incidentId).waitFor({ timeout: 15_000 });
    await rowOf(incidentId).getByRole('link', { name: /^Open/ }).click();
    await page.getByTestId('control-incident').waitFor();
    await expect.poll(async () => page.getByTestId('control-owner').textContent(), { timeout: 15_000 }).toBe('nobody at Tsaro yet');
    const details = `/v1/staff/incidents/${incidentId}`;
    // Quiet: longer than the old 3 s poll, and no read of the incident.
    await page.waitForTimeout(1_500);
    const quiet = count(details);
    await page.waitForTimeout(4_000);
    expect(count(details)).toBe(quiet);
    // Another controller takes it: the channel's queue entry moves, and the screen reads it again.
    const other = await joinStaff(stack.server, 'supervisor', 'Bisi Ola');
    expect((await other.browser.post(`/incidents/${incidentId}/take`)).status).toBe(200);
    await expect.poll(async () => page.getByTestId('control-owner').textContent(), { timeout: 15_000 }).toBe('Tsaro control (Bisi)');
    expect(count(details)).toBeGreaterThan(quiet);
    await org.live.post(`/incidents/${incidentId}/cancel`, {});
    await expect.poll(async () => page.getByTestId('control-status').textContent(), { timeout: 15_000 }).toBe('cancelled');
  });

  it('a session ended elsewhere: the stream closes, and the console goes back to the sign-in saying so', async () => {
    const page = controller.page;
    await page.goto('/console/staff');
    await page.getByRole('heading', { name: 'Live queue' }).waitFor();
    // Ended on the server (as signing out on another screen, or the idle timeout, does).
    await stack.server.running.database.db.updateTable('staff_sessions').set({ ended_at: new Date().toISOString() }).where('ended_at', 'is', null).execute();
    await page.getByTestId('staff-session-ended').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('staff-session-ended').textContent()).toBe('Your session ended: sign in again.');
    await page.getByTestId('staff-sign-in').waitFor();
  });
});
