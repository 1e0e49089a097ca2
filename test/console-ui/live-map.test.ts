import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { joinStaffInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * The live map (issue #47), in Chromium against the real server: a controller's map shows the
 * responders in the colour of their status, fed by the staff channel, and a responder's move or
 * change of status moves or recolours their marker without a reload. Names are text.
 */
let stack: ConsoleStack;
let page: Page;

beforeAll(async () => {
  stack = await startConsoleStack('live-map');
  page = (await stack.open()).page;
  await joinStaffInBrowser(page, stack.server, { email: 'kemi@tsaro.ng', role: 'controller', name: 'Kemi Adeyemi' });
  await page.getByTestId('live-map').waitFor();
}, 180_000);
afterAll(() => stack?.stop());

/** The markers as the map drew them: position and fill colour, by responder id. */
const markers = () =>
  // A string: the test's own TypeScript knows no DOM.
  page.evaluate(`(() => {
    const container = document.querySelector('[data-testid="live-map-canvas"] .leaflet-container');
    const drawn = (container && container.liveMarkers) || new Map();
    return Object.fromEntries([...drawn.entries()].map(([id, m]) => [id, { lat: m.getLatLng().lat, lng: m.getLatLng().lng, colour: m.options.fillColor }]));
  })()`) as Promise<Record<string, { lat: number; lng: number; colour: string }>>;

describe('the live map (Chromium, real server)', () => {
  it('draws responders in the colour of their status and moves or recolours one as it reports', async () => {
    const db = stack.server.running.database.db;
    const clock = stack.server.clock;
    const green = await addResponder(db, clock, { name: 'Ada Available', phone: '+2348031110001', latitude: 6.45, longitude: 3.4, environment: 'live' });
    const grey = await addResponder(db, clock, { name: '<img src=x onerror=alert(1)>', phone: '+2348031110002', latitude: 6.5, longitude: 3.45, environment: 'live' });
    await responderCall(stack.server, grey.token)('/availability', { method: 'PUT', body: { available: false, latitude: 6.5, longitude: 3.45 } });

    await expect.poll(async () => (await markers())[green.responder.responder_id]?.colour, { timeout: 20_000 }).toBe('#16a34a');
    await expect.poll(async () => (await markers())[grey.responder.responder_id]?.colour, { timeout: 20_000 }).toBe('#94a3b8');
    expect(await page.getByTestId('live-map-legend').textContent()).toContain('Available: 1');

    // The name a responder was given is shown as text, never run as HTML.
    await page.getByLabel('Find a responder').fill('onerror');
    expect(await page.getByTestId('live-map-found').textContent()).toContain('<img src=x onerror=alert(1)>: Off duty');
    expect(await page.locator('[data-testid="live-map"] img[src="x"]').count()).toBe(0);
    // So is the marker's tooltip (Leaflet would read a string as HTML).
    await page.evaluate(`document.querySelector('[data-testid="live-map-canvas"] .leaflet-container').liveMarkers.get(${JSON.stringify(grey.responder.responder_id)}).openTooltip() && true`);
    expect(await page.locator('.leaflet-tooltip').last().textContent()).toContain('<img src=x onerror=alert(1)>Off duty');
    expect(await page.locator('.leaflet-tooltip img').count()).toBe(0);

    // Ada moves; then goes off duty: the same marker moves, then turns grey.
    await responderCall(stack.server, green.token)('/availability', { method: 'PUT', body: { available: true, latitude: 6.47, longitude: 3.42 } });
    await expect.poll(async () => (await markers())[green.responder.responder_id]?.lat, { timeout: 20_000 }).toBe(6.47);
    expect((await markers())[green.responder.responder_id]).toMatchObject({ lng: 3.42, colour: '#16a34a' });
    await responderCall(stack.server, green.token)('/availability', { method: 'PUT', body: { available: false, latitude: 6.47, longitude: 3.42 } });
    await expect.poll(async () => (await markers())[green.responder.responder_id]?.colour, { timeout: 20_000 }).toBe('#94a3b8');
    expect(await page.getByTestId('live-map').getAttribute('data-connected')).toBe('yes');
  });
});
