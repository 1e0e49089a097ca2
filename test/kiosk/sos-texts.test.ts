import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { startGate, type Gate } from './support/gate.ts';

/**
 * Issue #35 end to end at a gate: a live kiosk with no responders near, a real Kannel with
 * fakesmsc as the SMSC. The guard holds the panic button; nobody accepts; the site's call list
 * receives the texts at `escalated` and `unresponsive`, with delivery reports in the timeline;
 * the guard's "I called for help" is texted too.
 */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('an SOS at a live gate nobody answers texts the estate', () => {
  let rig: KannelRig;
  let gate: Gate;

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    const port = await freePort();
    gate = await startGate({
      deliverTexts: false,
      config: { ...smsConfigOf(rig, port), DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300' },
    });
  }, 60_000);
  afterAll(async () => {
    await gate?.stop();
    await rig?.stop();
  });

  it('the call list gets the texts at escalated and unresponsive, and the guard\'s report, each delivered', async () => {
    const home = (await gate.owner.get('/sites')).body.results[0];
    await gate.owner.patch(`/sites/${home.site_id}`, { call_list: [{ name: 'Estate control', phone: '0803 123 4567' }, { name: 'Chairman', phone: '0805 765 4321' }] });
    const { core } = gate.kiosk();
    await core.call('startShift', { guardName: 'Sani Garba', guardPhone: '+2348030000009' });
    const pressed = await core.call('panicPress', { pressId: 'press-0900-aaaa' });
    expect(pressed.delivery).toBe('sent');
    const incident = async () => (await gate.owner.get(`/incidents/${pressed.incidentId}`)).body.incident;
    expect((await incident()).site_id).toBe(home.site_id);

    const send = async (count: number, words: string) => {
      const before = rig.received().length;
      expect(await gate.server.running.deliverTexts()).toBe(count);
      const texts = (await rig.waitForReceived(before + count)).slice(before);
      expect(texts.map((text) => text.to.replace(/^\+/, '')).sort()).toEqual(['2348031234567', '2348057654321']);
      for (const text of texts) expect(text.text).toContain(words);
    };
    gate.clock.advance(61_000);
    await gate.server.running.advanceDispatch();
    // Each names the gate and the guard on duty, with a number to call back (issue #48).
    await send(2, 'No responder yet. Call for help now. Guard: Sani Garba. Call back: 080');
    gate.clock.advance(301_000);
    await gate.server.running.advanceDispatch();
    await send(2, 'STILL no responder');
    await core.call('panicReport', { pressId: 'press-0900-aaaa', report: 'called_for_help' });
    await send(2, 'Sani Garba has called for help.');
    // The guard's false alarm: one all-clear to each number, and nothing after it.
    await core.call('panicReport', { pressId: 'press-0900-aaaa', report: 'false_alarm' });
    await send(2, 'Sani Garba reports a false alarm. No more alarm texts.');

    // Every text delivered, in the timeline the operator reads.
    await expect
      .poll(async () => ((await incident()).timeline as { event: string }[]).filter((entry) => entry.event === 'sms_delivered').length, { timeout: 20_000, interval: 250 })
      .toBe(8);
    const messages = (await gate.owner.get(`/messages?incident_id=${pressed.incidentId}`)).body.results as { reason: string; status: string }[];
    expect(messages.map((message) => message.status)).toEqual(Array(8).fill('delivered'));
  });
});
