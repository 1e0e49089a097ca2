import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';
import { inviteFromHost, joinInBrowser } from './support/journey.ts';
import { startConsoleStack, type ConsoleStack } from './support/stack.ts';

/**
 * Issue #28's board on several hosts: the console is connected to host A, the partner and the
 * responder talk to host B, both on one PostgreSQL database. Every change reaches the board
 * through the event stream, without a reload.
 */
/** How long a change may take to show beside the whole suite on two cores; the board has no poll to fall back on, so it is the stream or nothing. */
const LIVE_MS = 15_000;
const LEKKI = { latitude: 6.4474, longitude: 3.4739 };
let stack: ConsoleStack;
let hostB: TestServer;
let org: TestOrganization;
let partnerOnB: ApiClient;
let page: Page;
let problems: string[];

const card = (incidentId: string) => page.locator(`[data-testid=incident-card][data-incident-id="${incidentId}"]`);
const inLane = (lane: string, incidentId: string) => page.getByTestId(`lane-${lane}`).locator(`[data-incident-id="${incidentId}"]`);

beforeAll(async () => {
  stack = await startConsoleStack('board-hosts', { engine: 'postgres' });
  hostB = await startTestServer({ database: stack.server.database, clock: stack.server.clock });
  org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
  partnerOnB = hostB.client(org.keys.live);
  ({ page, problems } = await stack.open());
  const link = await inviteFromHost(stack.server, org.organizationId, 'operator', 'kemi@lekkishield.ng');
  await joinInBrowser(page, stack.server, link, { email: 'kemi@lekkishield.ng', name: 'Kemi Adeyemi', role: 'operator' });
  await page.getByRole('navigation').getByRole('link', { name: 'Live board', exact: true }).click();
  await page.getByTestId('screen-board').waitFor();
  await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 10_000 });
  // A mark that a reload would wipe.
  await page.evaluate('window.__sameDocument = true');
});
afterAll(async () => {
  await hostB?.stop();
  await stack?.stop();
});

describe('the live board, with the console on host A and everything else on host B (PostgreSQL)', () => {
  it('an SOS posted on host B is pushed to the board and plays out to resolved there, without a reload', async () => {
    const responder = await addResponder(hostB.running.database.db, hostB.clock, {
      name: 'Emeka Obi',
      phone: '+2348030000009',
      latitude: LEKKI.latitude,
      longitude: LEKKI.longitude + 0.02,
      environment: 'live',
    });
    const onPhone = responderCall(hostB, responder.token);
    const created = await partnerOnB.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way, Lekki' } }));
    expect(created.status).toBe(201);
    const id = created.body.incident.incident_id as string;
    // The board does not poll: a card that comes came over the stream. How fast is bench/event-stream.ts's.
    await card(id).waitFor({ timeout: LIVE_MS });
    expect(await card(id).getAttribute('data-status')).toMatch(/^(created|dispatching)$/);

    const offers = (await onPhone('/offers?wait=5')).body.offers as { offer_id: string; incident: { incident_id: string } }[];
    const offer = offers.find((o) => o.incident.incident_id === id)!;
    expect((await onPhone(`/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    await inLane('assigned', id).waitFor({ timeout: LIVE_MS });
    expect(await card(id).getByText('Emeka Obi').count()).toBe(1);
    expect((await onPhone(`/incidents/${id}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 7 } })).status).toBe(200);
    await page.locator(`[data-incident-id="${id}"][data-status=responding]`).waitFor({ timeout: LIVE_MS });
    expect(await card(id).textContent()).toContain('ETA 7 min');
    expect((await onPhone(`/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } })).status).toBe(200);
    await inLane('on_scene', id).waitFor({ timeout: LIVE_MS });
    expect((await onPhone(`/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'assisted', notes: 'Escorted home' } })).status).toBe(200);
    await inLane('closed', id).waitFor({ timeout: LIVE_MS });
    expect(await card(id).getAttribute('data-status')).toBe('resolved');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await onPhone('/availability', { method: 'PUT', body: { available: false, latitude: 0, longitude: 0 } });
  });

  it('reconnects by itself after host A restarts, and what happened meanwhile arrives without a reload', async () => {
    await stack.server.running.stop();
    await page.locator('[data-testid=stream-status][data-state=reconnecting]').waitFor({ timeout: 10_000 });
    const meanwhile = await partnerOnB.post('/incidents', incidentBody({ severity: 'high', subject: { name: 'Written while host A was down' } }));
    const id = meanwhile.body.incident.incident_id as string;
    stack.server = await restartOnSamePort(stack.server);
    await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 20_000 });
    await card(id).waitFor({ timeout: 5_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
  });

  it('logs no error and nothing the Content-Security-Policy refused, apart from the restart', () => {
    expect(problems.filter((problem) => !/Failed to load resource|ERR_CONNECTION_REFUSED|net::/.test(problem))).toEqual([]);
  });
});

/** Host A again on the same port (the page's origin), over the same database and clock. */
async function restartOnSamePort(previous: TestServer): Promise<TestServer> {
  const port = new URL(previous.baseUrl).port;
  return startTestServer({ database: previous.database, clock: previous.clock, config: { PORT: port } });
}
