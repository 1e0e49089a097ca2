import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsParts } from '../../shared/sms-parts.ts';
import { kannelAvailable, smsConfigOf, startKannel, type KannelRig } from '../support/kannel.ts';
import { freePort } from '../support/ports.ts';
import { expectErrorBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * A visitor's pass by text (issue #48), through a real Kannel with fakesmsc as the SMSC: the
 * visitor's phone receives one GSM-7 part with the code and a short link; the link opens the pass
 * as an image while the code opens the gate, and is dead after a revoke or `valid_until`. The
 * token is kept only as its hash.
 */
describe.skipIf(!process.env.TSARO_TEST_KANNEL)('a pass sent by text (real Kannel)', () => {
  let rig: KannelRig;
  let server: TestServer;
  let org: TestOrganization;
  let siteId: string;
  let origin: string;

  beforeAll(async () => {
    if (!kannelAvailable().available) throw new Error(kannelAvailable().reason);
    rig = await startKannel();
    const port = await freePort();
    server = await startTestServer({ deliverTexts: false, config: smsConfigOf(rig, port) });
    origin = new URL(server.baseUrl).origin;
    org = await server.createOrganization({ name: 'Shield Security' });
    const site = await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['North gate'] });
    siteId = site.body.site.site_id;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rig?.stop();
  });

  const newCode = async (overrides: Record<string, unknown> = {}, client = org.live) => {
    const res = await client.post('/access-codes', { visitor_name: 'Chioma Eze', visitor_phone: '0803 111 2222', purpose: 'Plumbing repair', site_id: siteId, entry_point: 'North gate', ...overrides });
    expect(res.status).toBe(201);
    return res.body.access_code as { code_id: string; code: string; valid_until: string };
  };
  /** The link the visitor's phone received last, as fakesmsc has it. */
  const sendAndReceive = async (code: { code_id: string; code: string }) => {
    const sent = await org.live.post(`/access-codes/${code.code_id}/send`, {});
    expect(sent.status).toBe(202);
    expect(await server.running.deliverTexts()).toBe(1);
    const ofCode = () => rig.received().find((text) => text.text.endsWith(` Code ${code.code}`));
    await expect.poll(ofCode, { timeout: 15_000 }).toBeDefined();
    return { sent: sent.body, text: ofCode()! };
  };
  const linkIn = (text: string) => text.match(/(http\S+\/p\/[A-Za-z0-9_-]{22})/)![1]!;

  it("the visitor's phone gets one part with the code and a link that opens the pass; the token is kept only as its hash", async () => {
    const code = await newCode({ visitor_name: 'Chioma <script>alert(1)</script> Eze' });
    const { sent, text } = await sendAndReceive(code);
    expect(sent).toEqual({ message_id: expect.stringMatching(/^sms_/), phone: '+2348031112222', link_expires_at: code.valid_until });
    expect(text.to.replace(/^\+/, '')).toBe('2348031112222');
    expect(text.text).toMatch(new RegExp(`^TSARO pass for North gate, Admiralty Estate from \\d{1,2} \\w{3} \\d\\d:\\d\\d: ${origin}/p/[A-Za-z0-9_-]{22} Code ${code.code}$`));
    expect(smsParts(text.text)).toMatchObject({ encoding: 'GSM-7', parts: 1 });

    const link = linkIn(text.text);
    const pass = await fetch(link);
    expect(pass.status).toBe(200);
    expect(pass.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(pass.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(pass.headers.get('cache-control')).toBe('no-store');
    const svg = await pass.text();
    expect(svg).toContain(code.code);
    expect(svg).toContain('Shield Security · VISITOR PASS');
    expect(svg).toContain('At North gate, Admiralty Estate');
    expect(svg).toContain('Purpose: Plumbing repair');
    // The visitor's name is text in the image, never markup.
    expect(svg).not.toContain('<script');
    expect(svg).toContain('Chioma &#60;script&#62;alert(1)&#60;/…');

    // Only the hash is stored: not in the pass links, not in the text as listed or stored.
    const token = link.slice(link.lastIndexOf('/') + 1);
    const db = server.running.database.db;
    const links = await db.selectFrom('pass_links').selectAll().where('code_id', '=', code.code_id).execute();
    expect(links.map((row) => row.token_hash)).toEqual([createHash('sha256').update(token).digest('hex')]);
    const stored = await db.selectFrom('text_messages').selectAll().where('message_id', '=', sent.message_id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored.link_sealed).toBeNull();
    const listed = (await org.live.get(`/messages?status=sent&limit=100`)).body.results.concat((await org.live.get(`/messages?status=delivered&limit=100`)).body.results) as any[];
    const mine = listed.find((message) => message.message_id === sent.message_id);
    expect(mine.reason).toBe('visitor_pass');
    expect(mine.body).toBe(text.text.replace(token, '…'));
    // Not listed to a caller who may not read visits.
    const alarmsOnly = await org.keyWith(['incidents:read']);
    expect(((await alarmsOnly.get('/messages?limit=100')).body.results as any[]).some((message) => message.reason === 'visitor_pass')).toBe(false);
  });

  it('the link is dead once the code is revoked, and after valid_until; a token never made is a 404', async () => {
    const revoked = await newCode();
    const first = linkIn((await sendAndReceive(revoked)).text.text);
    expect((await fetch(first)).status).toBe(200);
    expect((await org.live.delete(`/access-codes/${revoked.code_id}`)).status).toBe(200);
    const dead = await fetch(first);
    expect(dead.status).toBe(410);
    expect(await dead.text()).toContain('no longer valid');

    const expiring = await newCode({ valid_until: new Date(server.clock.now().getTime() + 3_600_000).toISOString() });
    const second = linkIn((await sendAndReceive(expiring)).text.text);
    expect((await fetch(second)).status).toBe(200);
    server.clock.advance(3_601_000);
    try {
      expect((await fetch(second)).status).toBe(410);
      // Nor is an expired code sent again.
      expectErrorBody((await org.live.post(`/access-codes/${expiring.code_id}/send`, {})).body, 409, 'Access code is expired: its pass would not open the gate');
    } finally {
      server.clock.advance(-3_601_000);
    }
    expect((await fetch(`${origin}/p/${'A'.repeat(22)}`)).status).toBe(404);
    expect((await fetch(`${origin}/p/short`)).status).toBe(404);
  });

  it('refused with a reason: a sandbox code, a phone a text cannot reach, another organization\'s code, and past the hourly limit with Retry-After', async () => {
    const sandbox = await newCode({ site_id: undefined, entry_point: undefined }, org.sandbox);
    expectErrorBody((await org.sandbox.post(`/access-codes/${sandbox.code_id}/send`, {})).body, 409, 'A sandbox code is never texted: only a live code is sent to a phone');
    const landline = await newCode({ visitor_phone: '+234 1 280 0000' });
    expectErrorBody((await org.live.post(`/access-codes/${landline.code_id}/send`, {})).body, 409, expect.stringMatching(/^visitor_phone: .* is not a mobile number a text can reach$/));
    const other = await server.createOrganization({ name: 'Other Estates' });
    const code = await newCode();
    expect((await other.live.post(`/access-codes/${code.code_id}/send`, {})).status).toBe(404);

    for (let i = 0; i < 3; i++) expect((await org.live.post(`/access-codes/${code.code_id}/send`, {})).status).toBe(202);
    const fourth = await org.live.post(`/access-codes/${code.code_id}/send`, {});
    expectErrorBody(fourth.body, 429, expect.stringMatching(/^This pass was sent 3 times in the last hour, its limit; try again in \d+ min$/));
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    const before = rig.received().length;
    const sent = await server.running.deliverTexts();
    await rig.waitForReceived(before + sent);
  });
});
