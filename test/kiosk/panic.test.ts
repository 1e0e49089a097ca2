import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKioskCore } from '../../electron/core/core.ts';
import { GATE_A, GATE_SCOPES, startGate, type Gate } from './support/gate.ts';

let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

async function serverIncidents() {
  return (await gate.owner.get('/incidents?limit=100')).body.results as Array<{
    incident_id: string;
    category: string;
    severity: string;
    status: string;
    subject: { name: string; phone: string | null };
    location: { coordinates: [number, number]; address: string | null };
  }>;
}

describe('the panic button', () => {
  it('pressed offline, twice, and across a restart, makes one SOS incident when the link returns, sent ahead of the queue', async () => {
    const { core, link, dataDir } = gate.kiosk();
    await core.call('startShift', { guardName: 'Sani Garba', guardPhone: '+2348030000009' });
    await core.call('syncNow', {});
    link.up = false;
    await core.call('walkIn', { visitorName: 'Ngozi Eze', visitorPhone: '+2348030000002' });

    const first = await core.call('panicPress', { pressId: 'press-0001-aaaa' });
    expect(first).toMatchObject({ pressId: 'press-0001-aaaa', delivery: 'retrying', incidentId: null });
    expect(first.lastError).toMatch(/cannot be reached/);
    expect(await core.call('panicPress', { pressId: 'press-0001-aaaa' })).toMatchObject({ delivery: 'retrying' });
    // A second press of the button (a new press id) joins the SOS under way.
    expect(await core.call('panicPress', { pressId: 'press-0002-bbbb' })).toMatchObject({ pressId: 'press-0002-bbbb', delivery: 'retrying' });
    // "Waiting to send" counts the SOS with the walk-in: the status bar never reads 0 while it is unsent.
    expect(await core.call('kioskStatus', {})).toMatchObject({ activePanic: { delivery: 'retrying' }, pendingOperations: 2 });

    // The kiosk is switched off and on again before the link returns.
    await core.close();
    const restarted = createKioskCore({ dataDir, serverUrl: gate.server.baseUrl, apiKey: gate.gateKey, entryPoint: GATE_A.entryPoint, location: GATE_A.location, clock: gate.clock, fetch: link.fetch });
    link.up = true;
    link.sent.length = 0;
    await restarted.call('syncNow', {});

    expect(link.writes()[0]).toBe('POST /incidents');
    expect(link.writes()).toEqual(['POST /incidents', 'POST /kiosk/replay']);
    const incidents = await serverIncidents();
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({
      category: 'sos',
      severity: 'critical',
      subject: { name: 'Sani Garba', phone: '+2348030000009' },
      location: { coordinates: [GATE_A.location.longitude, GATE_A.location.latitude], address: 'Gate A' },
    });
    const sent = await restarted.call('panicStatus', { pressId: 'press-0001-aaaa' });
    expect(sent).toMatchObject({ delivery: 'sent', incidentId: incidents[0]!.incident_id, incidentStatus: incidents[0]!.status });

    // Pressing again with a press id already sent, or while the incident is open, adds nothing.
    await restarted.call('panicPress', { pressId: 'press-0001-aaaa' });
    await restarted.call('panicPress', { pressId: 'press-0003-cccc' });
    await restarted.call('syncNow', {});
    expect(await serverIncidents()).toHaveLength(1);
    await restarted.close();
  });

  it("the guard's word on an SOS: \"I called for help\" goes at once; \"False alarm\" said offline waits, goes when the link returns, once", async () => {
    const { core, link } = gate.kiosk();
    await core.call('startShift', { guardName: 'Sani Garba', guardPhone: '+2348030000009' });
    const pressed = await core.call('panicPress', { pressId: 'press-0050-aaaa' });
    expect(pressed.delivery).toBe('sent');
    const called = await core.call('panicReport', { pressId: 'press-0050-aaaa', report: 'called_for_help' });
    expect(called.reports).toEqual([{ report: 'called_for_help', at: expect.any(String), delivery: 'sent' }]);
    const timeline = async () => ((await gate.owner.get(`/incidents/${pressed.incidentId}`)).body.incident.timeline as { event: string; message: string }[]).filter((entry) => entry.event === 'called_for_help' || entry.event === 'false_alarm');
    expect(await timeline()).toEqual([expect.objectContaining({ event: 'called_for_help', message: 'Sani Garba called for help' })]);

    link.up = false;
    const offline = await core.call('panicReport', { pressId: 'press-0050-aaaa', report: 'false_alarm' });
    expect(offline.reports.map((said) => [said.report, said.delivery])).toEqual([
      ['called_for_help', 'sent'],
      ['false_alarm', 'waiting'],
    ]);
    // Said again: still one.
    expect((await core.call('panicReport', { pressId: 'press-0050-aaaa', report: 'false_alarm' })).reports).toHaveLength(2);
    link.up = true;
    await core.call('syncNow', {});
    expect((await core.call('panicStatus', { pressId: 'press-0050-aaaa' }))!.reports.map((said) => said.delivery)).toEqual(['sent', 'sent']);
    await core.call('syncNow', {});
    expect((await timeline()).map((entry) => entry.event)).toEqual(['called_for_help', 'false_alarm']);
    // A false alarm leaves the SOS open: operators close it.
    expect((await core.call('panicStatus', { pressId: 'press-0050-aaaa' }))!.incidentStatus).toBe('dispatching');
  });

  it('is acknowledged at once with the link up, and follows the incident until it is over', async () => {
    const { core } = gate.kiosk();
    const pressed = await core.call('panicPress', { pressId: 'press-0100-aaaa' });
    expect(pressed).toMatchObject({ delivery: 'sent', incidentStatus: 'dispatching' });
    expect(pressed.incidentId).toMatch(/^inc_/);
    expect(pressed.responder).toBeNull();

    await gate.owner.post(`/incidents/${pressed.incidentId}/cancel`, { reason: 'Drill' });
    await core.call('syncNow', {});
    expect(await core.call('panicStatus', {})).toMatchObject({ pressId: 'press-0100-aaaa', incidentStatus: 'cancelled' });
    expect((await core.call('kioskStatus', {})).activePanic).toBeNull();

    // Once it is over, the button raises a new SOS.
    const next = await core.call('panicPress', { pressId: 'press-0101-bbbb' });
    expect(next.incidentId).not.toBe(pressed.incidentId);
    expect(await serverIncidents()).toHaveLength(2);
  });

  it('shows the incident as it changes: the responder assigned, then on the way with an ETA', async () => {
    const sandboxKey = (await gate.org.keyWith(GATE_SCOPES, 'sandbox')).key!;
    const { core } = gate.kiosk({ apiKey: sandboxKey });
    const pressed = await core.call('panicPress', { pressId: 'press-0200-aaaa' });
    expect(pressed).toMatchObject({ delivery: 'sent', incidentStatus: 'dispatching', responder: null });

    const seen: string[] = [pressed.incidentStatus!];
    for (let i = 0; i < 40 && seen.at(-1) !== 'responding'; i++) {
      gate.clock.advance(1_000);
      await gate.server.running.advanceDispatch();
      await core.call('syncNow', {});
      const status = await core.call('panicStatus', { pressId: 'press-0200-aaaa' });
      if (status!.incidentStatus !== seen.at(-1)) seen.push(status!.incidentStatus!);
    }
    expect(seen).toEqual(['dispatching', 'assigned', 'responding']);
    const status = await core.call('panicStatus', {});
    expect(status!.responder).toMatchObject({ name: 'Simulated Responder (Lagos)' });
    expect(status!.responder!.etaMinutes).toEqual(expect.any(Number));
    expect((await core.call('kioskStatus', {})).activePanic).toMatchObject({ incidentStatus: 'responding' });
  });

  it('a press hours after an SOS whose incident was closed while the link was down is a new SOS, sent', async () => {
    const { core, link } = gate.kiosk();
    const first = await core.call('panicPress', { pressId: 'press-0300-aaaa' });
    expect(first.delivery).toBe('sent');
    link.up = false;
    // The responders close it while the gate is offline: the kiosk's copy still says "dispatching".
    await gate.owner.post(`/incidents/${first.incidentId}/cancel`, { reason: 'Handled' });
    gate.clock.advance(3 * 3_600_000);
    const second = await core.call('panicPress', { pressId: 'press-0301-bbbb' });
    expect(second).toMatchObject({ delivery: 'retrying', incidentId: null, pressedAt: gate.clock.now().toISOString() });
    link.up = true;
    await core.call('syncNow', {});
    expect(await serverIncidents()).toHaveLength(2);
    expect(await core.call('panicStatus', { pressId: 'press-0301-bbbb' })).toMatchObject({ delivery: 'sent', incidentId: expect.not.stringMatching(first.incidentId!) });
  });

  it('with a key that cannot read incidents, stops following the SOS, and a later press is a new SOS', async () => {
    const key = (await gate.org.keyWith(['access_codes:validate', 'access_codes:write', 'logs:read', 'incidents:write'])).key!;
    const { core } = gate.kiosk({ apiKey: key });
    const first = await core.call('panicPress', { pressId: 'press-0400-aaaa' });
    expect(first.delivery).toBe('sent');
    await core.call('syncNow', {});
    // The poll answered 403: nothing more will be learnt, so the banner does not stay forever.
    expect((await core.call('kioskStatus', {})).activePanic).toBeNull();
    gate.clock.advance(10 * 60_000);
    const later = await core.call('panicPress', { pressId: 'press-0401-bbbb' });
    expect(later.delivery).toBe('sent');
    expect(later.incidentId).not.toBe(first.incidentId);
    expect(await serverIncidents()).toHaveLength(2);
  });

  it('a second press within moments joins the first SOS, and shows its own time', async () => {
    const { core } = gate.kiosk();
    const first = await core.call('panicPress', { pressId: 'press-0500-aaaa' });
    gate.clock.advance(30_000);
    const joined = await core.call('panicPress', { pressId: 'press-0501-bbbb' });
    expect(joined).toMatchObject({ delivery: 'sent', incidentId: first.incidentId, pressedAt: gate.clock.now().toISOString() });
    expect(joined.pressedAt).not.toBe(first.pressedAt);
    expect(await core.call('panicStatus', { pressId: 'press-0501-bbbb' })).toMatchObject({ pressedAt: joined.pressedAt });
    expect(await core.call('panicStatus', { pressId: 'press-0500-aaaa' })).toMatchObject({ pressedAt: first.pressedAt });
    expect(await serverIncidents()).toHaveLength(1);
  });
});
