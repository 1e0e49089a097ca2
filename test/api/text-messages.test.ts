import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEXT_RETRY_SECONDS } from '../../server/messages/worker.ts';
import { smsParts } from '../../shared/sms-parts.ts';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { expectErrorBody, incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * When nobody comes, Tsaro texts the site's call list (issue #35), through a real Kannel
 * (bearerbox and smsbox from Debian's package) with fakesmsc standing in for the operator's SMSC:
 * what fakesmsc receives is what the phones would.
 */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('text messages through Kannel', () => {
  let rig: KannelRig;
  let server: TestServer;
  let org: TestOrganization;
  let siteId: string;

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    const port = await freePort();
    server = await startTestServer({
      deliverTexts: false,
      config: { ...smsConfigOf(rig, port), DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300', METRICS_PORT: '0' },
    });
    org = await server.createOrganization({ name: 'Shield Security' });
    const site = await org.live.post('/sites', {
      name: 'Admiralty Estate',
      entry_points: ['North gate'],
      call_list: [
        { name: 'Estate control', phone: '0803 123 4567' },
        { name: 'Chairman', phone: '+234 805 765 4321' },
        // Called from the board, never texted: each alarm texts the two full numbers only.
        { name: 'Police', phone: '112' },
      ],
    });
    expect(site.status).toBe(201);
    siteId = site.body.site.site_id;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rig?.stop();
  });

  const sos = async (overrides: Record<string, unknown> = {}) => {
    const res = await org.live.post('/incidents', incidentBody({ site_id: siteId, location: { coordinates: [3.4216, 6.4281], landmark: 'North gate' }, ...overrides }));
    expect(res.status).toBe(201);
    return res.body.incident.incident_id as string;
  };
  const messagesOf = async (incidentId: string) => (await org.live.get(`/messages?incident_id=${incidentId}`)).body.results as any[];
  const timelineOf = async (incidentId: string) =>
    ((await org.live.get(`/incidents/${incidentId}`)).body.incident.timeline as { event: string; message: string }[]).filter((entry) => entry.event.startsWith('sms_'));
  const escalate = async () => {
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
  };

  it("an SOS nobody accepts texts the site's call list when it escalates and again when it is unresponsive, with delivery reports in the timeline", async () => {
    const incidentId = await sos();
    const before = rig.received().length;
    await escalate();
    const queued = await messagesOf(incidentId);
    expect(queued.map((message) => [message.reason, message.recipient.phone, message.status])).toEqual(
      expect.arrayContaining([
        ['escalated', '+2348031234567', 'queued'],
        ['escalated', '+2348057654321', 'queued'],
      ]),
    );
    expect(await server.running.deliverTexts()).toBe(2);
    const phones = (await rig.waitForReceived(before + 2)).slice(before);
    expect(phones.map((text) => text.to.replace(/^\+/, '')).sort()).toEqual(['2348031234567', '2348057654321']);
    for (const text of phones) {
      // One GSM-7 part: the gate and the estate, what to do, a number to call back; no console link.
      expect(text.text).toMatch(/^TSARO SOS at North gate, Admiralty Estate: No responder yet\. Call for help now\. Call back: 0(803123|805765)\d+$/);
      expect(smsParts(text.text)).toMatchObject({ encoding: 'GSM-7', parts: 1 });
    }
    // Kannel reports delivery to the dlr-url each text carried.
    await vi.waitFor(async () => expect((await messagesOf(incidentId)).map((message) => message.status)).toEqual(['delivered', 'delivered']), { timeout: 20_000, interval: 250 });
    // Each report's status and timeline entry commit together.
    expect((await timelineOf(incidentId)).map((entry) => entry.event).sort()).toEqual(['sms_delivered', 'sms_delivered', 'sms_sent', 'sms_sent']);
    expect((await timelineOf(incidentId)).map((entry) => entry.message)).toContain('Text sent to Estate control (+2348031234567)');
    // Counted in /metrics by status.
    const scrape = await (await fetch(server.running.metricsUrl!)).text();
    expect(scrape).toMatch(/^tsaro_text_messages\{status="delivered"\} 2$/m);
    expect(scrape).toMatch(/^tsaro_text_messages\{status="queued"\} 0$/m);

    server.clock.advance(301_000);
    await server.running.advanceDispatch();
    expect(await server.running.deliverTexts()).toBe(2);
    const again = (await rig.waitForReceived(before + 4)).slice(before + 2);
    expect(again.every((text) => text.text.includes('STILL no responder'))).toBe(true);
    expect((await messagesOf(incidentId)).map((message) => message.reason).sort()).toEqual(['escalated', 'escalated', 'unresponsive', 'unresponsive']);
   }, 60_000);

  it('with Kannel down the texts wait and are retried; once it is back each is sent once', async () => {
    const incidentId = await sos();
    const before = rig.received().length;
    await rig.stopGateway();
    try {
      await escalate();
      expect(await server.running.deliverTexts()).toBe(2);
      const waiting = await messagesOf(incidentId);
      expect(waiting.map((message) => [message.status, message.attempts])).toEqual([
        ['queued', 1],
        ['queued', 1],
      ]);
      expect(waiting[0].last_error).toMatch(/Kannel not reachable/);
      // Not due yet: nothing is attempted before the backoff.
      expect(await server.running.deliverTexts()).toBe(0);
    } finally {
      await rig.startGateway();
    }
    server.clock.advance(6_000);
    expect(await server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(before + 2);
    expect(await server.running.deliverTexts()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(rig.received().length).toBe(before + 2);
    expect((await messagesOf(incidentId)).every((message) => message.attempts === 2)).toBe(true);
  });

  it("the guard's \"called for help\" texts the site's list once; their \"false alarm\" ends it with one all-clear, and the incident stays open", async () => {
    const incidentId = await sos();
    const before = rig.received().length;
    const called = await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'called_for_help', guard: 'Musa Bello' });
    expect(called.status).toBe(200);
    // Said twice (a retry, a second tap): texted once.
    await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'called_for_help', guard: 'Musa Bello' });
    expect(await server.running.deliverTexts()).toBe(2);
    await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'false_alarm', guard: 'Musa Bello' });
    await org.live.post(`/incidents/${incidentId}/guard-report`, { report: 'false_alarm', guard: 'Musa Bello' });
    expect(await server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(before + 4);
    const texts = () => rig.received().slice(before);
    await expect.poll(() => texts().filter((text) => text.text.includes('Musa Bello has called for help')).length, { timeout: 15_000 }).toBe(2);
    await expect
      .poll(() => texts().filter((text) => text.text.startsWith('TSARO ALL CLEAR at North gate, Admiralty Estate: Musa Bello reports a false alarm. No more alarm texts.')).length, { timeout: 15_000 })
      .toBe(2);
    expect((await org.live.get(`/incidents/${incidentId}`)).body.incident.status).toBe('dispatching');
    expect((await messagesOf(incidentId)).map((message) => message.reason).sort()).toEqual(['all_clear', 'all_clear', 'called_for_help', 'called_for_help']);
    // The incident stays open for the control room, but nobody is texted about it again.
    await escalate();
    expect((await org.live.get(`/incidents/${incidentId}`)).body.incident.status).toBe('escalated');
    await org.live.post(`/incidents/${incidentId}/cancel`, { reason: 'false alarm' });
    await server.running.deliverTexts();
    expect((await messagesOf(incidentId)).map((message) => message.reason).sort()).toEqual(['all_clear', 'all_clear', 'called_for_help', 'called_for_help']);
  });

  it("a host who gave their phone is texted when their visitor checks in; only those who read visits see those texts", async () => {
    const code = await org.live.post('/access-codes', { visitor_name: 'Chioma Eze', visitor_phone: '+2348031112222', host_user_id: 'Mrs Adebayo, 12B', host_phone: '0806 555 1234', site_id: siteId });
    expect(code.status).toBe(201);
    expect(code.body.access_code.host_phone).toBe('+2348065551234');
    expectErrorBody((await org.live.post('/access-codes', { visitor_name: 'X', visitor_phone: '+2348031112222', host_phone: 'call me' })).body, 400, expect.stringMatching(/^host_phone: /));
    const before = rig.received().length;
    const admitted = await org.live.post('/access-codes/validate', { code: code.body.access_code.code, site_id: siteId, entry_point: 'North gate' });
    expect(admitted.body.valid).toBe(true);
    expect(await server.running.deliverTexts()).toBe(1);
    const [text] = (await rig.waitForReceived(before + 1)).slice(before);
    expect(text!.to.replace(/^\+/, '')).toBe('2348065551234');
    expect(text!.text).toMatch(/^TSARO: Your visitor Chioma Eze has arrived at Admiralty Estate, North gate \(\d\d:\d\d\)\.$/);
    const hostTexts = async (client: typeof org.live) => ((await client.get('/messages')).body.results as { reason: string; log_id: string | null }[]).filter((message) => message.reason === 'visitor_arrived');
    expect((await hostTexts(org.live)).map((message) => message.log_id)).toEqual([admitted.body.log_id]);
    expect(await hostTexts(await org.keyWith(['incidents:read']))).toEqual([]);
    // A sandbox code texts nobody.
    const sandboxCode = await org.sandbox.post('/access-codes', { visitor_name: 'Bola', visitor_phone: '+2348031112222', host_phone: '0806 555 1234' });
    expect((await org.sandbox.post('/access-codes/validate', { code: sandboxCode.body.access_code.code })).body.valid).toBe(true);
    expect(await server.running.deliverTexts()).toBe(0);
  });

  it("each number is texted in its entry's language: Hausa and Pidgin as asked, letters beyond the GSM alphabet intact", async () => {
    const site = await org.live.post('/sites', {
      name: 'Ɗanjuma Court',
      call_list: [
        { name: 'Mai gadi', phone: '0803 200 0001', language: 'ha' },
        { name: 'Oga Control', phone: '0803 200 0002', language: 'pcm' },
      ],
    });
    expect(site.body.site.call_list.map((entry: { language?: string }) => entry.language)).toEqual(['ha', 'pcm']);
    const incidentId = await sos({ site_id: site.body.site.site_id });
    const before = rig.received().length;
    await escalate();
    // Earlier tests' incidents at the other site may escalate with it: wait for every text sent.
    const sent = await server.running.deliverTexts();
    expect(sent).toBeGreaterThanOrEqual(2);
    const texts = (await rig.waitForReceived(before + sent)).slice(before);
    const to = (phone: string) => texts.find((text) => text.to.replace(/^\+/, '') === phone)!.text;
    // Wholly in its language, titles included: no "[CRITICAL] SOS Emergency".
    expect(to('2348032000001')).toBe('TSARO GAGGAWA a North gate, Ɗanjuma Court: Babu mai agaji. A kira taimako yanzu. A kira: 08032000002');
    expect(smsParts(to('2348032000001')).parts).toBeLessThanOrEqual(2);
    expect(to('2348032000002')).toBe('TSARO SOS for North gate, Ɗanjuma Court: Nobody don come. Call for help now. Call: 08032000001');
    expect((await messagesOf(incidentId)).map((message) => message.recipient.name).sort()).toEqual(['Mai gadi', 'Oga Control']);
  });

  it("with the operator's SMSC away, Kannel keeps the texts (sent, not delivered) and delivers them when it returns", async () => {
    const incidentId = await sos();
    const before = rig.received().length;
    await rig.stopSmsc();
    try {
      await escalate();
      expect(await server.running.deliverTexts()).toBe(2);
      // "3: Queued for later delivery": Kannel has it; Tsaro never hands it over again.
      expect((await messagesOf(incidentId)).map((message) => [message.status, message.attempts])).toEqual([
        ['sent', 1],
        ['sent', 1],
      ]);
      expect(rig.received().length).toBe(before);
    } finally {
      await rig.startSmsc();
    }
    await rig.waitForReceived(before + 2);
    await vi.waitFor(async () => expect((await messagesOf(incidentId)).map((message) => message.status)).toEqual(['delivered', 'delivered']), { timeout: 20_000, interval: 250 });
    expect(await server.running.deliverTexts()).toBe(0);
  }, 60_000);

  it('a text the gateway never takes is retried on its schedule for about 45 minutes, then failed, in the timeline', async () => {
    const incidentId = await sos();
    await rig.stopGateway();
    try {
      await escalate();
      for (const wait of TEXT_RETRY_SECONDS) {
        expect(await server.running.deliverTexts()).toBe(2);
        server.clock.advance(wait * 1000);
      }
      expect(await server.running.deliverTexts()).toBe(2);
      const failed = await messagesOf(incidentId);
      expect(failed.map((message) => [message.status, message.attempts])).toEqual([
        ['failed', TEXT_RETRY_SECONDS.length + 1],
        ['failed', TEXT_RETRY_SECONDS.length + 1],
      ]);
      expect(failed[0].last_error).toMatch(/Kannel not reachable/);
      expect((await timelineOf(incidentId)).filter((entry) => entry.event === 'sms_failed')).toHaveLength(2);
      expect(await server.running.deliverTexts()).toBe(0);
    } finally {
      await rig.startGateway();
    }
  }, 60_000);

  it('a sandbox SOS, a drill and an incident at no site text nobody', async () => {
    const sandbox = (await org.sandbox.post('/incidents', incidentBody({ site_id: siteId }))).body.incident.incident_id;
    const drill = await sos({ is_drill: true });
    const nowhere = await sos({ site_id: undefined });
    await escalate();
    for (const id of [sandbox, drill, nowhere]) expect(await messagesOf(id)).toEqual([]);
  });

  it('a delivery report with a wrong token is a 404, and changes nothing', async () => {
    const incidentId = await sos();
    await escalate();
    const [message] = await messagesOf(incidentId);
    const report = await fetch(`${server.baseUrl.replace('/v1/external', '')}/v1/hooks/kannel/dlr?id=${message.message_id}&token=guessed&status=1`);
    expect(report.status).toBe(404);
    expect((await messagesOf(incidentId))[0].status).toBe('queued');
  });
});
