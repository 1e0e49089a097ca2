import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { createMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/ports.ts';
import { incidentBody, startTestServer, type TestServer } from '../support/server.ts';

/** Two hosts on one PostgreSQL database, both sending texts: each text reaches its phone once (issue #35). */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('text messages on two hosts', () => {
  let rig: KannelRig;
  let database: TestDatabase;
  const hosts: TestServer[] = [];

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    database = await createMigratedDatabase();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      hosts.push(
        await startTestServer({
          database,
          deliverTexts: false,
          config: { ...smsConfigOf(rig, port), DISPATCH_WINDOW_S: '60' },
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await database?.drop();
    await rig?.stop();
  });

  it('both hosts send at once: every number of the call list gets one text per alarm', async () => {
    const [a, b] = hosts as [TestServer, TestServer];
    const org = await a.createOrganization({ name: 'Shield Security' });
    const phones = ['0803 100 0001', '0803 100 0002', '0803 100 0003', '0803 100 0004', '0803 100 0005'];
    const site = await org.live.post('/sites', { name: 'Admiralty Estate', call_list: phones.map((phone, i) => ({ name: `Contact ${i + 1}`, phone })) });
    expect(site.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await org.live.post('/incidents', incidentBody({ site_id: site.body.site.site_id }))).body.incident.incident_id);
    a.clock.advance(61_000);
    b.clock.advance(61_000);
    await Promise.all([a.running.advanceDispatch(), b.running.advanceDispatch()]);
    const before = rig.received().length;
    const attempted = await Promise.all([a.running.deliverTexts(), b.running.deliverTexts()]);
    expect(attempted.reduce((sum, n) => sum + n, 0)).toBe(20);
    const received = (await rig.waitForReceived(before + 20, 45_000)).slice(before);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(rig.received().length).toBe(before + 20);
    const perPhone = new Map<string, number>();
    for (const text of received) perPhone.set(text.to, (perPhone.get(text.to) ?? 0) + 1);
    expect([...perPhone.values()]).toEqual([4, 4, 4, 4, 4]);
    for (const id of ids) {
      const messages = (await org.live.get(`/messages?incident_id=${id}`)).body.results as { attempts: number }[];
      expect(messages.map((message) => message.attempts)).toEqual([1, 1, 1, 1, 1]);
    }
    // Twenty texts through one SMSC on a machine shared with the rest of the suite: time to spare.
  }, 90_000);

  it("both hosts decide at once: a number's hourly ceiling holds across hosts (issue #46)", async () => {
    const [a, b] = hosts as [TestServer, TestServer];
    const org = await a.createOrganization({ name: 'Gate Flood', plan: 'enterprise' });
    const site = await org.live.post('/sites', { name: 'Admiralty Estate', call_list: [{ name: 'Control', phone: '0803 200 0001' }] });
    const siteId = site.body.site.site_id as string;
    const bulk = await org.live.post('/access-codes/bulk', {
      site_id: siteId,
      visitors: Array.from({ length: 40 }, (_, i) => ({ visitor_name: `Visitor ${i + 1}`, visitor_phone: '+2348031112222', host_phone: '0806 200 0002' })),
    });
    expect(bulk.status).toBe(201);
    for (const { code } of bulk.body.access_codes as { code: string }[]) expect((await org.live.post('/access-codes/validate', { code, site_id: siteId })).body.valid).toBe(true);
    // Each host claims twenty and decides them while the other does: ten go (SMS_MAX_PER_RECIPIENT_HOUR), not twenty.
    const attempted = await Promise.all([a.running.deliverTexts(), b.running.deliverTexts()]);
    expect(attempted.reduce((sum, n) => sum + n, 0)).toBe(10);
    expect((await org.live.get('/messages?status=held&limit=1')).body.totalResults).toBe(30);
  }, 90_000);
});
