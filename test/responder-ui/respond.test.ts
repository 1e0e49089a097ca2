import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { joinStaff } from '../support/staff.ts';
import { keepScreenshot, PHONE, partnerEvents, partnerView, reportIncident, startResponderStack, type Phone, type ResponderStack } from './support/stack.ts';

/** A smaller phone, as many responders carry (issue #48's screenshots). */
const SMALL_PHONE = { width: 390, height: 844 };

const STEPS_SEEN_BY_PARTNER = ['incident.updated:assigned', 'incident.updated:responding', 'incident.updated:on_scene', 'incident.resolved:resolved'];

/** What the server holds for this responder, by its own token (as the phone would ask). */
async function serverSide(stack: ResponderStack, token: string) {
  const response = await fetch(stack.server.baseUrl.replace('/v1/external', '/v1/responder/me'), { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as any).responder as { available: boolean; location: { latitude: number; longitude: number } | null };
}

async function signInAndGoOnDuty(stack: ResponderStack, phone: Phone, shots = false): Promise<Page> {
  const { page } = phone;
  await page.goto(phone.appUrl);
  await page.getByTestId('screen-duty').waitFor();
  await expect.poll(() => page.getByTestId('responder-name').textContent(), { timeout: 10_000 }).not.toBe('…');
  // The token is kept on the phone, not left in the address bar.
  expect(page.url()).not.toContain('rtk_');
  // Signing in reports the phone off duty until the responder says otherwise.
  await expect.poll(async () => (await serverSide(stack, phone.token)).available, { timeout: 10_000 }).toBe(false);
  if (shots) await keepScreenshot(page, stack.dir, 'off-duty');
  // The WAI-ARIA switch pattern: one accessible name, the state in aria-checked (the name never flips to "Off duty").
  const duty = page.getByRole('switch', { name: 'On duty', exact: true });
  expect(await duty.getAttribute('aria-checked')).toBe('false');
  await duty.click();
  await expect.poll(() => duty.getAttribute('aria-checked')).toBe('true');
  expect(await page.getByRole('switch', { name: 'On duty', exact: true }).count()).toBe(1);
  await expect.poll(async () => (await serverSide(stack, phone.token)).available, { timeout: 10_000 }).toBe(true);
  await expect.poll(() => page.getByTestId('location-status').textContent(), { timeout: 20_000 }).toContain('Location sent');
  if (shots) await keepScreenshot(page, stack.dir, 'on-duty');
  return page;
}

/** Waits until the partner's incident has this status. */
const partnerSees = (stack: ResponderStack, incidentId: string, status: string) =>
  expect.poll(async () => (await partnerView(stack.partner, incidentId)).status, { timeout: 15_000 }).toBe(status);

describe('the responder app on a phone (412x915, fake geolocation)', () => {
  let stack: ResponderStack;
  beforeAll(async () => {
    stack = await startResponderStack('respond');
  }, 180_000);
  afterAll(() => stack?.stop());

  it('signs in by link, goes on duty, hears a live incident at once, and works it to resolved; the partner sees every step', async () => {
    const phone = await stack.addPhone('Emeka Okafor', '+2348030000101');
    const page = await signInAndGoOnDuty(stack, phone, true);
    // The heartbeat carried the phone's own position.
    expect((await serverSide(stack, phone.token)).location).toEqual({ latitude: 6.4478, longitude: 3.4723 });

    // How long the phone took to show the offer is timed from the server's own record of the
    // incident's creation to the moment the offer screen entered the page (by the page's clock,
    // the same machine's): the test's own round trips to look are left out of it.
    await page.evaluate(() => {
      const win = globalThis as any;
      win.offerShownAt = null;
      const observer = new win.MutationObserver(() => {
        if (!win.document.querySelector('[data-testid="screen-offer"]')) return;
        win.offerShownAt = Date.now();
        observer.disconnect();
      });
      observer.observe(win.document.body, { childList: true, subtree: true });
    });
    // At an estate's gate: the offer names the gate, the estate and the estate's number (issue #48).
    const estate = (await stack.partner.post('/sites', { name: 'Admiralty Estate', entry_points: ['Main gate'], call_list: [{ name: 'Admiralty control', phone: '0805 765 4321' }, { name: 'Police', phone: '112' }] })).body.site;
    const incident = await reportIncident(stack.partner, { site_id: estate.site_id, subject: { name: 'Chiamaka Nwosu', phone: '+234 803 555 0142', reference: 'member-7781', metadata: { entry_point: 'Main gate' } } });
    await page.getByTestId('screen-offer').waitFor({ timeout: 15_000 });
    const shownAt = (await page.evaluate(() => (globalThis as any).offerShownAt)) as number;
    // Heard at once, not at the end of the long poll's 25 s (how fast, under load, is bench/dispatch.ts's).
    expect(shownAt - Date.parse(incident.created_at)).toBeLessThan(10_000);
    await expect.poll(() => page.getByTestId('offer-time-left').textContent()).toMatch(/^\d+:\d\d left to accept$/);
    expect(await page.getByTestId('offer-address').textContent()).toBe('14 Admiralty Way, Lekki Phase 1');
    expect(await page.getByTestId('offer-distance').textContent()).toMatch(/^0\.\d km NE$/);
    expect(await page.getByTestId('estate-place').textContent()).toBe('Main gate, Admiralty Estate');
    expect(await page.getByTestId('estate-call').textContent()).toBe('Call the estate: 0805 765 4321');
    expect(await page.getByTestId('estate-call').getAttribute('href')).toBe('tel:+2348057654321');
    await keepScreenshot(page, stack.dir, 'offer');
    // And on a 390x844 phone (issue #48): the estate's line and both answers in view.
    await page.setViewportSize(SMALL_PHONE);
    for (const id of ['estate-call', 'offer-accept', 'offer-decline']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.y + box.height, id).toBeLessThanOrEqual(SMALL_PHONE.height);
    }
    await keepScreenshot(page, stack.dir, 'offer-390x844');
    await page.setViewportSize(PHONE);

    await page.getByTestId('offer-accept').click();
    await page.getByTestId('screen-incident').waitFor();
    await partnerSees(stack, incident.incident_id, 'assigned');
    await expect.poll(() => page.getByTestId('incident-step').textContent(), { timeout: 10_000 }).toBe('Assigned to you');
    expect(await page.getByTestId('subject-name').textContent()).toBe('Chiamaka Nwosu');
    expect(await page.getByTestId('subject-call').getAttribute('href')).toBe('tel:+2348035550142');
    // Read as a person writes it, dialled in E.164 (issue #48).
    expect(await page.getByTestId('subject-call').textContent()).toBe('Call 0803 555 0142');
    expect(await page.getByTestId('estate-place').textContent()).toBe('Main gate, Admiralty Estate');
    expect(await page.getByTestId('nav-geo').getAttribute('href')).toBe('geo:6.4493,3.4751?q=6.4493,3.4751');
    expect(await page.getByTestId('nav-osm').getAttribute('href')).toContain('mlat=6.4493&mlon=3.4751');
    await keepScreenshot(page, stack.dir, 'incident-assigned');

    await page.fill('input[name=eta]', '7');
    await page.getByTestId('step-on-my-way').click();
    await partnerSees(stack, incident.incident_id, 'responding');
    expect((await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident.responder).toMatchObject({ name: 'Emeka Okafor', eta_minutes: 7 });
    // 24-hour, as the kiosk and the console write times ("18:04", never "06:04 PM": issue #48).
    await expect.poll(() => page.getByTestId('outbox-sent').textContent(), { timeout: 10_000 }).toMatch(/ at ([01]\d|2[0-3]):[0-5]\d$/);
    await keepScreenshot(page, stack.dir, 'on-my-way');

    await page.getByTestId('step-on-scene').click();
    await partnerSees(stack, incident.incident_id, 'on_scene');
    await page.getByTestId('step-resolve').click();
    await page.getByLabel('Assisted').check();
    await page.fill('textarea[name=notes]', 'Taken to Reddington Hospital by family');
    await keepScreenshot(page, stack.dir, 'resolve');
    await page.getByTestId('resolve-submit').click();
    await page.getByTestId('notice-resolved').waitFor();
    await partnerSees(stack, incident.incident_id, 'resolved');
    await keepScreenshot(page, stack.dir, 'resolved');

    const resolved = (await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident;
    expect(resolved).toMatchObject({ resolution_outcome: 'assisted', resolution_notes: 'Taken to Reddington Hospital by family' });
    const events = (await partnerView(stack.partner, incident.incident_id)).events;
    for (const step of ['assigned', 'responding', 'on_scene', 'resolved']) expect(events.filter((event) => event === step)).toHaveLength(1);
    expect((await partnerEvents(stack.partner, incident.incident_id)).filter((event) => STEPS_SEEN_BY_PARTNER.includes(event))).toEqual(STEPS_SEEN_BY_PARTNER);

    // Back on duty and free: the server offers this responder the next incident.
    await page.getByTestId('notice-ok').click();
    await page.getByTestId('screen-duty').waitFor();
    await expect.poll(async () => (await serverSide(stack, phone.token)).available, { timeout: 10_000 }).toBe(true);
    await phone.context.close();
  });

  it('with the link cut before every step, each action waits on the phone, survives a reload, and reaches the server exactly once when the link returns', async () => {
    const phone = await stack.addPhone('Aisha Bello', '+2348030000102');
    const page = await signInAndGoOnDuty(stack, phone);
    const incident = await reportIncident(stack.partner, { category: 'sos', severity: 'critical' });
    await page.getByTestId('screen-offer').waitFor({ timeout: 10_000 });

    /** Cuts the link, does the step, shows it waiting (tried at least once), then restores the link and waits for the server. */
    const offline = async (step: () => Promise<void>, label: string, status: string, shot?: string, reload = false) => {
      phone.link.cut();
      await step();
      await expect.poll(() => page.getByTestId('outbox-waiting').textContent(), { timeout: 10_000 }).toMatch(new RegExp(`Waiting to send: ${label}.*tried \\d+×`));
      await expect.poll(() => page.getByTestId('link-status').textContent()).toContain('No connection');
      expect((await partnerView(stack.partner, incident.incident_id)).status).not.toBe(status);
      if (reload) {
        // Offline: the service worker opens the app, to the same incident and the same waiting action.
        await page.reload();
        await page.getByTestId('screen-incident').waitFor();
        await expect.poll(() => page.getByTestId('outbox-waiting').textContent(), { timeout: 10_000 }).toContain(`Waiting to send: ${label}`);
      }
      if (shot) await keepScreenshot(page, stack.dir, shot);
      phone.link.restore();
      await partnerSees(stack, incident.incident_id, status);
      await expect.poll(() => page.getByTestId('link-status').textContent(), { timeout: 10_000 }).toBe('Connected');
      // Everything the phone held has gone, the heartbeat the step queued behind it included, before the next cut.
      await expect.poll(() => page.getByTestId('outbox-waiting').count(), { timeout: 10_000 }).toBe(0);
    };

    await offline(() => page.getByTestId('offer-accept').click(), 'Accept', 'assigned', 'offline-waiting', true);
    await expect.poll(() => page.getByTestId('incident-step').textContent()).toBe('Assigned to you');
    await offline(
      async () => {
        await page.fill('input[name=eta]', '12');
        await page.getByTestId('step-on-my-way').click();
      },
      'On my way, 12 min',
      'responding',
      undefined,
      true,
    );
    await offline(() => page.getByTestId('step-on-scene').click(), 'On scene', 'on_scene');
    await page.getByTestId('step-resolve').click();
    await page.getByLabel('False alarm').check();
    await offline(() => page.getByTestId('resolve-submit').click(), 'Resolve: false alarm', 'resolved', undefined, true);
    await page.getByTestId('notice-resolved').waitFor();

    const { events } = await partnerView(stack.partner, incident.incident_id);
    for (const step of ['assigned', 'responding', 'on_scene', 'resolved']) expect(events.filter((event) => event === step)).toHaveLength(1);
    expect((await partnerEvents(stack.partner, incident.incident_id)).filter((event) => STEPS_SEEN_BY_PARTNER.includes(event))).toEqual(STEPS_SEEN_BY_PARTNER);
    expect((await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident).toMatchObject({ resolution_outcome: 'false_alarm', responder: { eta_minutes: 0 } });

    // Off and on duty again with the link cut: the phone does not say its place is sent until the server has it.
    await page.getByTestId('notice-ok').click();
    const duty = page.getByRole('switch', { name: 'On duty', exact: true });
    phone.link.cut();
    await duty.click();
    await expect.poll(() => duty.getAttribute('aria-checked')).toBe('false');
    await duty.click();
    await expect.poll(() => duty.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => page.getByTestId('outbox-waiting').textContent(), { timeout: 10_000 }).toMatch(/Waiting to send: On duty.*tried \d+×/);
    expect(await page.getByTestId('location-status').textContent()).toBe('Sending your location… you are offered incidents once it is through.');
    phone.link.restore();
    await expect.poll(() => page.getByTestId('location-status').textContent(), { timeout: 20_000 }).toContain('Location sent');
    expect((await serverSide(stack, phone.token)).available).toBe(true);
    await phone.context.close();
  });

  it('a decline says why in one press, and the partner reads who and why in the timeline', async () => {
    const phone = await stack.addPhone('Bola Adeyemi', '+2348030000103');
    const page = await signInAndGoOnDuty(stack, phone);
    const incident = await reportIncident(stack.partner);
    await page.getByTestId('screen-offer').waitFor({ timeout: 10_000 });
    await page.getByTestId('offer-decline').click();
    await page.getByRole('group', { name: 'Why are you declining?' }).getByRole('button', { name: 'Vehicle problem' }).click();
    await page.getByTestId('screen-offer').waitFor({ state: 'detached', timeout: 10_000 });
    await expect
      .poll(async () => ((await stack.partner.get(`/incidents/${incident.incident_id}`)).body.incident.timeline as { message: string }[]).map((entry) => entry.message), { timeout: 15_000 })
      .toContain('Declined by Bola Adeyemi: Vehicle problem');
    await phone.context.close();
  });

  it('stood down by Tsaro control, the phone says so and is free for the next incident', async () => {
    // In Abuja, away from the phones of the tests before, still on duty in Lekki.
    const abuja = { latitude: 9.0765, longitude: 7.4986 };
    const phone = await stack.addPhone('Femi Standsdown', '+2348030000104', abuja);
    const page = await signInAndGoOnDuty(stack, phone);
    const incident = await reportIncident(stack.partner, { location: { coordinates: [abuja.longitude + 0.01, abuja.latitude], address: 'Wuse 2, Abuja' } });
    await page.getByTestId('screen-offer').waitFor({ timeout: 10_000 });
    await page.getByTestId('offer-accept').click();
    await partnerSees(stack, incident.incident_id, 'assigned');
    await page.getByTestId('screen-incident').waitFor({ timeout: 10_000 });
    const controller = await joinStaff(stack.server, 'controller', 'Kemi Adeyemi');
    expect((await controller.browser.post(`/incidents/${incident.incident_id}/reassign`, { reason: 'Wrong side of the lagoon' })).status).toBe(200);
    await page.getByTestId('notice-stood-down').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('notice-stood-down').textContent()).toContain('Stood down by Tsaro control');
    await expect.poll(async () => (await serverSide(stack, phone.token)).available, { timeout: 10_000 }).toBe(true);
    await phone.context.close();
  });
});
