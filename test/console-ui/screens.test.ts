import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../support/clock.ts';
import { ConsoleBrowser, PASSWORD } from '../support/console.ts';
import { addResponder } from '../../server/responders/service.ts';
import { responderCall } from '../support/responder.ts';
import { incidentBody, type TestOrganization } from '../support/server.ts';
import { inviteFromHost, joinInBrowser, signInInBrowser } from './support/journey.ts';
import { ARTIFACTS, SCREENS, SCREENSHOTS, startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * Every console screen at 1366×768 and on a 10-inch tablet both ways, against the real server
 * with two weeks of an estate's data made through the API and the console: no page error,
 * nothing the CSP refuses, partners' text never HTML. The screenshots docs/console.md shows are
 * saved in docs/console/; the other sizes are rendered and checked, not kept.
 */
const DAY = 86_400_000;

/** Every signed-in screen: its path (an endpoint's is found at run time), what shows it is ready, and its environment. */
const SIGNED_IN = [
  ['board', '/console/board', 'incident-card', 'live'],
  ['incident', 'incident', 'timeline', 'live'],
  ['sites', '/console/sites', 'site-row', 'live'],
  ['visitors', '/console/visitors/on-site', 'visitor-row', 'live'],
  ['visitors-codes', '/console/visitors/codes', 'code-row', 'live'],
  ['visitors-logs', '/console/visitors/logs', 'log-row', 'live'],
  ['visitors-roll-call', 'roll-call', 'roll-entry', 'live'],
  ['kiosks', '/console/kiosks', 'kiosk-row', 'live'],
  ['reports', '/console/reports', 'by-category', 'live'],
  ['keys', '/console/keys', 'key-row', 'live'],
  ['webhooks', '/console/webhooks', 'endpoint-health', 'sandbox'],
  ['endpoint', 'endpoint', 'delivery-row', 'sandbox'],
  ['events', '/console/events', 'event-row', 'sandbox'],
  ['gates', '/console/gates', 'screen-gates', 'live'],
  ['people', '/console/people', 'person-row', 'live'],
  ['audit-log', '/console/audit-log', 'audit-row', 'live'],
  ['account', '/console/account', 'session-row', 'live'],
] as const;

/** The screenshots docs/console.md shows; nothing else is kept. */
export const KEPT = new Set([
  'board-desktop',
  'board-tablet-portrait',
  'incident-desktop',
  'sites-desktop',
  'visitors-desktop',
  'visitors-codes-desktop',
  'reports-desktop',
  'visitors-roll-call-desktop',
  'kiosks-desktop',
  'sign-in-desktop',
  'join-tablet-portrait',
  'enrol-totp-tablet-portrait',
  'recovery-codes-tablet-portrait',
  'keys-desktop',
  'keys-tablet-portrait',
  'keys-viewer-desktop',
  'gate-setup-desktop',
  'webhooks-desktop',
  'endpoint-desktop',
  'endpoint-tablet-landscape',
  'events-desktop',
  'people-desktop',
  'audit-log-desktop',
  'account-desktop',
]);

/**
 * Every screen is rendered at every size and checked; the pictures docs/console.md shows are
 * written there only with TSARO_UPDATE_SCREENSHOTS=1 (as the kiosk's are), so `npm test` leaves
 * the tree as it found it. Otherwise they go to test-artifacts/ for looking at.
 */
async function shoot(page: Page, name: string, fullPage = false) {
  await page.mouse.move(0, 0);
  const kept = KEPT.has(name) && process.env.TSARO_UPDATE_SCREENSHOTS === '1';
  await page.screenshot({ path: join(kept ? SCREENSHOTS : ARTIFACTS, `${name}.png`), fullPage });
}

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received += 1;
    // The old CRM is being retired and answers 503; the control room's board takes everything.
    res.statusCode = req.url?.startsWith('/crm') ? 503 : 200;
    res.end(res.statusCode === 200 ? '{"ok":true}' : 'Service Unavailable');
  });
});

let stack: ConsoleStack;
let org: TestOrganization;
let signedIn: BrowserContextOptions['storageState'];
let boardEndpointId = '';
let firstIncidentId = '';
let rollCallId = '';

/** Two weeks of an estate, through the API as its programs and people make it; the clock ends at the real time. */
async function seed(origin: string) {
  const { server } = stack;
  const person = async (role: 'developer' | 'viewer', email: string, name: string) => {
    const link = await inviteFromHost(server, org.organizationId, role, email, name);
    const browser = new ConsoleBrowser(server.baseUrl, origin);
    expect((await browser.post(`/console/invitations/${link.split('/').pop()}/accept`, { password: PASSWORD, name })).status).toBe(201);
  };
  await person('developer', 'tunde@lekkishield.ng', 'Tunde Bakare');
  server.clock.advance(DAY);
  await person('viewer', 'ngozi@lekkishield.ng', 'Ngozi Eze');
  const key = async (name: string, scopes: string[]) => (await org.live.post('/api-keys', { name, scopes })).body.api_key.key_id as string;
  await key('Estate app backend', ['incidents:read', 'incidents:write', 'access_codes:read', 'access_codes:write']);
  server.clock.advance(2 * DAY);
  const zapier = await key('Zapier visitor import', ['access_codes:write']);
  const pilot = await key('Pilot integration (2025)', ['incidents:read']);
  server.clock.advance(DAY);
  expect((await org.live.delete(`/api-keys/${pilot}`)).status).toBe(200);

  const port = (receiver.address() as AddressInfo).port;
  const board = await org.sandbox.post('/webhook-endpoints', { url: `http://127.0.0.1:${port}/tsaro/hooks`, events: ['incident.*', 'visitor.arrived'], description: 'Control room board' });
  boardEndpointId = board.body.webhook_endpoint.endpoint_id;
  await org.sandbox.post('/webhook-endpoints', {
    url: `http://127.0.0.1:${port}/crm/webhook`,
    events: ['access_code.*'],
    description: 'Old CRM sync <b>being retired</b>',
  });
  const people = [
    ['Chinedu Okafor', '+2348031112233'],
    ['Amaka Nwosu', '+2348092223344'],
    ['Bola Adeyemi', '+2348053334455'],
  ];
  for (const environment of ['sandbox', 'live'] as const) {
    const api = org[environment];
    for (const [visitor_name, visitor_phone] of people) {
      server.clock.advance(DAY / 3);
      expect((await api.post('/access-codes', { visitor_name, visitor_phone, entry_point: 'Gate A' })).status).toBe(201);
    }
    server.clock.advance(DAY);
    expect((await api.post('/incidents', incidentBody({ category: 'medical', severity: 'high', location: { coordinates: [3.4216, 6.4281], address: 'Block C, Admiralty Way' } }))).status).toBe(201);
    server.clock.advance(DAY / 2);
    // The newest incident: its subject's name, as a partner's app sent it, is text on every screen.
    expect((await api.post('/incidents', incidentBody({ subject: { name: 'Ada <script>alert(1)</script>', phone: '+2348012345678' } }))).status).toBe(201);
  }
  server.clock.set(new Date().toISOString());
  const admiralty = await seedControlRoom();
  // Admiralty's own guard supervisor and residents' app: limited to that estate.
  await inviteFromHost(server, org.organizationId, 'operator', 'musa@lekkishield.ng', 'Musa Bello', [admiralty]);
  expect((await org.live.post('/api-keys', { name: 'Admiralty residents app', scopes: ['access_codes:read', 'access_codes:write'], site_ids: [admiralty] })).status).toBe(201);
  // Rolled today: the old secret answers for three more days while the import switches.
  expect((await org.live.post(`/api-keys/${zapier}/roll`, { expires_in_hours: 72 })).status).toBe(201);
  await vi.waitFor(() => expect(received).toBeGreaterThanOrEqual(6), { timeout: 15_000, interval: 50 });
}

/**
 * The control room's last hour in Live: the older incidents nobody took are escalated, a
 * resident's SOS has a responder on the way, a medical call was resolved, and visitors are in.
 * Answers the second estate's site id.
 */
async function seedControlRoom(): Promise<string> {
  const { server } = stack;
  // A second estate with its gates and call list, beside the default site.
  const estate = await org.live.post('/sites', {
    name: 'Admiralty Estate',
    address: '12 Admiralty Way, Lekki',
    entry_points: ['Gate A', 'Gate B'],
    call_list: [
      { name: 'Estate control', phone: '0803 123 4567' },
      { name: 'Police (Lekki division)', phone: '0909 000 1122' },
      { name: 'Chairman', phone: '0805 123 4567' },
    ],
  });
  expect(estate.status).toBe(201);
  const api = org.live;
  await server.running.advanceDispatch();
  const responder = async (name: string, phone: string) => {
    const { token } = await addResponder(server.running.database.db, server.clock, { name, phone, latitude: 6.4281, longitude: 3.4416, environment: 'live' });
    const call = responderCall(server, token);
    return async (path: string, body?: unknown) => (await call(path, body === undefined ? {} : { method: 'POST', body })).body;
  };
  type Call = Awaited<ReturnType<typeof responder>>;
  /** A new incident at Gate A, accepted by a responder of its own (one that joined just now, so on duty). */
  const take = async (responderCall: Call, subject: string, category: string, then: (id: string) => Promise<void>) => {
    const created = await api.post('/incidents', incidentBody({ category, subject: { name: subject, metadata: { entry_point: 'Gate A' } }, location: { coordinates: [3.4216, 6.4281], address: 'Gate A, Admiralty Way' } }));
    expect(created.status).toBe(201);
    const id = created.body.incident.incident_id as string;
    server.clock.advance(35_000);
    const offer = ((await responderCall('/offers?wait=5')).offers as { offer_id: string; incident: { incident_id: string } }[]).find((o) => o.incident.incident_id === id)!;
    await responderCall(`/offers/${offer.offer_id}/accept`, {});
    await then(id);
  };
  const emeka = await responder('Emeka Obi', '+2348030000009');
  await take(emeka, 'Funmi Bakare', 'medical', async (id) => {
    server.clock.advance(9 * 60_000);
    await emeka(`/incidents/${id}/status`, { status: 'responding', eta_minutes: 8 });
    server.clock.advance(60_000);
    await emeka(`/incidents/${id}/status`, { status: 'on_scene' });
    server.clock.advance(12 * 60_000);
    await emeka(`/incidents/${id}/resolve`, { outcome: 'medical_transport', notes: 'Taken to Reddington Hospital' });
  });
  const bisi = await responder('Bisi Adewale', '+2348030000010');
  await take(bisi, 'Kelechi Nnamdi', 'sos', async (id) => {
    server.clock.advance(40_000);
    await bisi(`/incidents/${id}/status`, { status: 'responding', eta_minutes: 6 });
  });
  const code = (await api.post('/access-codes', { visitor_name: 'Yemi Alade', visitor_phone: '+2348051112222', entry_point: 'Gate A', host_user_id: 'Flat 4B' })).body.access_code;
  expect((await api.post('/access-codes/validate', { code: code.code, entry_point: 'Gate A', validated_by: 'Sani' })).body.valid).toBe(true);
  expect((await api.post('/access-logs', { visitor_name: 'DHL courier', visitor_phone: '+2348060000000', entry_point: 'Gate B', recorded_by: 'Sani' })).status).toBe(201);
  // Expected this week: codes still to be used (the older ones have expired by now).
  for (const [visitor_name, visitor_phone, host] of [['Tolu Ogun', '+2348057778888', 'Flat 2A'], ['Halima Yusuf', '+2348069990000', 'Flat 7C']])
    expect((await api.post('/access-codes', { visitor_name, visitor_phone, entry_point: 'Gate A', host_user_id: host, valid_until: new Date(Date.now() + 6 * DAY).toISOString(), max_uses: 5 })).status).toBe(201);
  // Two gates' kiosks: Gate B's went quiet ten minutes ago with scans waiting; Gate A's reports now.
  const beat = (kioskId: string, entry_point: string, queued: number, at: number) =>
    api.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body: {
      entry_point,
      app_version: '0.1.0',
      queued_operations: queued,
      oldest_queued_at: queued ? new Date(at - 4 * 60_000).toISOString() : null,
      last_sync_at: new Date(at - 60_000).toISOString(),
      needs_attention: 0,
      clock: new Date(at + 2_300).toISOString(),
    }, headers: { 'idempotency-key': `beat-${kioskId}-${at}` } });
  const now = Date.now();
  server.clock.set(new Date(now - 10 * 60_000).toISOString());
  expect((await beat('kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AC', 'Gate B', 3, now - 10 * 60_000)).status).toBe(200);
  server.clock.set(new Date(now).toISOString());
  expect((await beat('kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', 'Gate A', 0, now)).status).toBe(200);
  expect((await api.patch('/kiosks/kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB', { name: 'Gate A lodge tablet' })).status).toBe(200);
  // A drill's roll call, one visitor found so far; Gate B's kiosk makes it possibly incomplete.
  const roll = (await api.post('/roll-calls', {})).body.roll_call;
  rollCallId = roll.roll_call_id;
  expect((await api.patch(`/roll-calls/${rollCallId}/entries/${roll.entries[0].log_id}`, { accounted_for: true })).status).toBe(200);
  server.clock.set(new Date().toISOString());
  firstIncidentId = (await api.get('/incidents?status=active&limit=1')).body.results[0].incident_id;
  return estate.body.site.site_id as string;
}

/** No page error and no CSP refusal; a signed-out page's session check answering 401 is the API's, not a problem. */
const problemFree = (watched: WatchedPage, signedOut = false) =>
  expect(watched.problems.filter((p) => !(signedOut && /status of 401/.test(p)))).toEqual([]);

describe('every console screen with real data, at 1366×768 and on a 10-inch tablet both ways', () => {
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stack = await startConsoleStack('screens', { clock: new ManualClock(new Date(Date.now() - 14 * DAY).toISOString()) });
    org = await stack.server.createOrganization({ name: 'Lekki Shield Estates' });
    await seed(stack.origin);
  });
  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('shows the invitation, authenticator and recovery-code steps on a tablet, and the sign-in page', async () => {
    const joining = await stack.open(SCREENS['tablet-portrait']);
    const link = await inviteFromHost(stack.server, org.organizationId, 'owner', 'ada@lekkishield.ng', 'Ada Obi');
    await joinInBrowser(joining.page, stack.server, link, { email: 'ada@lekkishield.ng', name: 'Ada Obi', role: 'owner' }, async (step) => {
      if (step === 'join') await joining.page.getByLabel('Your name').fill('Ada Obi');
      await shoot(joining.page, `${step === 'enrol' ? 'enrol-totp' : step}-tablet-portrait`, true);
    });
    // A gate's key, made where a person sets up a kiosk.
    const { page } = joining;
    await page.setViewportSize(SCREENS.desktop);
    await page.getByRole('navigation').getByRole('link', { name: 'Gates', exact: true }).click();
    await page.getByTestId('new-gate-button').click();
    await page.getByTestId('new-site-choice').selectOption({ label: 'Admiralty Estate' });
    await page.getByLabel('Gate name').fill('Admiralty main gate');
    await page.getByLabel('Entry point').fill('Gate A');
    await page.getByLabel('Location (latitude, longitude)').fill('6.4281, 3.4216');
    await page.getByRole('button', { name: 'Create gate key' }).click();
    await page.getByTestId('gate-setup').getByTestId('qr').waitFor();
    expect(await page.getByTestId('setup-KIOSK_SERVER_URL').textContent()).toBe(`${stack.origin}/v1/external`);
    await shoot(page, 'gate-setup-desktop');
    signedIn = await joining.context.storageState();
    problemFree(joining, true);

    const signIn = await stack.open(SCREENS.desktop);
    await signIn.page.goto('/console/');
    await signIn.page.getByTestId('sign-in-form').waitFor();
    await signIn.page.getByLabel('Email').fill('ada@lekkishield.ng');
    await shoot(signIn.page, 'sign-in-desktop');
    problemFree(signIn, true);
  });

  for (const [size, viewport] of Object.entries(SCREENS)) {
    it(`renders each signed-in screen at ${size}, text only, with no error and nothing the CSP refuses`, async () => {
      const watched = await stack.open(viewport, signedIn);
      const { page } = watched;
      for (const [name, path, ready, environment] of SIGNED_IN) {
        await page.goto(path === 'endpoint' ? `/console/webhooks/${boardEndpointId}` : path === 'incident' ? `/console/incidents/${firstIncidentId}` : path === 'roll-call' ? `/console/visitors/roll-call/${rollCallId}` : path);
        await page.getByTestId(`env-${environment}`).click();
        await page.getByTestId(ready).first().waitFor();
        if (name === 'events') {
          await page.getByTestId('event-row').first().getByRole('button').click();
          await page.getByTestId('delivery-row').first().waitFor();
        }
        if (name === 'endpoint') {
          await page.getByTestId('delivery-row').first().locator('summary').click();
          // The click scrolled the payload into view: the picture starts at the endpoint's facts.
          await page.evaluate('window.scrollTo(0, 0)');
        }
        if (name === 'incident') await page.getByTestId('incident-map-legend').getByText('danger zones within').waitFor();
        await shoot(page, `${name}-${size}`, size !== 'desktop');
      }
      // What a partner or visitor wrote is text: a tag in it stays a tag on screen.
      await page.goto('/console/webhooks');
      await page.getByTestId('env-sandbox').click();
      await page.getByText('Old CRM sync <b>being retired</b>').waitFor();
      expect(await page.locator('b', { hasText: 'being retired' }).count()).toBe(0);
      await page.goto('/console/events');
      const incident = page.getByTestId('event-row').filter({ hasText: 'incident.created' }).first();
      await incident.getByRole('button').first().click();
      await incident.locator('.event-body summary').first().click();
      await incident.getByTestId('payload').first().getByText('<script>alert(1)</script>').waitFor();
      expect(await page.locator('script', { hasText: 'alert(1)' }).count()).toBe(0);
      problemFree(watched);
    });
  }

  it('shows a viewer the keys with no control that changes them', async () => {
    const viewer = await stack.open(SCREENS.desktop);
    await signInInBrowser(viewer.page, stack.server, { email: 'ngozi@lekkishield.ng', name: 'Ngozi Eze', role: 'viewer', totpSecret: undefined, recoveryCodes: [] });
    await viewer.page.getByTestId('env-live').click();
    await viewer.page.getByTestId('key-row').first().waitFor();
    expect(await viewer.page.getByTestId('new-key').count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: /Revoke|Roll/ }).count()).toBe(0);
    await shoot(viewer.page, 'keys-viewer-desktop');
    problemFree(viewer, true);
  });
});
