import { describe, expect, it } from 'vitest';
import { joinConsole } from '../support/console.ts';
import { expectErrorBody, incidentBody, serverForSuite, type TestOrganization } from '../support/server.ts';

/**
 * Keys, people and webhook endpoints limited to sites (issue #34): an estate manager or a gate's
 * key reads and changes only its sites' codes, visits, kiosks, roll calls, incidents, texts and
 * events; another site's is a 404 (or "Code is for another site" at a gate), as another
 * organization's is. What names no site is put at the caller's site. The organization's people,
 * policies, audit log and adding sites are for those who reach every site.
 */
describe('keys, people and endpoints limited to sites', () => {
  const suite = serverForSuite();
  const visitor = { visitor_name: 'Chioma Eze', visitor_phone: '+2348031112222' };
  const ids = (body: { results: Record<string, unknown>[] }, field: string) => body.results.map((row) => row[field]);
  const kioskIdOf = (n: number) => `kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9${String(n).padStart(2, '0')}`;

  /** An organization with its default site and two estates, something at each, and a key limited to estate A. */
  async function company() {
    const org = await suite.server.createOrganization({ name: 'Shield Security' });
    const site = async (name: string) => {
      const res = await org.live.post('/sites', { name, entry_points: ['North gate'], call_list: [{ name: `${name} control`, phone: '0803 123 4567' }] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.site.site_id as string;
    };
    const a = await site('Admiralty Estate');
    const b = await site('Banana Island Estate');
    const made = await org.live.post('/api-keys', { name: 'Admiralty gate', scopes: ['incidents:read', 'incidents:write', 'access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'analytics:read', 'admin'], site_ids: [a] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.api_key.site_ids).toEqual([a]);
    const gateA = suite.server.client(made.body.secret);
    return { org, a, b, gateA, atEach: await somethingAtEach(org, a, b) };
  }

  /** A code, a visit, an incident and a kiosk at each site, and a code made before sites. */
  async function somethingAtEach(org: TestOrganization, a: string, b: string) {
    const at = async (siteId: string, n: number) => {
      const code = (await org.live.post('/access-codes', { ...visitor, site_id: siteId, max_uses: 5 })).body.access_code;
      const visit = (await org.live.post('/access-codes/validate', { code: code.code, site_id: siteId, entry_point: 'North gate' })).body;
      const incident = (await org.live.post('/incidents', incidentBody({ site_id: siteId }))).body.incident;
      const beat = await org.live.request('PUT', `/kiosks/${kioskIdOf(n)}/heartbeat`, {
        body: { entry_point: 'North gate', site_id: siteId, app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: suite.server.clock.now().toISOString() },
      });
      expect(beat.status).toBe(200);
      return { code, logId: visit.log_id as string, incident, kioskId: kioskIdOf(n) };
    };
    return { a: await at(a, 1), b: await at(b, 2), nowhere: (await org.live.post('/incidents', incidentBody())).body.incident };
  }

  it("a key limited to a site lists only that site's codes, visits, incidents, kiosks, sites and events", async () => {
    const { org, a, gateA, atEach } = await company();
    expect(ids((await gateA.get('/access-codes')).body, 'code_id')).toEqual([atEach.a.code.code_id]);
    expect(ids((await gateA.get('/access-logs')).body, 'log_id')).toEqual([atEach.a.logId]);
    expect(ids((await gateA.get('/incidents')).body, 'incident_id')).toEqual([atEach.a.incident.incident_id]);
    expect(ids((await gateA.get('/kiosks')).body, 'kiosk_id')).toEqual([atEach.a.kioskId]);
    expect(ids((await gateA.get('/sites')).body, 'site_id')).toEqual([a]);
    expect((await gateA.get('/access-logs/current-visitors')).body.visitors.map((visit: { log_id: string }) => visit.log_id)).toEqual([atEach.a.logId]);
    const events = (await gateA.get('/events?limit=100')).body.results as { data: { site_id: string } }[];
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((event) => event.data.site_id))).toEqual(new Set([a]));
    // A filter naming another site finds nothing, rather than widening the key.
    expect((await gateA.get(`/incidents?site_id=${atEach.b.incident.site_id}`)).body.results).toEqual([]);
    // The organization's own key still sees every site.
    expect((await org.live.get('/incidents')).body.totalResults).toBe(3);
    expect((await gateA.get('/access-codes/stats')).body.total_generated).toBe(1);
    expect((await gateA.get('/incidents/analytics')).body.total).toBe(1);
    expect((await gateA.get('/access-logs/stats')).body.currently_on_premises).toBe(1);
  });

  it('reports and who is on site take a site: the organization sees one estate, a limited key never another', async () => {
    const { org, a, b, gateA, atEach } = await company();
    expect((await org.live.get(`/incidents/analytics?site_id=${b}`)).body.total).toBe(1);
    expect((await org.live.get('/incidents/analytics')).body.total).toBe(3);
    expect((await org.live.get(`/access-codes/stats?site_id=${a}`)).body.total_generated).toBe(1);
    expect((await org.live.get(`/access-logs/stats?site_id=${b}`)).body.currently_on_premises).toBe(1);
    expect((await org.live.get(`/access-logs/current-visitors?site_id=${b}`)).body.visitors.map((visit: { log_id: string }) => visit.log_id)).toEqual([atEach.b.logId]);
    expect((await gateA.get(`/access-logs/current-visitors?site_id=${b}`)).body.count).toBe(0);
    expect((await gateA.get(`/incidents/analytics?site_id=${b}`)).body.total).toBe(0);
  });

  it("another site's code, visit, incident, kiosk and site are a 404 to it, as another organization's are", async () => {
    const { b, gateA, atEach } = await company();
    for (const path of [
      `/access-codes/${atEach.b.code.code_id}`,
      `/access-logs/${atEach.b.logId}`,
      `/incidents/${atEach.b.incident.incident_id}`,
      `/incidents/${atEach.nowhere.incident_id}`,
      `/kiosks/${atEach.b.kioskId}`,
      `/sites/${b}`,
      `/sites/${b}/entry-points`,
    ]) {
      expect((await gateA.get(path)).status, path).toBe(404);
    }
    expect((await gateA.post(`/incidents/${atEach.b.incident.incident_id}/cancel`, { reason: 'not ours' })).status).toBe(404);
    expect((await gateA.delete(`/access-codes/${atEach.b.code.code_id}`)).status).toBe(404);
    expect((await gateA.patch(`/sites/${b}`, { call_list: [] })).status).toBe(404);
    expect((await gateA.post(`/access-logs/${atEach.b.logId}/checkout`, {})).status).toBe(404);
    // Its own are there.
    expect((await gateA.get(`/incidents/${atEach.a.incident.incident_id}`)).status).toBe(200);
  });

  it("at a gate it refuses another site's code without spending a use, and what it makes names no site but is at its own", async () => {
    const { org, a, b, gateA, atEach } = await company();
    expect((await gateA.post('/access-codes/validate', { code: atEach.b.code.code })).body).toEqual({ valid: false, reason: 'Code is for another site' });
    expect((await org.live.get(`/access-codes/${atEach.b.code.code_id}`)).body.access_code.use_count).toBe(1);
    expect((await gateA.post('/access-codes/validate', { code: atEach.a.code.code })).body).toMatchObject({ valid: true });
    // Made without a site: at the key's.
    expect((await gateA.post('/access-codes', visitor)).body.access_code.site_id).toBe(a);
    expect((await gateA.post('/incidents', incidentBody())).body.incident.site_id).toBe(a);
    const walkIn = await gateA.post('/access-logs', { visitor_name: 'Courier', visitor_phone: '+2348035556666', entry_point: 'North gate' });
    expect(walkIn.status, JSON.stringify(walkIn.body)).toBe(201);
    expect(walkIn.body.access_log.site_id).toBe(a);
    // Naming another site is naming a site it does not know.
    expectErrorBody((await gateA.post('/access-codes', { ...visitor, site_id: b })).body, 400, `site_id: no site ${b} in this organization`);
    expectErrorBody((await gateA.post('/incidents', incidentBody({ site_id: b }))).body, 400, `site_id: no site ${b} in this organization`);
    // Its code feed (what its kiosk caches for offline) holds its site's codes only.
    const feed = (await gateA.get('/access-codes/changes?cursor=0')).body.codes as { site_id: string | null }[];
    expect(feed.length).toBeGreaterThan(0);
    expect(feed.every((code) => code.site_id === a)).toBe(true);
  });

  it('a roll call it takes is of its site; a roll call of every site is not its to read', async () => {
    const { org, a, gateA, atEach } = await company();
    const everywhere = (await org.live.post('/roll-calls', {})).body.roll_call;
    const taken = await gateA.post('/roll-calls', {});
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(taken.body.roll_call.site_id).toBe(a);
    expect(taken.body.roll_call.entries.map((entry: { log_id: string }) => entry.log_id)).toEqual([atEach.a.logId]);
    expect((await gateA.get(`/roll-calls/${everywhere.roll_call_id}`)).status).toBe(404);
    expect(ids((await gateA.get('/roll-calls')).body, 'roll_call_id')).toEqual([taken.body.roll_call.roll_call_id]);
  });

  it('a key limited to several sites names one for what names none, unless the default site is among them', async () => {
    const { org, a, b } = await company();
    const both = suite.server.client((await org.live.post('/api-keys', { name: 'Both estates', scopes: ['incidents:write', 'access_codes:write'], site_ids: [a, b] })).body.secret);
    expectErrorBody((await both.post('/access-codes', visitor)).body, 400, 'site_id: required, since you are limited to 2 sites; name one of them');
    expect((await both.post('/access-codes', { ...visitor, site_id: b })).body.access_code.site_id).toBe(b);
    expectErrorBody((await both.post('/incidents', incidentBody())).body, 400, 'site_id: required, since you are limited to 2 sites; name one of them');
  });

  it('the keys and endpoints it makes reach no further than it does; it sees only keys within its sites', async () => {
    const { org, a, b, gateA } = await company();
    const made = await gateA.post('/api-keys', { name: 'Reception tablet', scopes: ['access_codes:validate'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.api_key.site_ids).toEqual([a]);
    expectErrorBody((await gateA.post('/api-keys', { name: 'Wider', scopes: ['access_codes:validate'], site_ids: [b] })).body, 400, `site_ids: no active site ${b} in this organization within your sites`);
    const listed = ids((await gateA.get('/api-keys?limit=100')).body, 'key_id');
    expect(listed).toContain(made.body.api_key.key_id);
    // The organization's keys for every site are not its to see, roll or revoke.
    const orgKeys = ids((await org.live.get('/api-keys?limit=100')).body, 'key_id') as string[];
    const everySiteKey = orgKeys.find((id) => !listed.includes(id))!;
    expect(everySiteKey).toBeDefined();
    expect((await gateA.delete(`/api-keys/${everySiteKey}`)).status).toBe(404);
    expect((await gateA.post(`/api-keys/${everySiteKey}/roll`, {})).status).toBe(404);
    // The organization lists the keys that reach a site: limited to it, or to none.
    const reachingB = ids((await org.live.get(`/api-keys?limit=100&site_id=${b}`)).body, 'key_id');
    expect(reachingB).not.toContain(made.body.api_key.key_id);
    expect(reachingB).toContain(everySiteKey);
    expect(ids((await org.live.get(`/api-keys?limit=100&site_id=${a}`)).body, 'key_id')).toContain(made.body.api_key.key_id);
    // A key it rolls keeps its sites.
    const rolled = await gateA.post(`/api-keys/${made.body.api_key.key_id}/roll`, {});
    expect(rolled.body.api_key.site_ids).toEqual([a]);
    // Its endpoints (made in the sandbox, where loopback addresses are allowed here) are of its sites too.
    const sandboxA = suite.server.client((await org.sandbox.post('/api-keys', { name: 'Admiralty sandbox', scopes: ['incidents:read', 'admin'], site_ids: [a] })).body.secret);
    const endpoint = await sandboxA.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/tsaro', events: ['incident.*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect(endpoint.body.webhook_endpoint.site_ids).toEqual([a]);
    expect(ids((await org.sandbox.get('/webhook-endpoints')).body, 'endpoint_id')).toContain(endpoint.body.webhook_endpoint.endpoint_id);
    const orgEndpoint = (await org.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/all', events: ['incident.*'] })).body.webhook_endpoint.endpoint_id as string;
    expect((await sandboxA.get(`/webhook-endpoints/${orgEndpoint}`)).status).toBe(404);
    expect(ids((await sandboxA.get('/webhook-endpoints')).body, 'endpoint_id')).toEqual([endpoint.body.webhook_endpoint.endpoint_id]);
    expectErrorBody((await sandboxA.patch(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`, { site_ids: null })).body, 400, 'site_ids: you are limited to sites, so an endpoint you change is too: name its sites');
    expect((await sandboxA.patch(`/webhook-endpoints/${endpoint.body.webhook_endpoint.endpoint_id}`, { site_ids: [b] })).status).toBe(400);
  });

  it("the organization's people, policies, audit log and adding or archiving sites are for keys of every site", async () => {
    const { a, gateA } = await company();
    for (const [method, path, body] of [
      ['GET', '/audit-log', undefined],
      ['GET', '/visitor-policies', undefined],
      ['PATCH', '/visitor-policies', { auto_checkout_hours: 12 }],
      ['POST', '/sites', { name: 'Lekki Phase 1' }],
      ['POST', `/sites/${a}/archive`, {}],
    ] as const) {
      const res = await gateA.request(method, path, { body });
      expectErrorBody(res.body, 403, 'This API key is limited to one site; this needs a key for every site', `${method} ${path}`);
    }
    // Its own site's call list and gates it may change.
    expect((await gateA.patch(`/sites/${a}`, { call_list: [{ name: 'Estate control', phone: '0803 765 4321' }] })).status).toBe(200);
    expect((await gateA.post(`/sites/${a}/entry-points`, { name: 'South gate' })).status).toBe(201);
  });

  it("an endpoint limited to a site is sent only that site's events", async () => {
    const { org, a, b } = await company();
    const hooks: { site: string | null }[] = [];
    const receiver = await import('node:http').then(({ createServer }) =>
      createServer((req, res) => {
        let text = '';
        req.on('data', (chunk) => (text += chunk));
        req.on('end', () => {
          hooks.push({ site: (JSON.parse(text) as { data: { site_id: string | null } }).data.site_id });
          res.end('ok');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
      const limited = await org.sandbox.post('/webhook-endpoints', { url, events: ['incident.created'], site_ids: [a] });
      expect(limited.status, JSON.stringify(limited.body)).toBe(201);
      for (const siteId of [a, b, undefined]) expect((await org.sandbox.post('/incidents', incidentBody({ site_id: siteId }))).status).toBe(201);
      await suite.server.running.deliverWebhooks();
      await expect.poll(() => hooks.length, { timeout: 5_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hooks).toEqual([{ site: a }]);
    } finally {
      receiver.close();
    }
  });

  it('a person limited to a site sees only it in the console; their session says so, and the keys they make are limited to it', async () => {
    const { org, a, b, atEach } = await company();
    const manager = await joinConsole(suite.server, org.organizationId, 'admin', undefined, { siteIds: [a] });
    const session = (await manager.browser.get('/console/session')).body.session;
    expect(session.person.site_ids).toEqual([a]);
    expect(ids((await manager.browser.get('/incidents')).body, 'incident_id')).toEqual([atEach.a.incident.incident_id]);
    expect(ids((await manager.browser.get('/sites')).body, 'site_id')).toEqual([a]);
    expect((await manager.browser.get(`/incidents/${atEach.b.incident.incident_id}`)).status).toBe(404);
    expect((await manager.browser.get('/console/people')).status).toBe(403);
    expectErrorBody((await manager.browser.get('/audit-log')).body, 403, 'Your role (admin) is limited to one site; this needs a role for every site');
    const key = await manager.browser.post('/api-keys', { name: 'Admiralty kiosk', scopes: ['access_codes:validate'] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.body.api_key.site_ids).toEqual([a]);
    expect((await manager.browser.post('/api-keys', { name: 'Banana kiosk', scopes: ['access_codes:validate'], site_ids: [b] })).status).toBe(400);
  });

  it("an owner or admin of every site limits a person's role to sites, never an owner's; a reset link made before the change no longer works", async () => {
    const { org, a, b } = await company();
    const owner = await joinConsole(suite.server, org.organizationId, 'owner');
    const invited = await owner.browser.post('/console/invitations', { email: 'estate.manager@shield.example', role: 'operator', site_ids: [a] });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.invitation.site_ids).toEqual([a]);
    expectErrorBody((await owner.browser.post('/console/invitations', { email: 'o@shield.example', role: 'owner', site_ids: [a] })).body, 400, 'site_ids: an owner reaches every site; limit an admin, operator, developer or viewer instead');
    expectErrorBody((await owner.browser.post('/console/invitations', { email: 'x@shield.example', role: 'viewer', site_ids: ['site_nowhere'] })).body, 400, 'site_ids: no active site site_nowhere in this organization');

    const operator = await joinConsole(suite.server, org.organizationId, 'operator', undefined, { siteIds: [a] });
    const reset = await owner.browser.post(`/console/people/${operator.personId}/reset`, {});
    expect(reset.status).toBe(201);
    const widened = await owner.browser.patch(`/console/people/${operator.personId}`, { role: 'operator', site_ids: [a, b] });
    expect(widened.status, JSON.stringify(widened.body)).toBe(200);
    expect(widened.body.person.site_ids).toEqual([a, b]);
    expect((await operator.browser.get('/sites')).body.results.map((site: { site_id: string }) => site.site_id).sort()).toEqual([a, b].sort());
    // Left out: as they are. Made owner: every site.
    expect((await owner.browser.patch(`/console/people/${operator.personId}`, { role: 'viewer' })).body.person.site_ids).toEqual([a, b]);
    expect((await owner.browser.patch(`/console/people/${operator.personId}`, { role: 'owner' })).body.person.site_ids).toBeNull();
    const token = (reset.body.invite_url as string).split('/').pop();
    expect((await owner.browser.get(`/console/invitations/${token}`)).status).toBe(404);
  });
});

