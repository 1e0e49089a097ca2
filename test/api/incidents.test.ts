import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentBody, startTestServer, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

describe('incidents', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { DISPATCH_WINDOW_S: '90', ESCALATION_WINDOW_S: '600' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  describe('create', () => {
    it('answers 201 with the incident already dispatching, timeline created then dispatched', async () => {
      const res = await org.live.post('/incidents', incidentBody({ description: 'Pressed panic at the gate' }));
      expect(res.status).toBe(201);
      const incident = res.body.incident;
      expect(incident.incident_id).toMatch(/^inc_[0-9A-Z]{26}$/);
      expect(incident.status).toBe('dispatching');
      expect(incident.timeline.map((entry: { event: string }) => entry.event)).toEqual(['created', 'dispatched']);
      expect(incident.timeline.map((entry: { status: string }) => entry.status)).toEqual(['created', 'dispatching']);
      expect(incident).toMatchObject({
        category: 'sos',
        severity: 'critical',
        title: '[CRITICAL] SOS Emergency',
        description: 'Pressed panic at the gate',
        is_drill: false,
        environment: 'live',
        idempotency_key: null,
        responder: null,
        resolution_outcome: null,
        resolution_notes: null,
        resolved_at: null,
        cancelled_at: null,
        subject: { name: 'Ada Obi', phone: '+2348012345678', email: null, reference: 'user-42', metadata: {} },
        location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki', landmark: null },
        created_at: '2026-11-22T10:00:00.000Z',
      });
      expect(incident.version).toBeGreaterThanOrEqual(2);
    });

    it('derives the SLA deadlines from the configured dispatch and escalation windows', async () => {
      const { body } = await org.live.post('/incidents', incidentBody());
      expect(body.incident.sla).toEqual({
        dispatch_deadline: '2026-11-22T10:01:30.000Z',
        escalation_deadline: '2026-11-22T10:11:30.000Z',
        seconds_to_assign: null,
        seconds_to_arrive: null,
      });
    });

    it.each([
      ['sos', 'critical', '[CRITICAL] SOS Emergency'],
      ['vehicle', 'high', '[HIGH] Vehicle Emergency'],
      ['location_threat', 'medium', '[MEDIUM] Location Threat Emergency'],
      ['medical', 'low', '[LOW] Medical Emergency'],
    ])('a %s incident of %s severity gets the title %s', async (category, severity, title) => {
      const { body } = await org.live.post('/incidents', incidentBody({ category, severity }));
      expect(body.incident.title).toBe(title);
    });

    it('keeps a title the partner sends', async () => {
      const { body } = await org.live.post('/incidents', incidentBody({ title: 'Gate 2 intruder' }));
      expect(body.incident.title).toBe('Gate 2 intruder');
    });

    it('echoes subject reference and metadata', async () => {
      const subject = { name: 'Chidi', email: 'chidi@example.ng', reference: 'cust-9', metadata: { estate: 'Banana Island', unit: '4B' } };
      const { body } = await org.live.post('/incidents', incidentBody({ subject }));
      expect(body.incident.subject).toEqual({ phone: null, ...subject });
    });

    it('a second create with the same idempotency_key answers the first incident with 200 and idempotent: true, even with another body', async () => {
      const first = await org.live.post('/incidents', incidentBody({ idempotency_key: 'press-7781' }));
      const again = await org.live.post('/incidents', incidentBody({ idempotency_key: 'press-7781', severity: 'low' }));
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      expect(again.body.idempotent).toBe(true);
      expect(again.body.incident.incident_id).toBe(first.body.incident.incident_id);
      expect(again.body.incident.severity).toBe('critical');
    });

    it('concurrent creates with one idempotency_key make exactly one incident', async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => org.live.post('/incidents', incidentBody({ idempotency_key: 'race-1' }))),
      );
      const ids = new Set(answers.map((res) => res.body.incident.incident_id));
      expect(ids.size).toBe(1);
      expect(answers.filter((res) => res.status === 201)).toHaveLength(1);
      expect(answers.filter((res) => res.status === 200 && res.body.idempotent === true)).toHaveLength(7);
    });

    it('creates racing with one idempotency_key inside Idempotency-Key requests still make one incident', async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          org.live.post('/incidents', incidentBody({ idempotency_key: 'race-keyed' }), { headers: { 'idempotency-key': `hdr-race-${i}` } }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((res) => res.body.incident.incident_id)).size).toBe(1);
    });

    it('the same idempotency_key in the sandbox makes a separate sandbox incident', async () => {
      const live = await org.live.post('/incidents', incidentBody({ idempotency_key: 'shared-key' }));
      const sandbox = await org.sandbox.post('/incidents', incidentBody({ idempotency_key: 'shared-key' }));
      expect(sandbox.status).toBe(201);
      expect(sandbox.body.incident.incident_id).not.toBe(live.body.incident.incident_id);
      expect(sandbox.body.incident.environment).toBe('sandbox');
      expect(sandbox.body.incident.timeline[1].message).toMatch(/simulated/);
    });

    it('a drill is dispatched to the simulated network only', async () => {
      const { body } = await org.live.post('/incidents', incidentBody({ is_drill: true }));
      expect(body.incident.is_drill).toBe(true);
      expect(body.incident.timeline[1].message).toMatch(/simulated/);
    });

    it.each([
      [{ subject: undefined }, 'subject is required'],
      [{ subject: { phone: '1' } }, 'subject.name is required'],
      [{ subject: { name: '' } }, 'subject.name'],
      [{ subject: { name: 'x'.repeat(201) } }, 'subject.name'],
      [{ subject: { name: 'A', email: 'not-an-email' } }, 'subject.email'],
      [{ subject: { name: 'A', phone: '1'.repeat(33) } }, 'subject.phone'],
      [{ subject: { name: 'A', reference: 'r'.repeat(129) } }, 'subject.reference'],
      [{ subject: { name: 'A', metadata: { k: 1 } } }, 'subject.metadata.k'],
      [{ subject: { name: 'A', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) } }, 'subject.metadata'],
      [{ location: undefined }, 'location is required'],
      [{ location: {} }, 'location.coordinates is required'],
      [{ location: { coordinates: [3.3] } }, 'location.coordinates'],
      [{ location: { coordinates: [181, 6.5] } }, 'location.coordinates[0]'],
      [{ location: { coordinates: [3.3, -91] } }, 'location.coordinates[1]'],
      [{ location: { coordinates: ['3.3', 6.5] } }, 'location.coordinates[0]'],
      [{ category: 'fire' }, 'category'],
      [{ category: undefined }, 'category is required'],
      [{ severity: 'extreme' }, 'severity'],
      [{ description: 'd'.repeat(2001) }, 'description'],
      [{ idempotency_key: 'k'.repeat(129) }, 'idempotency_key'],
      [{ title: 't'.repeat(201) }, 'title'],
      [{ is_drill: 'yes' }, 'is_drill'],
      [{ status: 'resolved' }, 'status: unknown field'],
    ].map(([overrides, field]) => ({ overrides: overrides as Record<string, unknown>, field: field as string })))('an invalid body answers 400 naming $field', async ({ overrides, field }) => {
      const res = await org.live.post('/incidents', incidentBody(overrides));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.message).toContain(field);
    });

    it('malformed JSON answers 400 in the error shape', async () => {
      const res = await org.live.request('POST', '/incidents', { rawBody: '{"category":' });
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'Malformed JSON in request body');
    });

    it('a body over the limit answers 413', async () => {
      const res = await org.live.post('/incidents', incidentBody({ description: 'x'.repeat(300 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body.code).toBe(413);
    });
  });

  describe('list', () => {
    let listOrg: TestOrganization;
    beforeAll(async () => {
      listOrg = await server.createOrganization();
      const plan: Array<[string, string, string]> = [
        ['2026-11-20T08:00:00.000Z', 'sos', 'critical'],
        ['2026-11-20T09:00:00.000Z', 'medical', 'high'],
        ['2026-11-21T08:00:00.000Z', 'vehicle', 'low'],
        ['2026-11-21T12:00:00.000Z', 'sos', 'medium'],
        ['2026-11-22T07:00:00.000Z', 'medical', 'critical'],
      ];
      for (const [at, category, severity] of plan) {
        server.clock.set(at);
        await listOrg.live.post('/incidents', incidentBody({ category, severity, description: at }));
      }
      server.clock.set('2026-11-22T10:00:00.000Z');
      const first = await listOrg.live.get('/incidents?category=vehicle');
      await listOrg.live.post(`/incidents/${first.body.results[0].incident_id}/cancel`, {});
    });

    it('answers the page shape, newest first', async () => {
      const res = await listOrg.live.get('/incidents');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, limit: 20, totalPages: 1, totalResults: 5 });
      expect(res.body.results.map((i: { description: string }) => i.description)).toEqual([
        '2026-11-22T07:00:00.000Z',
        '2026-11-21T12:00:00.000Z',
        '2026-11-21T08:00:00.000Z',
        '2026-11-20T09:00:00.000Z',
        '2026-11-20T08:00:00.000Z',
      ]);
    });

    it('pages with page and limit', async () => {
      const res = await listOrg.live.get('/incidents?limit=2&page=3');
      expect(res.body).toMatchObject({ page: 3, limit: 2, totalPages: 3, totalResults: 5 });
      expect(res.body.results).toHaveLength(1);
      expect(res.body.results[0].description).toBe('2026-11-20T08:00:00.000Z');
    });

    it.each([
      ['status=cancelled', ['2026-11-21T08:00:00.000Z']],
      ['category=sos', ['2026-11-21T12:00:00.000Z', '2026-11-20T08:00:00.000Z']],
      ['severity=critical', ['2026-11-22T07:00:00.000Z', '2026-11-20T08:00:00.000Z']],
      ['category=medical&severity=high', ['2026-11-20T09:00:00.000Z']],
      ['from_date=2026-11-21T08:00:00.000Z', ['2026-11-22T07:00:00.000Z', '2026-11-21T12:00:00.000Z', '2026-11-21T08:00:00.000Z']],
      ['to_date=2026-11-21T08:00:00.000Z', ['2026-11-20T09:00:00.000Z', '2026-11-20T08:00:00.000Z']],
      ['from_date=2026-11-21T09:00:00%2B01:00&to_date=2026-11-22T00:00:00Z', ['2026-11-21T12:00:00.000Z', '2026-11-21T08:00:00.000Z']],
    ])('filters with %s', async (query, expected) => {
      const res = await listOrg.live.get(`/incidents?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((i: { description: string }) => i.description)).toEqual(expected);
      expect(res.body.totalResults).toBe(expected.length);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['status=done', 'status'],
      ['category=fire', 'category'],
      ['severity=max', 'severity'],
      ['from_date=yesterday', 'from_date'],
      ['to_date=2026-13-01', 'to_date'],
    ])('%s answers 400 naming %s', async (query, field) => {
      const res = await listOrg.live.get(`/incidents?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    });

    it('never shows another organization or environment', async () => {
      const sandbox = await listOrg.sandbox.get('/incidents');
      expect(sandbox.body.totalResults).toBe(0);
      const other = await server.createOrganization();
      expect((await other.live.get('/incidents')).body.totalResults).toBe(0);
    });
  });

  describe('get', () => {
    it('answers the incident', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const res = await org.live.get(`/incidents/${created.body.incident.incident_id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ incident: created.body.incident });
    });

    it('an unknown id answers 404', async () => {
      const res = await org.live.get('/incidents/inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Incident not found' });
    });
  });

  describe('cancel', () => {
    it('cancels an active incident, records the reason and stamps cancelled_at', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      server.clock.advance(30_000);
      const res = await org.live.post(`/incidents/${id}/cancel`, { reason: 'False alarm, resident is safe' });
      server.clock.set('2026-11-22T10:00:00.000Z');
      expect(res.status).toBe(200);
      expect(res.body.incident.status).toBe('cancelled');
      expect(res.body.incident.cancelled_at).toBe('2026-11-22T10:00:30.000Z');
      expect(res.body.incident.version).toBe(created.body.incident.version + 1);
      expect(res.body.incident.timeline.at(-1)).toEqual({
        status: 'cancelled',
        event: 'cancelled',
        message: 'Cancelled by partner: False alarm, resident is safe',
        timestamp: '2026-11-22T10:00:30.000Z',
      });
    });

    it('cancels without a body too', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const res = await org.live.request('POST', `/incidents/${created.body.incident.incident_id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body.incident.timeline.at(-1).message).toBe('Cancelled by partner');
    });

    it('cancelling a cancelled incident answers 409 with its status', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      await org.live.post(`/incidents/${id}/cancel`, {});
      const res = await org.live.post(`/incidents/${id}/cancel`, {});
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: 'Incident is already cancelled' });
    });

    it('cancelling a resolved incident answers 409 with its status', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      // Nothing in the partner API resolves an incident: the responder network does. Set it as that would.
      await server.running.database.db
        .updateTable('incidents')
        .set({ status: 'resolved', resolved_at: '2026-11-22T10:20:00.000Z', resolution_outcome: 'assisted' })
        .where('incident_id', '=', id)
        .execute();
      const res = await org.live.post(`/incidents/${id}/cancel`, { reason: 'late' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: 'Incident is already resolved' });
    });

    it('an unknown id answers 404, a too-long reason 400', async () => {
      expect((await org.live.post('/incidents/inc_nope/cancel', {})).status).toBe(404);
      const created = await org.live.post('/incidents', incidentBody());
      const res = await org.live.post(`/incidents/${created.body.incident.incident_id}/cancel`, { reason: 'r'.repeat(2001) });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('reason');
    });

    it('concurrent cancels: exactly one succeeds, the others answer 409', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      const answers = await Promise.all(Array.from({ length: 6 }, () => org.live.post(`/incidents/${id}/cancel`, {})));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      const final = await org.live.get(`/incidents/${id}`);
      expect(final.body.incident.timeline.filter((e: { event: string }) => e.event === 'cancelled')).toHaveLength(1);
    });
  });

  describe('notes', () => {
    it('appends a note at the current status and bumps the version', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      const res = await org.live.post(`/incidents/${id}/notes`, { message: 'Guard says the caller is at gate B' });
      expect(res.status).toBe(200);
      expect(res.body.incident.timeline.at(-1)).toMatchObject({
        status: 'dispatching',
        event: 'note',
        message: 'Guard says the caller is at gate B',
      });
      expect(res.body.incident.status).toBe('dispatching');
      expect(res.body.incident.version).toBe(created.body.incident.version + 1);
    });

    it('a note on a cancelled incident answers 409 with its status', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      await org.live.post(`/incidents/${id}/cancel`, {});
      const res = await org.live.post(`/incidents/${id}/notes`, { message: 'too late' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: 'Incident is already cancelled' });
    });

    it.each([
      [{}, 'message is required'],
      [{ message: '' }, 'message'],
      [{ message: 'm'.repeat(2001) }, 'message'],
      [{ message: 42 }, 'message'],
    ].map(([body, field]) => ({ body, field })))('a note body answers 400 naming $field', async ({ body, field }) => {
      const created = await org.live.post('/incidents', incidentBody());
      const res = await org.live.post(`/incidents/${created.body.incident.incident_id}/notes`, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    });

    it('concurrent notes are all kept, in order, each with its own version', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => org.live.post(`/incidents/${id}/notes`, { message: `note ${i}` })),
      );
      expect(answers.every((res) => res.status === 200)).toBe(true);
      const final = await org.live.get(`/incidents/${id}`);
      const notes = final.body.incident.timeline.filter((e: { event: string }) => e.event === 'note');
      expect(notes.map((n: { message: string }) => n.message).sort()).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4']);
      expect(final.body.incident.version).toBe(created.body.incident.version + 5);
    });
  });

  describe('event log', () => {
    it('writes incident.created and incident.cancelled events carrying the REST incident and its version', async () => {
      const created = await org.live.post('/incidents', incidentBody());
      const id = created.body.incident.incident_id;
      const cancelled = await org.live.post(`/incidents/${id}/cancel`, {});
      const events = await server.running.database.db
        .selectFrom('events')
        .selectAll()
        .where('resource_id', '=', id)
        .orderBy('event_id')
        .execute();
      expect(events.map((e) => e.type)).toEqual(['incident.created', 'incident.cancelled']);
      expect(events[0]!.event_id).toMatch(/^evt_/);
      expect(JSON.parse(events[0]!.data)).toEqual(created.body.incident);
      expect(JSON.parse(events[1]!.data)).toEqual(cancelled.body.incident);
      expect(events.every((e) => e.organization_id === org.organizationId && e.environment === 'live')).toBe(true);
    });
  });
});
