import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addResponder } from '../../server/responders/service.ts';
import { smsParts } from '../../shared/sms-parts.ts';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * The alarm loop, closed (issue #48), through a real Kannel with fakesmsc as the operator's SMSC:
 * an alarm's end (the guard's false alarm, a cancellation, a resolution) sends each number an
 * alarm text reached one all-clear, and nothing more about it; alarm texts not yet sent are
 * withdrawn; nobody an alarm never reached is told it is over.
 */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('the alarm loop, closed (real Kannel)', () => {
  let rig: KannelRig;
  let server: TestServer;
  let org: TestOrganization;
  let responderBase: string;

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    const port = await freePort();
    server = await startTestServer({ deliverTexts: false, config: { ...smsConfigOf(rig, port), DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300', DISPATCH_RADIUS_KM: '5' } });
    org = await server.createOrganization({ name: 'Shield Security' });
    responderBase = server.baseUrl.replace('/v1/external', '/v1/responder');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rig?.stop();
  });

  /** An estate of its own for each test (numbers of its own), far from every other test's responders. */
  const estate = async (name: string, callList: Array<{ name: string; phone: string; language?: string }>) => {
    const site = await org.live.post('/sites', { name, entry_points: ['North gate'], call_list: callList });
    expect(site.status).toBe(201);
    return site.body.site.site_id as string;
  };
  const sos = async (siteId: string, at: [number, number] = [3.4216, 6.4281]) => {
    const res = await org.live.post('/incidents', incidentBody({ site_id: siteId, location: { coordinates: at, landmark: 'North gate' } }));
    expect(res.status).toBe(201);
    return res.body.incident.incident_id as string;
  };
  const messagesOf = async (incidentId: string) => (await org.live.get(`/messages?incident_id=${incidentId}&limit=100`)).body.results as any[];
  const textsTo = (phone: string) => rig.received().filter((text) => text.to.replace(/^\+/, '') === phone).map((text) => text.text);
  /** Sends whatever is due and waits until fakesmsc has it all. */
  const deliver = async () => {
    const before = rig.received().length;
    const sent = await server.running.deliverTexts();
    return (await rig.waitForReceived(before + sent)).slice(before);
  };
  const escalate = async () => {
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
  };

  it('a cancellation after the alarm went out sends each number one all-clear in its language, Hausa in at most two parts, then nothing', async () => {
    const siteId = await estate('Ɗanjuma Court', [
      { name: 'Estate control', phone: '0803 500 0001' },
      { name: 'Mai gadi', phone: '0803 500 0002', language: 'ha' },
      { name: 'Police', phone: '112' },
    ]);
    const incidentId = await sos(siteId);
    await escalate();
    await deliver();
    expect(textsTo('2348035000001')).toHaveLength(1);

    expect((await org.live.post(`/incidents/${incidentId}/cancel`, { reason: 'Resident pressed it by mistake' })).status).toBe(200);
    expect(await server.running.deliverTexts()).toBe(2);
    // Read per number: fakesmsc may take a moment for each.
    await expect.poll(() => textsTo('2348035000001').at(-1), { timeout: 15_000 }).toBe('TSARO ALL CLEAR at North gate, Ɗanjuma Court: Alarm cancelled. No more alarm texts. Call back: 08035000002');
    await expect.poll(() => textsTo('2348035000002').at(-1), { timeout: 15_000 }).toBe('TSARO KOMAI LAFIYA a North gate, Ɗanjuma Court: An soke ƙararrawar. Ba sauran saƙo. A kira: 08035000001');
    const hausa = textsTo('2348035000002').at(-1);
    expect(smsParts(hausa!).parts).toBeLessThanOrEqual(2);
    // 112 is called, never texted: no all-clear either.
    expect(rig.received().some((text) => text.to.replace(/^\+/, '') === '112')).toBe(false);

    const listed = await messagesOf(incidentId);
    expect(listed.filter((message) => message.reason === 'all_clear').map((message) => message.recipient.name).sort()).toEqual(['Estate control', 'Mai gadi']);
    // Once per incident: a later step of the same incident sends nothing more.
    server.clock.advance(301_000);
    await server.running.advanceDispatch();
    expect(await deliver()).toEqual([]);
  });

  it('an alarm that never went out ends with no all-clear: a false alarm before the escalation texts nobody, and none come after', async () => {
    const siteId = await estate('Admiralty Estate', [
      { name: 'Estate control', phone: '0803 500 0011' },
      { name: 'Chairman', phone: '0803 500 0012' },
    ]);
    const incidentId = await sos(siteId);
    expect((await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'false_alarm', guard: 'Musa Bello' })).status).toBe(200);
    await escalate();
    expect((await org.live.get(`/incidents/${incidentId}`)).body.incident.status).toBe('escalated');
    await deliver();
    expect(await messagesOf(incidentId)).toEqual([]);
    expect(textsTo('2348035000011')).toEqual([]);
  });

  it('alarm texts still waiting when the guard reports a false alarm are withdrawn, never sent, and their numbers get no all-clear', async () => {
    const siteId = await estate('Lekki Gardens', [
      { name: 'Estate control', phone: '0803 500 0021' },
      { name: 'Chairman', phone: '0803 500 0022' },
    ]);
    const incidentId = await sos(siteId);
    await escalate();
    // Escalated and queued, not yet handed to Kannel: the guard's word arrives first.
    expect((await messagesOf(incidentId)).map((message) => message.status)).toEqual(['queued', 'queued']);
    await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'false_alarm', guard: 'Musa Bello' });
    await deliver();
    const listed = await messagesOf(incidentId);
    expect(listed.map((message) => [message.reason, message.status])).toEqual([
      ['escalated', 'withdrawn'],
      ['escalated', 'withdrawn'],
    ]);
    expect(listed[0].last_error).toBe('Withdrawn, not sent: the guard reported a false alarm');
    expect(textsTo('2348035000021')).toEqual([]);
    expect((await org.live.get('/messages?status=withdrawn')).body.results.length).toBeGreaterThanOrEqual(2);
  });

  it("a responder's resolution sends the all-clear to the numbers the alarm reached", async () => {
    const siteId = await estate('Banana Island', [
      { name: 'Estate control', phone: '0803 500 0031' },
      { name: 'Chairman', phone: '0803 500 0032' },
    ]);
    // Far from any responder: escalates and texts; then one comes free nearby and takes it.
    const at: [number, number] = [7.4951, 9.0579];
    const incidentId = await sos(siteId, at);
    await escalate();
    expect(await deliver()).toHaveLength(2);
    const { token } = await addResponder(server.running.database.db, server.clock, { name: 'Emeka Okafor', phone: '+2348030000099', latitude: at[1], longitude: at[0], environment: 'live' });
    const call = async (path: string, body?: unknown) => {
      const res = await fetch(responderBase + path, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    server.clock.advance(31_000);
    await server.running.advanceDispatch();
    await expect.poll(async () => (await call('/offers')).body.offers.length, { timeout: 10_000 }).toBe(1);
    const [offer] = (await call('/offers')).body.offers;
    expect((await call(`/offers/${offer.offer_id}/accept`, {})).status).toBe(200);
    await call(`/incidents/${incidentId}/status`, { status: 'responding' });
    await call(`/incidents/${incidentId}/status`, { status: 'on_scene' });
    expect((await call(`/incidents/${incidentId}/resolve`, { outcome: 'assisted' })).status).toBe(200);
    expect(await server.running.deliverTexts()).toBe(2);
    await expect.poll(() => [...textsTo('2348035000031'), ...textsTo('2348035000032')].filter((text) => text.includes('ALL CLEAR')).sort(), { timeout: 15_000 }).toEqual([
      'TSARO ALL CLEAR at North gate, Banana Island: Alarm resolved. No more alarm texts. Call back: 08035000031',
      'TSARO ALL CLEAR at North gate, Banana Island: Alarm resolved. No more alarm texts. Call back: 08035000032',
    ]);
  });
});
