import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsParts } from '../../shared/sms-parts.ts';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig, type ReceivedText } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { findCutText } from './support/cut-text.ts';
import { GATE, startKioskStack, type KioskStack } from './support/kiosk-stack.ts';
import { holdPanicButton, keepScreenshot, openKiosk, SMALL } from './support/page.ts';

const ENGLISH = '2348031234567';
const HAUSA = '2348057654321';

/**
 * Issue #48's loop closed at the screen: a live gate no responder covers, its estate's call list
 * (one number in English, one in Hausa) reached through a real Kannel with fakesmsc as the
 * operator's SMSC. The guard holds the panic button in Chromium; nobody answers; the SOS escalates
 * and both numbers get the alarm. The guard taps "False alarm" under "What did you do?": each
 * number gets one all-clear naming the gate (English in one GSM-7 part, Hausa in at most two UCS-2
 * parts, as fakesmsc counts them), and no alarm text after it, even when the SOS later goes
 * unresponsive. The server's own dispatch sweep and text worker run, on the wall clock.
 */
describe.skipIf(!process.env.TSARO_TEST_CHROMIUM || !process.env.TSARO_TEST_KANNEL)('a false alarm at the kiosk ends the texts with an all-clear (real Chromium, real Kannel)', () => {
  let rig: KannelRig;
  let stack: KioskStack;
  let browser: Browser;
  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    await ensureRendererBuilt();
    rig = await startKannel();
    const port = await freePort();
    stack = await startKioskStack({
      name: 'false-alarm-texts',
      environment: 'live',
      runDispatch: true,
      // Escalated a second or two after the press; unresponsive 40 s later (room for the kiosk's
      // look at the incident and the guard's tap on a loaded host), which the test waits for to
      // see that no alarm text follows the all-clear.
      serverConfig: { ...smsConfigOf(rig, port), DISPATCH_WINDOW_S: '1', ESCALATION_WINDOW_S: '40' },
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await rig?.stop();
  });

  const textsTo = (phone: string): ReceivedText[] => rig.received().filter((text) => text.to.replace(/^\+/, '') === phone);
  const allClears = (phone: string) => textsTo(phone).filter((text) => /^TSARO (ALL CLEAR|KOMAI LAFIYA) /.test(text.text));

  it('the guard\'s "False alarm" sends each number one all-clear naming the gate, in its language and in few parts, and nothing after', async () => {
    const [home] = (await stack.api.get('/sites')).body.results as any[];
    const patched = await stack.api.patch(`/sites/${home.site_id}`, {
      call_list: [
        { name: 'Estate control', phone: '0803 123 4567' },
        { name: 'Mai gadi', phone: '0805 765 4321', language: 'ha' },
      ],
    });
    expect(patched.status).toBe(200);

    const page = await openKiosk(browser, stack.kioskUrl, SMALL, 'Sani Abubakar');
    await page.getByTestId('nav-panic').click();
    await holdPanicButton(page);
    await expect.poll(() => page.getByTestId('panic-status').getAttribute('data-delivery'), { timeout: 20_000 }).toBe('sent');
    const [incident] = (await stack.api.get('/incidents?limit=10')).body.results as any[];
    expect(incident.site_id).toBe(home.site_id);
    const incidentNow = async () => (await stack.api.get(`/incidents/${incident.incident_id}`)).body.incident;

    // Nobody near: the sweep escalates it and the worker texts the call list, each in its language.
    await expect.poll(() => textsTo(ENGLISH).length, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => textsTo(HAUSA).length, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    expect(textsTo(ENGLISH)[0]!.text).toContain(`TSARO SOS at ${GATE.entryPoint}, Admiralty Gardens: No responder yet.`);
    expect(textsTo(HAUSA)[0]!.text).toContain(`TSARO GAGGAWA a ${GATE.entryPoint}, Admiralty Gardens: Babu mai agaji.`);
    expect(allClears(ENGLISH)).toEqual([]);

    // The kiosk hears of the escalation on its next look at the incident; the guard, seeing
    // nobody coming, answers "What did you do?".
    const status = page.getByTestId('panic-status');
    await expect.poll(() => status.getAttribute('data-incident-status'), { timeout: 30_000, interval: 250 }).toMatch(/^(escalated|unresponsive)$/);
    expect(await page.getByTestId('panic-report').textContent()).toContain('What did you do?');
    await page.getByTestId('panic-report-false_alarm').click();
    await expect.poll(() => page.getByTestId('panic-reported-false_alarm').getAttribute('data-delivery'), { timeout: 20_000 }).toBe('sent');
    expect(await page.getByTestId('panic-reported-false_alarm').textContent()).toContain('You reported a false alarm at');

    // One all-clear to each number, read per number (fakesmsc may take a moment for each).
    await expect.poll(() => allClears(ENGLISH).length, { timeout: 30_000, interval: 250 }).toBe(1);
    await expect.poll(() => allClears(HAUSA).length, { timeout: 30_000, interval: 250 }).toBe(1);
    const [english] = allClears(ENGLISH);
    const [hausa] = allClears(HAUSA);
    expect(english!.text).toBe(`TSARO ALL CLEAR at ${GATE.entryPoint}, Admiralty Gardens: Sani Abubakar reports a false alarm. No more alarm texts. Call back: 08057654321`);
    expect(hausa!.text).toBe(`TSARO KOMAI LAFIYA a ${GATE.entryPoint}, Admiralty Gardens: Sani Abubakar ya ce ƙararrawar ƙarya ce. Ba sauran saƙo. A kira: 08031234567`);
    // As they reached the phones: English in one GSM-7 part; Hausa's ƙ kept (UCS-2, not "?") in at most two.
    expect({ parts: english!.parts, ucs2: english!.ucs2 }).toEqual({ parts: 1, ucs2: false });
    expect(smsParts(english!.text)).toMatchObject({ encoding: 'GSM-7', parts: 1 });
    expect(hausa!.ucs2).toBe(true);
    expect(hausa!.parts).toBeLessThanOrEqual(2);
    expect(smsParts(hausa!.text).parts).toBe(hausa!.parts);

    await keepScreenshot(page, stack.dir, 'panic-false-alarm');

    // Still nobody: the SOS goes unresponsive (the guard's word does not close it), and every text
    // of the incident is settled. Nothing follows the all-clear on either phone.
    await expect.poll(async () => (await incidentNow()).status, { timeout: 60_000, interval: 500 }).toBe('unresponsive');
    const messages = async () => (await stack.api.get(`/messages?incident_id=${incident.incident_id}&limit=100`)).body.results as { reason: string; status: string; recipient: { phone: string } }[];
    await expect.poll(async () => (await messages()).filter((message) => message.status === 'queued').length, { timeout: 20_000, interval: 250 }).toBe(0);
    const sent = (await messages()).filter((message) => message.status === 'sent' || message.status === 'delivered');
    for (const phone of [ENGLISH, HAUSA]) {
      await expect.poll(() => textsTo(phone).length, { timeout: 15_000, interval: 250 }).toBe(sent.filter((message) => message.recipient.phone === `+${phone}`).length);
      const texts = textsTo(phone);
      expect(texts.at(-1), phone).toEqual(allClears(phone)[0]);
      expect(texts.slice(0, -1).every((text) => /^TSARO (SOS|GAGGAWA) /.test(text.text)), phone).toBe(true);
    }
    expect((await messages()).some((message) => message.reason === 'unresponsive' && message.status !== 'withdrawn')).toBe(false);
    expect((await incidentNow()).status).not.toBe('cancelled');

    // The kiosk says the same: still nobody, and the guard's false alarm reported.
    await expect.poll(() => status.getAttribute('data-incident-status'), { timeout: 30_000, interval: 250 }).toBe('unresponsive');
    expect(await page.getByTestId('panic-reported-false_alarm').textContent()).toContain('You reported a false alarm at');
    expect(await page.getByTestId('panic-report-false_alarm').isDisabled()).toBe(true);
    await keepScreenshot(page, stack.dir, 'panic-false-alarm-unresponsive');
    expect(await findCutText(page)).toEqual([]);
  }, 180_000);
});
