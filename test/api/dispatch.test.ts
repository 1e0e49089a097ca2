import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config.ts';
import { createOrganization } from '../../server/organizations/service.ts';
import { addResponder } from '../../server/responders/service.ts';
import { startServer } from '../../server/server.ts';
import { createMigratedDatabase } from '../support/database.ts';
import { ApiClient, incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { TEST_SECRETS_KEY } from '../support/secrets.ts';

/** Lekki, Lagos: where the incidents in these tests happen. */
const LEKKI = { latitude: 6.4474, longitude: 3.4739 };

describe('dispatch: the responder network', () => {
  let server: TestServer;
  let org: TestOrganization;
  let responderBase: string;
  beforeAll(async () => {
    server = await startTestServer({ config: { DISPATCH_WINDOW_S: '60', ESCALATION_WINDOW_S: '300', DISPATCH_RADIUS_KM: '15', DISPATCH_OFFER_COUNT: '3' } });
    org = await server.createOrganization();
    responderBase = server.baseUrl.replace('/v1/external', '/v1/responder');
  });
  afterAll(() => server.stop());

  const responderCall = async (token: string, path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(responderBase + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** A responder `km` east of Lekki (roughly: 1° of longitude is about 110 km here). */
  const responderAt = async (name: string, kmEast: number, environment: 'live' | 'sandbox' = 'live') =>
    addResponder(server.running.database.db, server.clock, {
      name,
      phone: `+23480${Math.floor(Math.random() * 1e8).toString().padStart(8, '0')}`,
      latitude: LEKKI.latitude,
      longitude: LEKKI.longitude + kmEast / 110.5,
      environment,
    });

  const report = (overrides: Record<string, unknown> = {}) =>
    incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way, Lekki' }, ...overrides });

  const offersOf = async (token: string) => (await responderCall(token, '/offers?wait=5')).body.offers as any[];
  const incident = async (id: string, client = org.live) => (await client.get(`/incidents/${id}`)).body.incident;
  const offersIn = (incidentId: string) =>
    server.running.database.db.selectFrom('dispatch_offers').selectAll().where('incident_id', '=', incidentId).execute();

  /** Each test's responders, made unavailable afterwards so they never see another test's incidents. */
  const retire = async (...tokens: string[]) => {
    for (const token of tokens) await responderCall(token, '/availability', { method: 'PUT', body: { available: false, latitude: 0, longitude: 0 } });
  };

  it("an offer names the gate, the estate and the estate's first number; accepting answers them too; an incident anywhere else names none (issue #48)", async () => {
    const near = await responderAt('Ngozi Gate', 1);
    const site = (await org.live.post('/sites', { name: 'Admiralty Estate', entry_points: ['Main gate'], call_list: [{ name: 'Admiralty control', phone: '0805 765 4321' }, { name: 'Police', phone: '112' }] })).body.site;
    const atGate = (await org.live.post('/incidents', report({ site_id: site.site_id, subject: { name: 'Sani Abubakar', metadata: { entry_point: 'Main gate' } } }))).body.incident.incident_id;
    const [offer] = await offersOf(near.token);
    expect(offer.incident).toMatchObject({ incident_id: atGate, gate: 'Main gate', site: { name: 'Admiralty Estate', phone: '+2348057654321' } });
    const accepted = await responderCall(near.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    expect(accepted.body.incident).toMatchObject({ gate: 'Main gate', site: { name: 'Admiralty Estate', phone: '+2348057654321' } });
    expect((await responderCall(near.token, '/assignments')).body.incidents).toEqual([expect.objectContaining({ incident_id: atGate, gate: 'Main gate', site: { name: 'Admiralty Estate', phone: '+2348057654321' } })]);
    await org.live.post(`/incidents/${atGate}/cancel`, {});
    await retire(near.token);

    const other = await responderAt('Bisi Anywhere', 1);
    const anywhere = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [plain] = await offersOf(other.token);
    expect(plain.incident).toMatchObject({ incident_id: anywhere, gate: null, site: null });
    await org.live.post(`/incidents/${anywhere}/cancel`, {});
    await retire(other.token);
  });

  it('a live incident goes to the nearest responders; the first to accept is assigned and takes it to resolved', async () => {
    const near = await responderAt('Emeka Near', 2);
    const mid = await responderAt('Aisha Mid', 6);
    const far = await responderAt('Tunde Far', 40);
    const created = await org.live.post('/incidents', report());
    const id = created.body.incident.incident_id;

    const offers = await offersOf(near.token);
    expect(offers).toHaveLength(1);
    expect(offers[0]).toMatchObject({ incident: { incident_id: id, category: 'sos', status: 'dispatching', subject: { name: 'Ada Obi' } } });
    expect(offers[0].distance_km).toBeCloseTo(2, 0);
    expect((await offersOf(mid.token))).toHaveLength(1);
    expect((await responderCall(far.token, '/offers')).body.offers).toHaveLength(0);

    server.clock.advance(20_000);
    const accepted = await responderCall(near.token, `/offers/${offers[0].offer_id}/accept`, { method: 'POST' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.incident).toMatchObject({ incident_id: id, status: 'assigned' });
    const late = await responderCall(mid.token, `/offers/${(await offersIn(id)).find((o) => o.responder_id === mid.responder.responder_id)!.offer_id}/accept`, { method: 'POST' });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('taken by another responder');

    let seen = await incident(id);
    expect(seen).toMatchObject({
      status: 'assigned',
      responder: { responder_id: near.responder.responder_id, name: 'Emeka Near', phone: near.responder.phone, eta_minutes: 5, assigned_at: '2026-11-22T10:00:20.000Z' },
      sla: { seconds_to_assign: 20, seconds_to_arrive: null },
    });
    expect(seen.timeline.at(-1)).toMatchObject({ event: 'assigned', status: 'assigned', message: expect.stringContaining('Emeka Near') });

    server.clock.advance(60_000);
    expect((await responderCall(near.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 7 } })).status).toBe(200);
    server.clock.advance(7 * 60_000);
    expect((await responderCall(near.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } })).status).toBe(200);
    const early = await org.live.get(`/incidents/${id}`);
    expect(early.body.incident.sla.seconds_to_arrive).toBe(20 + 60 + 420);
    server.clock.advance(15 * 60_000);
    const resolved = await responderCall(near.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'assisted', notes: 'Escorted to safety' } });
    expect(resolved.status).toBe(200);

    seen = await incident(id);
    expect(seen).toMatchObject({ status: 'resolved', resolution_outcome: 'assisted', resolution_notes: 'Escorted to safety', resolved_at: '2026-11-22T10:23:20.000Z' });
    expect(seen.timeline.map((e: { event: string }) => e.event)).toEqual(['created', 'dispatched', 'assigned', 'responding', 'on_scene', 'resolved']);
    const events = await server.running.database.db.selectFrom('events').select(['type', 'data']).where('resource_id', '=', id).orderBy('event_id').execute();
    expect(events.map((e) => e.type)).toEqual(['incident.created', 'incident.updated', 'incident.updated', 'incident.updated', 'incident.resolved']);
    expect(events.map((e) => JSON.parse(e.data).version)).toEqual([2, 3, 4, 5, 6]);

    const verified = await server.running.database.db.selectFrom('verified_incidents').selectAll().where('incident_id', '=', id).executeTakeFirstOrThrow();
    expect(verified).toMatchObject({ category: 'sos', severity: 'critical', outcome: 'assisted' });
    expect(JSON.stringify(verified)).not.toContain('Ada Obi');
    // ...and flows into the threat engine on its own: a verified event, with no subject data.
    const threatEvent = await server.running.database.db.selectFrom('threat_events').selectAll().where('event_id', '=', `verified:${id}`).executeTakeFirstOrThrow();
    expect(threatEvent).toMatchObject({ source: 'verified', type: 'crime', severity: 9, latitude: LEKKI.latitude, longitude: LEKKI.longitude, place: null });
    expect(JSON.stringify(threatEvent)).not.toMatch(/Ada Obi|Admiralty|user-42/);
    await server.running.refreshThreatIndex();
    const score = await org.live.get(`/safety/score?latitude=${LEKKI.latitude}&longitude=${LEKKI.longitude}`);
    expect(score.body.breakdown).toMatchObject({ recent_incidents_7d: 1, total_incidents: 1 });
    expect((await responderCall(near.token, '/me')).body.responder.available).toBe(true);
    server.clock.set('2026-11-22T10:00:00.000Z');
    await retire(near.token, mid.token, far.token);
  });

  it('a false alarm is resolved but never becomes a verified threat event', async () => {
    const r = await responderAt('False Alarm Responder', 1);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offer] = await offersOf(r.token);
    await responderCall(r.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
    await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } });
    await responderCall(r.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'false_alarm' } });
    expect((await incident(id)).status).toBe('resolved');
    expect(await server.running.database.db.selectFrom('verified_incidents').selectAll().where('incident_id', '=', id).executeTakeFirst()).toBeUndefined();
    expect(await server.running.database.db.selectFrom('threat_events').selectAll().where('event_id', '=', `verified:${id}`).executeTakeFirst()).toBeUndefined();
    await retire(r.token);
  });

  it('a responder can not skip steps, nor touch an incident assigned to someone else', async () => {
    const mine = await responderAt('Step Keeper', 1);
    const other = await responderAt('Bystander', 1.5);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offer] = await offersOf(mine.token);
    await responderCall(mine.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    const skip = await responderCall(mine.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'assisted' } });
    expect(skip.status).toBe(409);
    expect(skip.body.message).toBe('Incident cannot go from assigned to resolved');
    expect((await responderCall(other.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } })).status).toBe(404);
    expect((await responderCall(mine.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'won' } })).status).toBe(400);
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(mine.token, other.token);
  });

  it('nobody accepting: escalated after the dispatch window and offered wider, unresponsive after the escalation window, still acceptable', async () => {
    const wide = await responderAt('Wide Radius', 30); // outside 15 km, inside 45 km
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    await server.running.advanceDispatch();
    expect((await responderCall(wide.token, '/offers')).body.offers).toHaveLength(0);

    server.clock.advance(59_000);
    await server.running.advanceDispatch();
    expect((await incident(id)).status).toBe('dispatching');
    server.clock.advance(1_000);
    await server.running.advanceDispatch();
    await server.running.advanceDispatch();
    const escalated = await incident(id);
    expect(escalated.status).toBe('escalated');
    expect(escalated.timeline.filter((e: { event: string }) => e.event === 'escalated')).toHaveLength(1);
    const [offer] = (await responderCall(wide.token, '/offers')).body.offers;
    expect(offer.incident.incident_id).toBe(id);

    server.clock.advance(300_000);
    await server.running.advanceDispatch();
    expect((await incident(id)).status).toBe('unresponsive');
    const events = await server.running.database.db.selectFrom('events').select('type').where('resource_id', '=', id).orderBy('event_id').execute();
    expect(events.map((e) => e.type)).toEqual(['incident.created', 'incident.escalated', 'incident.unresponsive']);

    server.clock.advance(120_000);
    const late = await responderCall(wide.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    expect(late.status).toBe(200);
    expect((await incident(id)).status).toBe('assigned');
    server.clock.set('2026-11-22T10:00:00.000Z');
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(wide.token);
  });

  it.each(['dispatching', 'assigned', 'responding', 'on_scene', 'escalated', 'unresponsive'])(
    'cancelling at %s withdraws the offers, frees the responder and tells them',
    async (status) => {
      const r = await responderAt(`Cancel ${status}`, 1);
      const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
      const [offer] = await offersOf(r.token);
      if (status === 'escalated' || status === 'unresponsive') {
        server.clock.advance(60_000);
        await server.running.advanceDispatch();
        if (status === 'unresponsive') {
          server.clock.advance(300_000);
          await server.running.advanceDispatch();
        }
      } else if (status !== 'dispatching') {
        await responderCall(r.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
        if (status !== 'assigned') await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
        if (status === 'on_scene') await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } });
      }
      expect((await incident(id)).status).toBe(status);
      const cancelled = await org.live.post(`/incidents/${id}/cancel`, { reason: 'Resident called back: safe' });
      expect(cancelled.status).toBe(200);
      expect((await responderCall(r.token, '/offers')).body.offers).toHaveLength(0);
      expect((await offersIn(id)).every((o) => o.status !== 'pending')).toBe(true);
      if (['assigned', 'responding', 'on_scene'].includes(status)) {
        const assignments = (await responderCall(r.token, '/assignments')).body.incidents;
        expect(assignments.find((i: { incident_id: string }) => i.incident_id === id)?.status).toBe('cancelled');
        expect((await responderCall(r.token, '/me')).body.responder.available).toBe(true);
      }
      server.clock.set('2026-11-22T10:00:00.000Z');
      await retire(r.token);
    },
  );

  it('an unknown incident or offer id answers 404 to a responder, never 500', async () => {
    const r = await responderAt('Typo Prone', 1);
    expect((await responderCall(r.token, '/incidents/inc_nope/status', { method: 'POST', body: { status: 'responding' } })).status).toBe(404);
    expect((await responderCall(r.token, '/incidents/inc_nope/resolve', { method: 'POST', body: { outcome: 'assisted' } })).status).toBe(404);
    expect((await responderCall(r.token, '/offers/ofr_nope/accept', { method: 'POST' })).status).toBe(404);
    await retire(r.token);
  });

  it('a responder on an incident is offered no other, and can not take a second one', async () => {
    const busy = await responderAt('Busy One', 1);
    const first = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const second = (await org.live.post('/incidents', report({ severity: 'high' }))).body.incident.incident_id;
    let offers = await offersOf(busy.token);
    for (let i = 0; offers.length < 2 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the second offer is made just after its commit
      offers = await offersOf(busy.token);
    }
    expect(offers.map((o) => o.incident.incident_id).sort()).toEqual([first, second].sort());
    const mine = offers.find((o) => o.incident.incident_id === first)!;
    expect((await responderCall(busy.token, `/offers/${mine.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await responderCall(busy.token, '/offers')).body.offers).toHaveLength(0);
    const third = (await org.live.post('/incidents', report())).body.incident.incident_id;
    await server.running.advanceDispatch();
    expect((await offersIn(third)).map((o) => o.responder_id)).not.toContain(busy.responder.responder_id);
    // Even with its heartbeat saying "available" while on the way.
    await responderCall(busy.token, '/availability', { method: 'PUT', body: { available: true, ...LEKKI } });
    const fourth = (await org.live.post('/incidents', report())).body.incident.incident_id;
    await server.running.advanceDispatch();
    expect((await offersIn(fourth)).map((o) => o.responder_id)).not.toContain(busy.responder.responder_id);
    for (const id of [first, second, third, fourth]) await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(busy.token);
  });

  it('an escalated incident is offered again to a responder who came free', async () => {
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    server.clock.advance(60_000);
    await server.running.advanceDispatch();
    expect((await incident(id)).status).toBe('escalated');
    const freed = await responderAt('Came Free', 3);
    server.clock.advance(29_000);
    await server.running.advanceDispatch();
    expect((await responderCall(freed.token, '/offers')).body.offers).toHaveLength(0);
    server.clock.advance(1_000);
    await server.running.advanceDispatch();
    const [offer] = (await responderCall(freed.token, '/offers')).body.offers;
    expect(offer.incident.incident_id).toBe(id);
    expect((await responderCall(freed.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    server.clock.set('2026-11-22T10:00:00.000Z');
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(freed.token);
  });

  it('a responder coming on duty is offered at once the incident near them nobody was asked, not one beyond the radius nor one others are considering', async () => {
    const late = await responderAt('Late Starter', 2);
    await retire(late.token);
    // Reported while nobody is on duty near Lekki: dispatching, no offer at all.
    const waiting = (await org.live.post('/incidents', report())).body.incident.incident_id;
    expect(await offersIn(waiting)).toEqual([]);
    // 40 km east: outside the first round's 15 km.
    const far = (await org.live.post('/incidents', report({ location: { coordinates: [LEKKI.longitude + 40 / 110.5, LEKKI.latitude], address: 'Ibeju-Lekki' } }))).body.incident.incident_id;
    // One a colleague has open before them.
    const colleague = await responderAt('Already Asked', 4);
    const considered = (await org.live.post('/incidents', report())).body.incident.incident_id;
    expect((await offersIn(considered)).map((offer) => offer.responder_id)).toEqual([colleague.responder.responder_id]);

    const beat = await responderCall(late.token, '/availability', { method: 'PUT', body: { available: true, latitude: LEKKI.latitude, longitude: LEKKI.longitude + 2 / 110.5 } });
    expect(beat.status).toBe(200);
    // No sweep runs here (the clock stands still): the heartbeat itself brought the offer.
    await expect.poll(async () => (await offersOf(late.token)).map((offer) => offer.incident.incident_id), { timeout: 10_000 }).toEqual([waiting]);
    // Offered as its own first round would offer it: to the nearest available, the colleague now too.
    const asked = (await offersIn(waiting)).map((offer) => offer.responder_id).sort();
    expect(asked).toEqual([late.responder.responder_id, colleague.responder.responder_id].sort());
    expect(await offersIn(far)).toEqual([]);
    expect((await offersIn(considered)).map((offer) => offer.responder_id)).toEqual([colleague.responder.responder_id]);
    // A heartbeat while already available asks nothing again.
    await responderCall(late.token, '/availability', { method: 'PUT', body: { available: true, latitude: LEKKI.latitude, longitude: LEKKI.longitude + 2 / 110.5 } });
    expect((await offersIn(waiting)).map((offer) => offer.responder_id).sort()).toEqual(asked);

    for (const id of [waiting, far, considered]) await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(late.token, colleague.token);
  });

  it('a responder retrying an accept or a status report whose answer was lost gets the same answer, not a 409', async () => {
    const r = await responderAt('Flaky Network', 1);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offer] = await offersOf(r.token);
    const first = await responderCall(r.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    const retry = await responderCall(r.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    expect(retry.status).toBe(200);
    expect(retry.body.incident).toEqual(first.body.incident);
    const going = await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 4 } });
    const again = await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding', eta_minutes: 4 } });
    expect(again.status).toBe(200);
    expect(again.body.incident.status).toBe(going.body.incident.status);
    const seen = await incident(id);
    expect(seen.timeline.filter((e: { event: string }) => e.event === 'assigned' || e.event === 'responding')).toHaveLength(2);
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(r.token);
  });

  it('a retried resolve with the same outcome gets the same answer; another outcome is a 409; an offer says when to answer by', async () => {
    const r = await responderAt('Slow Link', 1);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offer] = await offersOf(r.token);
    expect(offer.answer_by).toBe((await incident(id)).sla.dispatch_deadline);
    await responderCall(r.token, `/offers/${offer.offer_id}/accept`, { method: 'POST' });
    await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'responding' } });
    await responderCall(r.token, `/incidents/${id}/status`, { method: 'POST', body: { status: 'on_scene' } });
    const first = await responderCall(r.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'false_alarm' } });
    const retry = await responderCall(r.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'false_alarm' } });
    expect(retry).toEqual(first);
    expect((await responderCall(r.token, `/incidents/${id}/resolve`, { method: 'POST', body: { outcome: 'assisted' } })).status).toBe(409);
    expect((await incident(id)).timeline.filter((e: { event: string }) => e.event === 'resolved')).toHaveLength(1);
    await retire(r.token);
  });

  it('two responders accepting together: exactly one is assigned', async () => {
    const a = await responderAt('Racer A', 1);
    const b = await responderAt('Racer B', 1);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offerA] = await offersOf(a.token);
    const [offerB] = await offersOf(b.token);
    const answers = await Promise.all([
      responderCall(a.token, `/offers/${offerA.offer_id}/accept`, { method: 'POST' }),
      responderCall(b.token, `/offers/${offerB.offer_id}/accept`, { method: 'POST' }),
    ]);
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
    const seen = await incident(id);
    expect(seen.timeline.filter((e: { event: string }) => e.event === 'assigned')).toHaveLength(1);
    const winner = answers[0]!.status === 200 ? a : b;
    expect(seen.responder.responder_id).toBe(winner.responder.responder_id);
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(a.token, b.token);
  });

  it('a declined offer leaves the others open', async () => {
    const a = await responderAt('Decliner', 1);
    const b = await responderAt('Taker', 2);
    const id = (await org.live.post('/incidents', report())).body.incident.incident_id;
    const [offerA] = await offersOf(a.token);
    expect((await responderCall(a.token, `/offers/${offerA.offer_id}/decline`, { method: 'POST' })).body.offer.status).toBe('declined');
    expect((await responderCall(a.token, `/offers/${offerA.offer_id}/accept`, { method: 'POST' })).status).toBe(409);
    const [offerB] = await offersOf(b.token);
    expect((await responderCall(b.token, `/offers/${offerB.offer_id}/accept`, { method: 'POST' })).status).toBe(200);
    await org.live.post(`/incidents/${id}/cancel`, {});
    await retire(a.token, b.token);
  });
});

describe('dispatch: sandbox and drills play out on the simulated network', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { SANDBOX_SPEED: '10' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  const steps = async (incidentId: string, client: typeof org.live) => {
    const statuses: string[] = [(await client.get(`/incidents/${incidentId}`)).body.incident.status];
    for (let i = 0; i < 40; i++) {
      server.clock.advance(500);
      await server.running.advanceDispatch();
      const status = (await client.get(`/incidents/${incidentId}`)).body.incident.status;
      if (statuses.at(-1) !== status) statuses.push(status);
      if (status === 'resolved') break;
    }
    return statuses;
  };

  it('a sandbox incident runs assigned → responding → on_scene → resolved at SANDBOX_SPEED 10, never offered to anyone real', async () => {
    const live = await addResponder(server.running.database.db, server.clock, { name: 'Real Person', phone: '+2348030009999', ...LEKKI, environment: 'live' });
    const sandboxReal = await addResponder(server.running.database.db, server.clock, { name: 'Sandbox Row', phone: '+2348030009998', ...LEKKI, environment: 'sandbox' });
    const created = await org.sandbox.post('/incidents', incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude] } }));
    const id = created.body.incident.incident_id;
    expect(await steps(id, org.sandbox)).toEqual(['dispatching', 'assigned', 'responding', 'on_scene', 'resolved']);
    const final = (await org.sandbox.get(`/incidents/${id}`)).body.incident;
    expect(final).toMatchObject({
      resolution_outcome: 'assisted',
      responder: { responder_id: 'rsp_sim_lagos', name: 'Simulated Responder (Lagos)' },
    });
    // 0.5 s to accept, 1 s to set off, 6 s to arrive, 6 s to close, at ten times speed.
    expect(Date.parse(final.resolved_at) - Date.parse(final.created_at)).toBeLessThanOrEqual(14_500);
    const offers = await server.running.database.db.selectFrom('dispatch_offers').selectAll().where('incident_id', '=', id).execute();
    expect(offers).toHaveLength(0);
    expect(live.responder.responder_id).not.toBe(final.responder.responder_id);
    expect(sandboxReal.responder.responder_id).not.toBe(final.responder.responder_id);
    expect(await server.running.database.db.selectFrom('verified_incidents').selectAll().where('incident_id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('a live drill is simulated too and offered to no live responder', async () => {
    await addResponder(server.running.database.db, server.clock, { name: 'On Duty', phone: '+2348030009997', ...LEKKI, environment: 'live' });
    const id = (await org.live.post('/incidents', incidentBody({ is_drill: true, location: { coordinates: [LEKKI.longitude, LEKKI.latitude] } }))).body.incident.incident_id;
    await server.running.advanceDispatch();
    expect(await steps(id, org.live)).toContain('resolved');
    expect(await server.running.database.db.selectFrom('dispatch_offers').selectAll().where('incident_id', '=', id).execute()).toHaveLength(0);
  });

  it('an incident the engine never heard of (host died after commit) is offered by the sweep', async () => {
    const quiet = await startTestServer({ dispatcher: { incidentOpened: () => undefined, incidentCancelled: async () => undefined }, clock: server.clock, database: server.database });
    try {
      const id = (await quiet.client(org.keys.sandbox).post('/incidents', incidentBody())).body.incident.incident_id;
      server.clock.advance(2_000);
      await server.running.advanceDispatch();
      expect(await steps(id, org.sandbox)).toContain('resolved');
    } finally {
      await quiet.stop();
    }
  });
});

describe('dispatch: a fast sandbox is not held to the one-second sweep', () => {
  it('with the sweep off, the simulated steps still run to resolved on their own timers', async () => {
    const database = await createMigratedDatabase();
    const config = loadConfig({ PORT: '0', DEMO: '0', THREAT_SEED: '0', LOG_LEVEL: 'silent', DATABASE_URL: database.url, SANDBOX_SPEED: '1000', SECRETS_KEY: TEST_SECRETS_KEY });
    const running = await startServer(config, { logger: pino({ level: 'silent' }), runDispatch: false, simulationTimers: true });
    try {
      const created = await createOrganization(running.database.db, systemClock, { name: 'Fast Sandbox', plan: 'enterprise' });
      const client = new ApiClient(running.baseUrl, created.keys.sandbox.secret);
      const id = (await client.post('/incidents', incidentBody())).body.incident.incident_id;
      const seen = new Set<string>();
      for (let i = 0; i < 250 && !seen.has('resolved'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.add((await client.get(`/incidents/${id}`)).body.incident.status);
      }
      expect(seen.has('resolved')).toBe(true);
      const timeline = (await client.get(`/incidents/${id}`)).body.incident.timeline.map((e: { event: string }) => e.event);
      expect(timeline).toEqual(['created', 'dispatched', 'assigned', 'responding', 'on_scene', 'resolved']);
    } finally {
      await running.stop();
      await database.drop();
    }
  });
});
