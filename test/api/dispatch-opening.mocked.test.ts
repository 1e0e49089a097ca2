import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Nearest from '../../server/dispatch/nearest.ts';
import { addResponder } from '../../server/responders/service.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

// The choice of responders, made to throw on demand: a bug in dispatch must never cost an SOS.
const failChoice = vi.hoisted(() => ({ on: false }));
vi.mock('../../server/dispatch/nearest.ts', async (original) => {
  const actual = await original<typeof Nearest>();
  return {
    ...actual,
    chooseNearestResponders: (...args: Parameters<typeof actual.chooseNearestResponders>) => {
      if (failChoice.on) throw new Error('dispatch bug');
      return actual.chooseNearestResponders(...args);
    },
  };
});

const LEKKI = { latitude: 6.4474, longitude: 3.4739 };

describe('dispatch opens a new incident in the transaction that creates it', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { DISPATCH_RADIUS_KM: '15', DISPATCH_OFFER_COUNT: '3' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  const report = () => incidentBody({ location: { coordinates: [LEKKI.longitude, LEKKI.latitude], address: 'Admiralty Way, Lekki' } });
  const offersIn = (incidentId: string) =>
    server.running.database.db.selectFrom('dispatch_offers').select(['responder_id', 'round']).where('incident_id', '=', incidentId).execute();
  const roundOf = async (incidentId: string) =>
    Number((await server.running.database.db.selectFrom('incidents').select('dispatch_round').where('incident_id', '=', incidentId).executeTakeFirstOrThrow()).dispatch_round);

  it('when the 201 arrives, the first offers are already stored: one commit for the incident and its offers', async () => {
    const { responder } = await addResponder(server.running.database.db, server.clock, { name: 'Emeka Near', phone: '+2348030000201', ...LEKKI, environment: 'live' });
    const created = await org.live.post('/incidents', report());
    expect(created.status).toBe(201);
    const id = created.body.incident.incident_id;
    expect(await offersIn(id)).toEqual([{ responder_id: responder.responder_id, round: 1 }]);
    expect(await roundOf(id)).toBe(1);
  });

  it('a dispatch that fails on the way never fails the SOS: it is stored, answered 201, and the sweep offers it later', async () => {
    failChoice.on = true;
    let id: string;
    try {
      const created = await org.live.post('/incidents', { ...report(), category: 'sos', severity: 'critical' });
      expect(created.status).toBe(201);
      id = created.body.incident.incident_id;
      expect(await offersIn(id)).toEqual([]);
      expect(await roundOf(id)).toBe(0); // handed back to the sweep
    } finally {
      failChoice.on = false;
    }
    server.clock.advance(3_000);
    await server.running.advanceDispatch();
    expect((await offersIn(id)).length).toBeGreaterThan(0);
    expect(await roundOf(id)).toBe(1);
    expect((await org.live.get(`/incidents/${id}`)).body.incident.status).toBe('dispatching');
  });
});
