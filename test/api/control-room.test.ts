import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinConsole } from '../support/console.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

// The control room's API additions (issue #28): the active board, acknowledging an escalated
// incident, incident analytics.
describe('the control room: active incidents and acknowledgement', () => {
  let server: TestServer;
  let org: TestOrganization;
  let other: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300' } });
    org = await server.createOrganization({ name: 'Ada Estates' });
    other = await server.createOrganization({ name: 'Bola Towers' });
  });
  afterAll(() => server.stop());

  const report = async (client = org.live, overrides: Record<string, unknown> = {}) =>
    (await client.post('/incidents', incidentBody(overrides))).body.incident.incident_id as string;
  /** No responder anywhere: past the dispatch window a live incident escalates, then gives up. */
  const escalate = async (to: 'escalated' | 'unresponsive') => {
    server.clock.advance(60_000);
    await server.running.advanceDispatch();
    if (to === 'unresponsive') {
      server.clock.advance(300_000);
      await server.running.advanceDispatch();
    }
  };

  it('lists every active status with status=active, and only those; a single status still lists only itself', async () => {
    const escalated = await report();
    await escalate('escalated');
    const dispatching = await report();
    const cancelled = await report();
    expect((await org.live.post(`/incidents/${cancelled}/cancel`, {})).status).toBe(200);
    await report(other.live);

    const active = await org.live.get('/incidents?status=active&limit=100');
    expect(active.status).toBe(200);
    const ids = active.body.results.map((incident: { incident_id: string }) => incident.incident_id);
    expect(ids).toEqual([dispatching, escalated]);
    expect(active.body.totalResults).toBe(2);
    expect((await org.live.get('/incidents?status=cancelled')).body.results.map((i: { incident_id: string }) => i.incident_id)).toEqual([cancelled]);
    expect((await org.live.get('/incidents?status=escalated')).body.results.map((i: { incident_id: string }) => i.incident_id)).toEqual([escalated]);
    const wrong = await org.live.get('/incidents?status=busy');
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^status/);
  });

  it('acknowledging an escalated incident names the key, bumps the version and writes incident.updated; the status stays', async () => {
    const id = await report();
    await escalate('escalated');
    const before = (await org.live.get(`/incidents/${id}`)).body.incident;
    expect(before.status).toBe('escalated');
    server.clock.advance(2_000);
    const acknowledged = await org.live.post(`/incidents/${id}/acknowledge`, {});
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.incident).toMatchObject({ incident_id: id, status: 'escalated', version: before.version + 1 });
    expect(acknowledged.body.incident.timeline.at(-1)).toEqual({
      status: 'escalated',
      event: 'acknowledged',
      message: 'Acknowledged by API key "Owner key (live)"',
      timestamp: server.clock.now().toISOString(),
    });
    const events = (await org.live.get(`/events?resource_id=${id}`)).body.results;
    expect(events.map((event: { type: string }) => event.type)).toContain('incident.updated');
    const updated = events.find((event: { type: string }) => event.type === 'incident.updated');
    expect(updated.data).toMatchObject({ version: before.version + 1, status: 'escalated' });
  });

  it('acknowledges an unresponsive incident too, and a person is named by their email', async () => {
    const operator = await joinConsole(server, org.organizationId, 'operator');
    const id = await report();
    await escalate('unresponsive');
    const acknowledged = await operator.browser.post(`/incidents/${id}/acknowledge`);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.incident.timeline.at(-1)).toMatchObject({ status: 'unresponsive', event: 'acknowledged', message: `Acknowledged by ${operator.email}` });
    const viewer = await joinConsole(server, org.organizationId, 'viewer');
    expect((await viewer.browser.post(`/incidents/${id}/acknowledge`)).status).toBe(403);
  });

  it('a person who cancels in the console is named in the timeline; a key stays "partner", as the reference has it (issue #48)', async () => {
    const operator = await joinConsole(server, org.organizationId, 'operator', 'ada@adaestates.ng', { name: 'Ada Obi' });
    const byPerson = await report();
    const cancelled = await operator.browser.post(`/incidents/${byPerson}/cancel`, { reason: 'Resident is safe' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.incident.timeline.at(-1)).toMatchObject({ status: 'cancelled', event: 'cancelled', message: 'Cancelled by Ada Obi: Resident is safe' });
    const silent = await report();
    expect((await operator.browser.post(`/incidents/${silent}/cancel`, {})).body.incident.timeline.at(-1).message).toBe('Cancelled by Ada Obi');
    const byKey = await report();
    expect((await org.live.post(`/incidents/${byKey}/cancel`, { reason: 'Test' })).body.incident.timeline.at(-1).message).toBe('Cancelled by partner: Test');
  });

  it("a person's note names them in the timeline; a key's note stays as written, and the note_added event carries the note as written (issue #48)", async () => {
    const operator = await joinConsole(server, org.organizationId, 'operator', 'bola@adaestates.ng', { name: 'Bola Ade' });
    const id = await report();
    const noted = await operator.browser.post(`/incidents/${id}/notes`, { message: 'Called the resident' });
    expect(noted.status).toBe(200);
    expect(noted.body.incident.timeline.at(-1)).toMatchObject({ event: 'note', message: 'Bola Ade: Called the resident' });
    expect((await org.live.post(`/incidents/${id}/notes`, { message: 'From the partner' })).body.incident.timeline.at(-1).message).toBe('From the partner');
    const events = (await org.live.get(`/events?resource_id=${id}`)).body.results as { type: string; data: { note?: { message: string } } }[];
    expect(events.filter((event) => event.type === 'incident.note_added').map((event) => event.data.note?.message).sort()).toEqual(['Called the resident', 'From the partner']);
  });

  it('answers 409 naming the status of an incident that is not escalated or unresponsive, and changes nothing', async () => {
    const id = await report();
    const refused = await org.live.post(`/incidents/${id}/acknowledge`, {});
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 409, message: 'Incident is dispatching: only an escalated or unresponsive incident is acknowledged' });
    await org.live.post(`/incidents/${id}/cancel`, {});
    expect((await org.live.post(`/incidents/${id}/acknowledge`, {})).body.message).toContain('Incident is cancelled');
    expect((await org.live.get(`/incidents/${id}`)).body.incident.timeline.map((e: { event: string }) => e.event)).not.toContain('acknowledged');
  });

  it('is a 404 for another organization or the other environment, and a 403 without incidents:write', async () => {
    const id = await report();
    await escalate('escalated');
    expect((await other.live.post(`/incidents/${id}/acknowledge`, {})).body).toEqual({ code: 404, message: 'Incident not found' });
    expect((await org.sandbox.post(`/incidents/${id}/acknowledge`, {})).status).toBe(404);
    const reader = await org.keyWith(['incidents:read']);
    const forbidden = await reader.post(`/incidents/${id}/acknowledge`, {});
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('incidents:write');
    expect((await org.live.get(`/incidents/${id}`)).body.incident.timeline.at(-1).event).toBe('escalated');
  });

  it('replays a retried acknowledgement with the same Idempotency-Key instead of acknowledging twice', async () => {
    const id = await report();
    await escalate('escalated');
    const headers = { 'Idempotency-Key': `ack-${id}` };
    const first = await org.live.post(`/incidents/${id}/acknowledge`, {}, { headers });
    const again = await org.live.post(`/incidents/${id}/acknowledge`, {}, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const timeline = (await org.live.get(`/incidents/${id}`)).body.incident.timeline;
    expect(timeline.filter((e: { event: string }) => e.event === 'acknowledged')).toHaveLength(1);
  });
});

describe('the control room: incident analytics', () => {
  let server: TestServer;
  let org: TestOrganization;
  let other: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { SANDBOX_SPEED: '1' } });
    org = await server.createOrganization({ name: 'Ada Estates' });
    other = await server.createOrganization({ name: 'Bola Towers' });
  });
  afterAll(() => server.stop());

  const at = async (seconds: number) => {
    server.clock.set(new Date(Date.parse('2026-11-22T10:00:00.000Z') + seconds * 1000).toISOString());
    await server.running.advanceDispatch();
  };

  it('counts the window’s incidents by category, status and severity, with the median and p90 seconds to assign and to arrive', async () => {
    // Sandbox: the simulated network takes one step per sweep once it is due (assigned 5 s
    // after the report, responding 10 s later, on scene 60 s after that), at the sweep's time.
    server.clock.set('2026-11-21T09:00:00.000Z');
    await org.sandbox.post('/incidents', incidentBody({ category: 'medical' })); // the day before: outside the window
    await at(0);
    const first = (await org.sandbox.post('/incidents', incidentBody())).body.incident.incident_id;
    await at(3);
    const second = (await org.sandbox.post('/incidents', incidentBody({ category: 'vehicle', severity: 'high' }))).body.incident.incident_id;
    await at(4);
    const third = (await org.sandbox.post('/incidents', incidentBody({ category: 'vehicle', severity: 'low' }))).body.incident.incident_id;
    await org.sandbox.post(`/incidents/${third}/cancel`, {});
    await at(20); // first and second assigned
    await at(100); // both responding
    await at(200); // both on scene
    await org.live.post('/incidents', incidentBody()); // the other environment
    await other.sandbox.post('/incidents', incidentBody()); // another organization

    const sla = async (id: string) => (await org.sandbox.get(`/incidents/${id}`)).body.incident.sla;
    expect(await sla(first)).toMatchObject({ seconds_to_assign: 20 });
    expect(await sla(second)).toMatchObject({ seconds_to_assign: 17 });

    const response = await org.sandbox.get('/incidents/analytics?from_date=2026-11-22&to_date=2026-11-22');
    expect(response.status).toBe(200);
    const figures = {
      from_date: '2026-11-22T00:00:00.000Z',
      to_date: '2026-11-23T00:00:00.000Z',
      total: 3,
      by_category: { sos: 1, vehicle: 2, location_threat: 0, medical: 0 },
      by_status: { created: 0, dispatching: 0, assigned: 0, responding: 0, on_scene: 2, escalated: 0, unresponsive: 0, resolved: 0, cancelled: 1 },
      by_severity: { low: 1, medium: 0, high: 1, critical: 1 },
      seconds_to_assign: { count: 2, median: 19, p90: 20, approximate: false }, // 17 and 20: 18.5 rounds to 19; 17 + 0.9 x 3 = 19.7
      seconds_to_arrive: { count: 2, median: 199, p90: 200, approximate: false },
    };
    expect(response.body).toEqual(figures);
    // The same figures once the settled incident (the cancelled one) is in the tallies.
    expect(await server.running.foldTallies()).toBeGreaterThan(0);
    expect((await org.sandbox.get('/incidents/analytics?from_date=2026-11-22&to_date=2026-11-22')).body).toEqual(figures);
    const always = await org.sandbox.get('/incidents/analytics');
    expect(always.body).toMatchObject({ from_date: null, to_date: null, total: 4, by_category: { medical: 1 } });
    const empty = await org.sandbox.get('/incidents/analytics?from_date=2020-01-01&to_date=2020-01-02');
    expect(empty.body).toMatchObject({ total: 0, seconds_to_assign: { count: 0, median: null, p90: null } });
  });

  it('is not taken for an incident id, needs analytics:read, and says which date is wrong', async () => {
    const incidentsOnly = await org.keyWith(['incidents:read', 'incidents:write']);
    const refused = await incidentsOnly.get('/incidents/analytics');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('analytics:read');
    const analyst = await org.keyWith(['analytics:read']);
    expect((await analyst.get('/incidents/analytics')).body).toMatchObject({ total: 1 });
    const bad = await analyst.get('/incidents/analytics?from_date=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^from_date/);
  });
});

describe('the control room: revoking many access codes at once', () => {
  let server: TestServer;
  let org: TestOrganization;
  let other: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Ada Estates' });
    other = await server.createOrganization({ name: 'Bola Towers' });
  });
  afterAll(() => server.stop());

  const newCode = async (client = org.live) =>
    (await client.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing' })).body.access_code as { code_id: string; code: string };
  const statusOf = async (codeId: string, client = org.live) => (await client.get(`/access-codes/${codeId}`)).body.access_code.status;

  it('revokes every code named, each with its event and kiosk feed change, in the order asked', async () => {
    const [a, b, kept] = [await newCode(), await newCode(), await newCode()];
    const cursor = (await org.live.get('/access-codes/changes?cursor=0&limit=1000')).body.next_cursor;
    const response = await org.live.post('/access-codes/bulk-revoke', { code_ids: [b.code_id, a.code_id, b.code_id], reason: 'Party cancelled' });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(2);
    expect(response.body.access_codes.map((code: { code_id: string }) => code.code_id)).toEqual([b.code_id, a.code_id]);
    expect(response.body.access_codes[0]).toMatchObject({ status: 'revoked', revoke_reason: 'Party cancelled' });
    expect(await statusOf(kept.code_id)).toBe('active');

    const events = (await org.live.get('/events?type=access_code.revoked&limit=100')).body.results;
    expect(events.map((event: { data: { code_id: string } }) => event.data.code_id).sort()).toEqual([a.code_id, b.code_id].sort());
    const feed = (await org.live.get(`/access-codes/changes?cursor=${cursor}`)).body;
    expect(feed.codes.map((change: { code_id: string; status: string }) => [change.code_id, change.status]).sort()).toEqual(
      [[a.code_id, 'revoked'], [b.code_id, 'revoked']].sort(),
    );
    const validated = await org.live.post('/access-codes/validate', { code: a.code });
    expect(validated.body).toMatchObject({ valid: false, reason: 'Code has been revoked' });
  });

  it('revokes none when one is not active: a 409 naming it and its status', async () => {
    const [active, revoked] = [await newCode(), await newCode()];
    await org.live.delete(`/access-codes/${revoked.code_id}`, { body: {} });
    const refused = await org.live.post('/access-codes/bulk-revoke', { code_ids: [active.code_id, revoked.code_id] });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 409, message: `Access codes not active, none revoked: ${revoked.code_id} (revoked)` });
    expect(await statusOf(active.code_id)).toBe('active');
  });

  it('revokes none when one is another organization’s or environment’s: a 404 naming it', async () => {
    const [mine, theirs, sandbox] = [await newCode(), await newCode(other.live), await newCode(org.sandbox)];
    const refused = await org.live.post('/access-codes/bulk-revoke', { code_ids: [mine.code_id, theirs.code_id, sandbox.code_id] });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe(`Access codes not found: ${theirs.code_id}, ${sandbox.code_id}`);
    expect(await statusOf(mine.code_id)).toBe('active');
    expect(await statusOf(theirs.code_id, other.live)).toBe('active');
  });

  it('takes at most 100 codes and needs access_codes:write', async () => {
    const tooMany = await org.live.post('/access-codes/bulk-revoke', { code_ids: Array.from({ length: 101 }, (_, i) => `code_${i}`) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/^code_ids/);
    expect((await org.live.post('/access-codes/bulk-revoke', { code_ids: [] })).status).toBe(400);
    const code = await newCode();
    const reader = await org.keyWith(['access_codes:read']);
    const forbidden = await reader.post('/access-codes/bulk-revoke', { code_ids: [code.code_id] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('access_codes:write');
    expect(await statusOf(code.code_id)).toBe('active');
  });
});
