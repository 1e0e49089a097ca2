import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { proveKioskKey, rawPublicKeyOf } from '../../shared/node/kiosk-certificate.ts';
import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { partnerFeatures } from '../../server/partner-api.ts';
import { joinConsole } from '../support/console.ts';
import { expectErrorBody, incidentBody, serverForSuite, type ApiClient, type ApiResponse, type TestOrganization } from '../support/server.ts';

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

  const heartbeat = (overrides: Record<string, unknown> = {}) => ({
    entry_point: 'North gate', app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: suite.server.clock.now().toISOString(), ...overrides,
  });

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
      const beat = await org.live.request('PUT', `/kiosks/${kioskIdOf(n)}/heartbeat`, { body: heartbeat({ site_id: siteId }) });
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
    const { org, b, gateA, atEach } = await company();
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
    expect((await gateA.patch(`/access-logs/${atEach.b.logId}/checkout`, {})).status).toBe(404);
    expect((await org.live.get(`/access-logs/${atEach.b.logId}`)).body.access_log.status).toBe('checked_in');
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
  it("a heartbeat, single or replayed, never moves, wakes or reports for another site's kiosk (issue #46)", async () => {
    const { org, b, gateA, atEach } = await company();
    const kioskB = atEach.b.kioskId;
    const before = (await org.live.get(`/kiosks/${kioskB}`)).body.kiosk;
    expectErrorBody((await gateA.request('PUT', `/kiosks/${kioskB}/heartbeat`, { body: heartbeat({ queued_operations: 9 }) })).body, 404, 'Kiosk not found');
    const replay = await gateA.post('/kiosk/replay', { ops: [{ operation: 'heartbeat', idempotency_key: 'beat-b-1', kiosk_id: kioskB, body: heartbeat({ queued_operations: 9 }) }] });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.results[0]).toMatchObject({ status: 404, replayed: false, body: { code: 404 } });
    const after = (await org.live.get(`/kiosks/${kioskB}`)).body.kiosk;
    expect(after).toEqual(before);
    expect(after.site_id).toBe(b);
    // Not its to rename or retire either; its own kiosk still beats.
    expect((await gateA.patch(`/kiosks/${kioskB}`, { name: 'Ours now' })).status).toBe(404);
    expect((await gateA.delete(`/kiosks/${kioskB}`)).status).toBe(404);
    expect((await gateA.request('PUT', `/kiosks/${atEach.a.kioskId}/heartbeat`, { body: heartbeat() })).status).toBe(200);
    // A new kiosk id is a new kiosk, at the key's own site.
    const fresh = await gateA.request('PUT', `/kiosks/${kioskIdOf(9)}/heartbeat`, { body: heartbeat() });
    expect(fresh.status).toBe(200);
    expect(fresh.body.kiosk.site_id).not.toBe(b);
  });

  it("an Idempotency-Key answered to another site's caller is never replayed to it, and its request does not run (issue #46)", async () => {
    const { org, a, b } = await company();
    const keyOf = async (siteId: string) =>
      suite.server.client((await org.live.post('/api-keys', { name: `Gate ${siteId}`, scopes: ['incidents:read', 'incidents:write', 'access_codes:write', 'access_codes:read', 'logs:read'], site_ids: [siteId] })).body.secret);
    const [atA, atB] = [await keyOf(a), await keyOf(b)];
    const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
    const refused = (res: ApiResponse, what: string) => {
      expectErrorBody(res.body, 409, 'Idempotency-Key was used by a caller who reaches sites you do not: its answer is replayed only to a caller who reaches every site it was made for, and the request does not run again', what);
      expect(res.headers.get('idempotent-replayed'), what).toBeNull();
      expect(JSON.stringify(res.body), what).not.toContain('Chioma');
    };
    const send = (client: ApiClient, path: string, body: unknown, key: string) => client.request('POST', path, { body, ...withKey(key) });

    // A code (its pass and its visitor), an SOS, a walk-in: made at B, refused to A with the same body and key.
    const made = {
      code: await send(atB, '/access-codes', visitor, 'seam-code'),
      sos: await send(atB, '/incidents', incidentBody({ subject: { name: 'Chioma Eze', phone: '+2348031112222' } }), 'seam-sos'),
      walkIn: await send(atB, '/access-logs', { ...visitor, entry_point: 'North gate' }, 'seam-walk-in'),
    };
    for (const res of Object.values(made)) expect(res.status, JSON.stringify(res.body)).toBe(201);
    refused(await send(atA, '/access-codes', visitor, 'seam-code'), 'code');
    refused(await send(atA, '/incidents', incidentBody({ subject: { name: 'Chioma Eze', phone: '+2348031112222' } }), 'seam-sos'), 'SOS');
    refused(await send(atA, '/access-logs', { ...visitor, entry_point: 'North gate' }, 'seam-walk-in'), 'walk-in');
    // Nothing ran for A: it has made nothing.
    expect((await atA.get('/access-codes')).body.totalResults).toBe(1);
    expect((await atA.get('/incidents')).body.totalResults).toBe(1);
    expect((await atA.get('/access-logs')).body.totalResults).toBe(1);

    // The kiosk's batch: the same record per item, and a checkout naming B's walk-in by its key finds nothing.
    const replayed = await atB.post('/kiosk/replay', { ops: [{ operation: 'walk_in', idempotency_key: 'seam-batch-walk-in', body: { ...visitor, entry_point: 'North gate' } }] });
    expect(replayed.body.results[0].status).toBe(201);
    const batch = await atA.post('/kiosk/replay', {
      ops: [
        { operation: 'walk_in', idempotency_key: 'seam-batch-walk-in', body: { ...visitor, entry_point: 'North gate' } },
        { operation: 'walk_in', idempotency_key: 'seam-walk-in', body: { ...visitor, entry_point: 'North gate' } },
        { operation: 'checkout', idempotency_key: 'seam-batch-checkout', log_of: 'seam-batch-walk-in' },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((item: { status: number }) => item.status)).toEqual([409, 409, 424]);
    expect(JSON.stringify(batch.body)).not.toContain('Chioma');
    expect((await org.live.get(`/access-logs/${replayed.body.results[0].body.access_log.log_id}`)).body.access_log.status).toBe('checked_in');

    // Whoever reaches every site it was made for replays it: its maker, and the organization's own key.
    const again = await send(atB, '/access-codes', visitor, 'seam-code');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.access_code.code_id).toBe(made.code.body.access_code.code_id);
    const byOrganization = await send(org.live, '/access-codes', visitor, 'seam-code');
    expect(byOrganization.headers.get('idempotent-replayed')).toBe('true');
    // The organization's own answer is for those who reach every site.
    expect((await send(org.live, '/access-codes', visitor, 'seam-org-code')).status).toBe(201);
    refused(await send(atB, '/access-codes', visitor, 'seam-org-code'), "the organization's code");
  });

  describe.each([
    ['a key holding every scope', 'key'],
    ['an admin', 'person'],
  ] as const)("every route naming a resource, given another site's, answers 404 as another organization's would: %s limited to one site", (_who, kind) => {
    it('and changes nothing (issue #46)', async () => {
      const org = await suite.server.createOrganization({ name: 'Shield Security' });
      const siteOf = async (name: string) => (await org.live.post('/sites', { name, entry_points: ['North gate'] })).body.site.site_id as string;
      const [a, b] = [await siteOf('Admiralty Estate'), await siteOf('Banana Island Estate')];
      // Everything at estate B, in the sandbox (where loopback endpoints are allowed here).
      const sandbox = org.sandbox;
      const code = (await sandbox.post('/access-codes', { ...visitor, site_id: b, max_uses: 5 })).body.access_code;
      const logId = (await sandbox.post('/access-codes/validate', { code: code.code, site_id: b })).body.log_id as string;
      const incident = (await sandbox.post('/incidents', incidentBody({ site_id: b }))).body.incident;
      const kioskId = kioskIdOf(7);
      expect((await sandbox.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body: heartbeat({ site_id: b }) })).status).toBe(200);
      const rollCall = (await sandbox.post('/roll-calls', { site_id: b })).body.roll_call;
      const endpoint = (await sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/b', events: ['incident.*'], site_ids: [b] })).body.webhook_endpoint;
      const keyB = (await sandbox.post('/api-keys', { name: 'Banana gate', scopes: ['access_codes:validate'], site_ids: [b] })).body.api_key;
      const eventId = (await sandbox.get(`/events?resource_id=${incident.incident_id}`)).body.results[0].id as string;
      const gateB = (await org.live.get(`/sites/${b}/entry-points`)).body.results[0].entry_point_id as string;
      for (const made of [code, logId, incident, rollCall, endpoint, keyB, eventId, gateB]) expect(made).toBeDefined();
      const ids: Record<string, string> = {
        incidentId: incident.incident_id, codeId: code.code_id, logId, kioskId, rollCallId: rollCall.roll_call_id, siteId: b,
        endpointId: endpoint.endpoint_id, keyId: keyB.key_id, eventId, entryPointId: gateB,
      };
      /** Bodies that pass validation, so the route reaches the resource. */
      const bodies: Record<string, unknown> = {
        addIncidentNote: { message: 'Seen from the other estate' },
        reportFromGuard: { report: 'false_alarm' },
        kioskHeartbeat: heartbeat(),
        certifyKiosk: (() => {
          const pair = generateKeyPairSync('ed25519');
          const publicKey = rawPublicKeyOf(pair.publicKey);
          return { public_key: publicKey, proof: proveKioskKey(pair.privateKey, kioskId, publicKey) };
        })(),
        renameKiosk: { name: 'Ours now' },
        markRollCallEntry: { accounted_for: true },
        updateSite: { call_list: [] },
        createEntryPoint: { name: 'South gate' },
        updateEntryPoint: { name: 'Ours now' },
        updateWebhookEndpoint: { description: 'ours now' },
        resendWebhookEvent: { event_id: eventId },
        sendTestWebhookEvent: { type: 'incident.created' },
        resendFailedWebhookEvents: { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
      };

      let send: (method: string, path: string, body: unknown) => Promise<ApiResponse>;
      if (kind === 'key') {
        const key = suite.server.client((await sandbox.post('/api-keys', { name: 'Admiralty', scopes: [...SCOPES], site_ids: [a] })).body.secret);
        send = (method, path, body) => key.request(method, path, { body });
      } else {
        const { browser } = await joinConsole(suite.server, org.organizationId, 'admin', undefined, { siteIds: [a] });
        browser.environment = 'sandbox';
        send = (method, path, body) => browser.request(method, path, body);
      }
      type Route = { method: string; path: string; access: string; operationId: string; guardOptions?: { everySite?: boolean } };
      const routes = partnerFeatures
        .flatMap((feature) => feature.routes as unknown as Route[])
        .filter((route) => route.path.includes('/:') && !['public', 'responder', 'person'].includes(route.access));
      expect(routes.length).toBeGreaterThan(30);
      const wrong: string[] = [];
      for (const route of routes) {
        const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
          if (!ids[name]) wrong.push(`${route.operationId}: no resource of another site for :${name}; add one to this test`);
          return ids[name] ?? 'missing';
        });
        const body = route.method === 'get' ? undefined : (bodies[route.operationId] ?? {});
        const res = await send(route.method.toUpperCase(), path, body);
        const expected = route.guardOptions?.everySite ? 403 : 404;
        if (res.status !== expected) wrong.push(`${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${res.status} ${JSON.stringify(res.body).slice(0, 160)}, expected ${expected}`);
      }
      expect(wrong).toEqual([]);

      // Estate B's things are as they were.
      expect((await sandbox.get(`/kiosks/${kioskId}`)).body.kiosk).toMatchObject({ site_id: b, name: null, status: 'online' });
      expect((await sandbox.get(`/incidents/${incident.incident_id}`)).body.incident.status).toBe(incident.status);
      expect((await sandbox.get(`/access-codes/${code.code_id}`)).body.access_code.status).toBe('active');
      expect((await sandbox.get(`/access-logs/${logId}`)).body.access_log.status).toBe('checked_in');
      expect((await sandbox.get(`/roll-calls/${rollCall.roll_call_id}`)).body.roll_call.entries.every((entry: { accounted_for: boolean }) => !entry.accounted_for)).toBe(true);
      expect((await sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}`)).body.webhook_endpoint).toMatchObject({ description: null, status: 'enabled' });
      expect((await sandbox.get(`/webhook-endpoints/${endpoint.endpoint_id}/deliveries`)).body.totalResults).toBe(0);
      expect((await sandbox.get('/api-keys?limit=100')).body.results.find((key: { key_id: string }) => key.key_id === keyB.key_id).revoked_at).toBeNull();
      expect((await org.live.get(`/sites/${b}`)).body.site.entry_points).toEqual([expect.objectContaining({ entry_point_id: gateB, name: 'North gate', former_names: [], retired_at: null })]);
    });
  });
});
