import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { incidentBody, startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #46, hole 6: texts carried what a caller wrote, without limit. A visitor's name holding
 * a link and a phone number, checked in at a typed "gate" holding another, made Tsaro text the
 * host a phishing message; one gate key made 120 texts to one number in 15 s; SOSs and guard
 * reports queued a text each. Through a real Kannel with fakesmsc as the SMSC: what fakesmsc
 * receives is what the phones would.
 */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('texts are templates under hourly ceilings (real Kannel)', () => {
  let rig: KannelRig;
  let server: TestServer;

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    const port = await freePort();
    server = await startTestServer({
      deliverTexts: false,
      config: {
        ...smsConfigOf(rig, port),
        DISPATCH_WINDOW_S: '60',
        ESCALATION_WINDOW_S: '300',
        SMS_MAX_PER_RECIPIENT_HOUR: '5',
        SMS_MAX_PER_ORGANIZATION_HOUR: '20',
        SMS_ALARM_MERGE_S: '120',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rig?.stop();
  });

  /** An estate whose call list holds these numbers; each test uses numbers of its own. */
  const estate = async (org: TestOrganization, callList: string[]) => {
    const site = await org.live.post('/sites', { name: 'Admiralty Estate', call_list: callList.map((phone, i) => ({ name: `Control ${i + 1}`, phone })) });
    expect(site.status).toBe(201);
    return site.body.site.site_id as string;
  };
  const textsTo = (phone: string) => rig.received().filter((text) => text.to.replace(/^\+/, '') === phone).map((text) => text.text);
  const messages = async (client: ApiClient, query = '') => (await client.get(`/messages?limit=100${query}`)).body.results as any[];
  const sos = async (org: TestOrganization, siteId: string, overrides: Record<string, unknown> = {}) => {
    const res = await org.live.post('/incidents', incidentBody({ site_id: siteId, ...overrides }));
    expect(res.status).toBe(201);
    return res.body.incident.incident_id as string;
  };
  const escalate = async () => {
    server.clock.advance(61_000);
    await server.running.advanceDispatch();
  };
  /** Each test's incidents end with it, so a later test's clock never escalates them again. */
  const cancelAll = async (org: TestOrganization, ids: string[]) => {
    for (const id of ids) expect((await org.live.post(`/incidents/${id}/cancel`, { reason: 'test over' })).status).toBe(200);
    // Their all-clears (issue #48) go now, not in the next test's count.
    const before = rig.received().length;
    const cleared = await server.running.deliverTexts();
    await rig.waitForReceived(before + cleared);
  };
  /** What a phone would offer to tap: a link, or a phone number (seven digits or more, however they are spaced). */
  const expectNothingToTap = (text: string) => {
    const words = text;
    expect(words).not.toMatch(/https?|:\/\/|www|\.example|\.ng\b/i);
    expect(words).not.toMatch(/\d[\d\s().-]{5,}\d/);
    expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
  };

  it("the phishing of the reproduction reaches the host and the call list without its links, phone numbers or line breaks", async () => {
    const org = await server.createOrganization({ name: 'Shield Security', plan: 'enterprise' });
    const siteId = await estate(org, ['0803 400 0001']);
    const gate = await org.keyWith(['access_codes:write', 'access_codes:validate']);
    const code = await gate.post('/access-codes', {
      visitor_name: 'Your account is locked. Pay now at http://tsaro-pay.example/ng or call +234 809 555 0101',
      visitor_phone: '+2348031112222',
      host_phone: '0806 400 0002',
      site_id: siteId,
    });
    expect(code.status).toBe(201);
    const admitted = await gate.post('/access-codes/validate', {
      code: code.body.access_code.code,
      site_id: siteId,
      entry_point: 'North gate\nURGENT: verify at https://tsaro-verify.example/login',
    });
    expect(admitted.body.valid).toBe(true);

    const incidentId = await sos(org, siteId, {
      title: 'Levy overdue. Pay at http://levy.example or call 0809 555 0101',
      location: { coordinates: [3.4216, 6.4281], address: '12 Admiralty Way\nCall +2348095550101 now', landmark: 'www.tsaro-help.example' },
    });
    await escalate();
    expect(await server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(2);

    const [toHost] = textsTo('2348064000002');
    expect(toHost).toMatch(/^TSARO: Your visitor Your account is locked\. .* has arrived at Admiralty Estate, North gate .*\(\d\d:\d\d\)\.$/);
    expectNothingToTap(toHost!);
    const [toCallList] = textsTo('2348034000001');
    // The caller's title is not the text's: the alarm is named by its kind, in the recipient's words (issue #48).
    expect(toCallList).toMatch(/^TSARO SOS at .*Admiralty Estate: No responder yet\. Call for help now\.$/);
    expectNothingToTap(toCallList!);
    // What GET /messages lists is what was sent.
    const listed = await messages(org.live);
    expect(listed.map((message) => message.body).sort()).toEqual([toHost, toCallList].sort());
    await cancelAll(org, [incidentId]);
  });

  it('one gate key checking in 40 codes three times each texts the host up to the ceiling; the other 115 are held, listed and counted', async () => {
    const org = await server.createOrganization({ name: 'Gate Flood', plan: 'enterprise' });
    const siteId = await estate(org, ['0803 500 0001']);
    const gate = await org.keyWith(['access_codes:write', 'access_codes:validate']);
    const bulk = await gate.post('/access-codes/bulk', {
      site_id: siteId,
      visitors: Array.from({ length: 40 }, (_, i) => ({ visitor_name: `Visitor ${i + 1}`, visitor_phone: '+2348031112222', host_phone: '0806 500 0002', max_uses: 3 })),
    });
    expect(bulk.status).toBe(201);
    const codes = (bulk.body.access_codes as { code: string }[]).map((code) => code.code);
    const before = rig.received().length;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < codes.length; i += 10) {
        const answers = await Promise.all(codes.slice(i, i + 10).map((code) => gate.post('/access-codes/validate', { code, site_id: siteId })));
        expect(answers.map((answer) => answer.body.valid)).toEqual(answers.map(() => true));
      }
    }

    expect(await server.running.deliverTexts()).toBe(5);
    await rig.waitForReceived(before + 5);
    expect(textsTo('2348065000002')).toHaveLength(5);
    const held = await org.live.get('/messages?status=held&limit=1');
    expect(held.body.totalResults).toBe(115);
    expect(held.body.results[0].last_error).toBe('Held, not sent: this number was sent 5 texts in the last hour, its ceiling');
    const gateway = (await org.live.get('/messages/gateway')).body;
    expect(gateway.ceilings).toEqual({ per_recipient_per_hour: 5, per_organization_per_hour: 20, alarm_merge_seconds: 120 });
    expect(gateway.last_hour).toEqual({ held: 115, merged: 0 });
    // Held means never sent: nothing more goes, now or later.
    expect(await server.running.deliverTexts()).toBe(0);

    // The ceiling is per hour: an hour on, the host is texted again.
    server.clock.advance(3_600_001);
    const later = await gate.post('/access-codes', { visitor_name: 'Bola', visitor_phone: '+2348031112222', host_phone: '0806 500 0002', site_id: siteId });
    expect((await gate.post('/access-codes/validate', { code: later.body.access_code.code, site_id: siteId })).body.valid).toBe(true);
    expect(await server.running.deliverTexts()).toBe(1);
    await rig.waitForReceived(before + 6);
    expect(textsTo('2348065000002').at(-1)).toMatch(/^TSARO: Your visitor Bola has arrived/);
  });

  it("past the organization's ceiling a host's text is held too, and alarms still go at once: host texts never hold an alarm back", async () => {
    const org = await server.createOrganization({ name: 'Many Hosts', plan: 'enterprise' });
    const siteId = await estate(org, ['0803 600 0001', '0803 600 0002']);
    const gate = await org.keyWith(['access_codes:write', 'access_codes:validate']);
    const hosts = Array.from({ length: 24 }, (_, i) => `0806 600 ${String(i + 100).padStart(4, '0')}`);
    for (const host_phone of hosts) {
      const code = await gate.post('/access-codes', { visitor_name: 'Chioma Eze', visitor_phone: '+2348031112222', host_phone, site_id: siteId });
      expect((await gate.post('/access-codes/validate', { code: code.body.access_code.code, site_id: siteId })).body.valid).toBe(true);
    }
    expect(await server.running.deliverTexts()).toBe(20);
    const held = await messages(org.live, '&status=held');
    expect(held).toHaveLength(4);
    expect(held[0].last_error).toBe('Held, not sent: the organization sent 20 texts in the last hour, its ceiling');

    const incidentId = await sos(org, siteId);
    await escalate();
    expect(await server.running.deliverTexts()).toBe(2);
    const alarms = await messages(org.live, `&incident_id=${incidentId}`);
    expect(alarms).toHaveLength(2);
    for (const alarm of alarms) expect(['sent', 'delivered']).toContain(alarm.status);
    await cancelAll(org, [incidentId]);
  });

  it('alarms over the ceiling are merged into one text per number naming how many, never dropped: SOSs, then guard reports', async () => {
    const org = await server.createOrganization({ name: 'Lekki Watch', plan: 'enterprise' });
    const phones = ['2348037000001', '2348037000002'];
    const siteId = await estate(org, ['0803 700 0001', '0803 700 0002']);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await sos(org, siteId));
    const before = rig.received().length;
    await escalate();

    // 16 alarms: five to each number go (the ceiling); each number's other three become one text.
    expect(await server.running.deliverTexts()).toBe(10);
    await rig.waitForReceived(before + 10);
    // Counted per number: a text of an earlier test reaching fakesmsc late must not stand in for one of these.
    for (const phone of phones) await expect.poll(() => textsTo(phone).length, { timeout: 15_000 }).toBe(5);
    for (const phone of phones) expect(textsTo(phone).map((text) => /^TSARO SOS at 12 Admiralty, Admiralty Estate: No responder yet\./.test(text))).toEqual([true, true, true, true, true]);
    const byNumber = (list: any[], phone: string) => list.filter((message) => message.recipient.phone === `+${phone}`);
    let listed = await messages(org.live);
    expect(listed).toHaveLength(16);
    for (const phone of phones) {
      const mine = byNumber(listed, phone);
      const carrier = mine.find((message) => message.status === 'queued');
      expect(carrier.body).toMatch(/^TSARO: 3 alarms at Admiralty Estate since \d\d:\d\d\. See them on the Tsaro board\.$/);
      const merged = mine.filter((message) => message.status === 'merged');
      expect(merged.map((message) => message.merged_into)).toEqual([carrier.message_id, carrier.message_id]);
      expect(merged[0].last_error).toBe('Merged into one text with the other alarms to this number: this number was sent 5 alarm texts in the last hour, its ceiling');
    }
    expect((await org.live.get('/messages/gateway')).body.last_hour).toEqual({ held: 0, merged: 4 });
    // Its turn comes SMS_ALARM_MERGE_S after the number's last alarm text.
    expect(await server.running.deliverTexts()).toBe(0);
    server.clock.advance(120_000);
    expect(await server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(before + 12);
    for (const phone of phones) await expect.poll(() => textsTo(phone).length, { timeout: 15_000 }).toBe(6);
    for (const phone of phones) expect(textsTo(phone).at(-1)).toMatch(/^TSARO: 3 alarms at Admiralty Estate since \d\d:\d\d\. See them on the Tsaro board\.$/);
    // Never dropped: every incident was texted to both numbers, alone or merged, and its timeline says so.
    listed = await messages(org.live);
    for (const id of ids) {
      const itsTexts = listed.filter((message) => message.incident_id === id);
      expect(itsTexts).toHaveLength(2);
      for (const text of itsTexts) expect(['sent', 'delivered', 'merged']).toContain(text.status);
      const timeline = (await org.live.get(`/incidents/${id}`)).body.incident.timeline as { event: string; message: string }[];
      expect(timeline.filter((entry) => entry.event === 'sms_sent')).toHaveLength(2);
    }
    const mergedIncident = listed.find((message) => message.status === 'merged').incident_id;
    const mergedTimeline = (await org.live.get(`/incidents/${mergedIncident}`)).body.incident.timeline as { event: string; message: string }[];
    expect(mergedTimeline.filter((entry) => entry.event === 'sms_sent').map((entry) => entry.message)).toEqual(expect.arrayContaining([expect.stringMatching(/\(one text for 3 alarms\)$/)]));

    // Eight guard reports at once, still over the ceiling: one text per number naming all eight.
    for (const id of ids) expect((await org.live.post(`/incidents/${id}/guard-report`, { report: 'called_for_help', guard: 'Musa Bello' })).status).toBe(200);
    expect(await server.running.deliverTexts()).toBe(0);
    server.clock.advance(120_000);
    expect(await server.running.deliverTexts()).toBe(2);
    await rig.waitForReceived(before + 14);
    for (const phone of phones) await expect.poll(() => textsTo(phone).length, { timeout: 15_000 }).toBe(7);
    for (const phone of phones) expect(textsTo(phone).at(-1)).toMatch(/^TSARO: 8 alarms at Admiralty Estate since /);
    expect((await messages(org.live, '&status=merged')).length).toBe(4 + 14);
    await cancelAll(org, ids);
  });
});
