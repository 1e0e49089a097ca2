import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../../server/db/database.ts';
import { appendEvent } from '../../server/events/service.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';
import { createEndpoint, createIncident, openOwnHandle, jobsOf } from '../support/webhook-durability.ts';

// Each host keeps the endpoints an event goes to per tenant, and checks them in the event's own
// INSERT against a revision every endpoint change bumps (server/webhooks/queue.ts, migration
// 0015). Whoever makes the change - this host's API, another host, the CLI - the very next event
// must go exactly where a fresh read of the endpoints would send it.
describe('where an event is delivered, after an endpoint changes', () => {
  let server: TestServer;
  let org: TestOrganization;
  let elsewhere: OpenedDatabase;
  let endpointId: string;
  const at = () => new Date().toISOString();
  const destinationsOfNextIncident = async () => (await jobsOf(elsewhere, (await createIncident(org.sandbox)).eventId)).map((job) => job.endpoint_id).sort();

  beforeAll(async () => {
    server = await startTestServer({ deliverWebhooks: false });
    org = await server.createOrganization();
    // Another writer on the same database, as another host or `npx tsaro` would be.
    elsewhere = openOwnHandle(server.database.url);
  });
  afterAll(async () => {
    await elsewhere.close();
    await server.stop();
  });

  it('an endpoint created through the API gets the very next event, though the event before filled the cache with none', async () => {
    expect(await destinationsOfNextIncident()).toEqual([]);
    ({ endpointId } = await createEndpoint(org.sandbox, 'http://127.0.0.1:9/tsaro'));
    expect(await destinationsOfNextIncident()).toEqual([endpointId]);
    expect(await destinationsOfNextIncident()).toEqual([endpointId]);
  });

  it('a disable, a change of event types and a deletion made by another writer apply to the very next event', async () => {
    const change = (values: Record<string, unknown>) =>
      elsewhere.db.updateTable('webhook_endpoints').set(values).where('endpoint_id', '=', endpointId).execute();
    expect(await destinationsOfNextIncident()).toEqual([endpointId]);

    await change({ status: 'disabled', updated_at: at() });
    expect(await destinationsOfNextIncident()).toEqual([]);
    await change({ status: 'enabled', events: JSON.stringify(['access_code.created']), updated_at: at() });
    expect(await destinationsOfNextIncident()).toEqual([]);
    await change({ events: JSON.stringify(['incident.*']), updated_at: at() });
    expect(await destinationsOfNextIncident()).toEqual([endpointId]);

    // A second endpoint added by another writer, then the first deleted by it.
    const row = await elsewhere.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow();
    const second = `${endpointId}2`;
    await elsewhere.db.insertInto('webhook_endpoints').values({ ...row, endpoint_id: second }).execute();
    expect(await destinationsOfNextIncident()).toEqual([endpointId, second].sort());
    await change({ deleted_at: at(), status: 'disabled' });
    expect(await destinationsOfNextIncident()).toEqual([second]);
    await elsewhere.db.updateTable('webhook_endpoints').set({ status: 'disabled', deleted_at: at() }).where('endpoint_id', '=', second).execute();
    expect(await destinationsOfNextIncident()).toEqual([]);
  });

  it('a secret rotation does not change where events go (and does not empty the cache)', async () => {
    const { endpointId: third } = await createEndpoint(org.sandbox, 'http://127.0.0.1:9/third');
    expect(await destinationsOfNextIncident()).toEqual([third]);
    const before = await elsewhere.db.selectFrom('webhook_revision').select('revision').executeTakeFirstOrThrow();
    const rotated = await org.sandbox.post(`/webhook-endpoints/${third}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect(await elsewhere.db.selectFrom('webhook_revision').select('revision').executeTakeFirstOrThrow()).toEqual(before);
    expect(await destinationsOfNextIncident()).toEqual([third]);
  });

  it('an endpoint added and rolled back with an event leaves nothing behind for later events, even after another change', async () => {
    const live = await elsewhere.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('organization_id', '=', org.organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    const db = server.running.database.db;
    const ghost = `${live.endpoint_id}ghost`;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('webhook_endpoints').values({ ...live, endpoint_id: ghost }).execute();
        await appendEvent(trx, { clock: server.clock, webhookQueue: server.running.webhookQueue }, { organizationId: org.organizationId, environment: 'sandbox', type: 'incident.created', resourceId: 'inc_x', data: {} });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A real change right after the rollback: its revision must not be the one the rolled-back
    // transaction's read was cached at, or the next event would be sent to the ghost.
    await elsewhere.db.updateTable('webhook_endpoints').set({ status: 'disabled' }).where('endpoint_id', '=', live.endpoint_id).execute();
    expect(await destinationsOfNextIncident()).toEqual([]);
    await elsewhere.db.updateTable('webhook_endpoints').set({ status: 'enabled' }).where('endpoint_id', '=', live.endpoint_id).execute();
    expect(await destinationsOfNextIncident()).toEqual([live.endpoint_id]);
  });

  it("a validation's two events, written by one statement, each go where a fresh read would send them, also after another writer's change", async () => {
    const other = await server.createOrganization({ name: 'Gatehouse Estate' });
    const arrivals = await other.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/arrivals', events: ['visitor.arrived'] });
    const uses = await other.sandbox.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/uses', events: ['access_code.*'] });
    expect([arrivals.status, uses.status]).toEqual([201, 201]);
    const arrivalsId: string = arrivals.body.webhook_endpoint.endpoint_id;
    const usesId: string = uses.body.webhook_endpoint.endpoint_id;
    const code = (await other.sandbox.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', max_uses: 10 })).body.access_code;
    const destinationsOfNextValidation = async () => {
      const checked = await other.sandbox.post('/access-codes/validate', { code: code.code });
      expect(checked.body.valid).toBe(true);
      const eventOf = async (type: string, resourceId: string) => {
        const found = await other.sandbox.get(`/events?type=${type}&resource_id=${resourceId}&limit=1`);
        return found.body.results[0].id as string;
      };
      const [arrived, used] = [await eventOf('visitor.arrived', checked.body.log_id), await eventOf('access_code.used', code.code_id)];
      const where = async (eventId: string) => (await jobsOf(elsewhere, eventId)).map((job) => job.endpoint_id);
      return { arrived: await where(arrived), used: await where(used) };
    };

    expect(await destinationsOfNextValidation()).toEqual({ arrived: [arrivalsId], used: [usesId] });
    expect(await destinationsOfNextValidation()).toEqual({ arrived: [arrivalsId], used: [usesId] });
    await elsewhere.db.updateTable('webhook_endpoints').set({ status: 'disabled', updated_at: at() }).where('endpoint_id', '=', arrivalsId).execute();
    expect(await destinationsOfNextValidation()).toEqual({ arrived: [], used: [usesId] });
    await elsewhere.db.updateTable('webhook_endpoints').set({ events: JSON.stringify(['visitor.*', 'access_code.used']), status: 'enabled', updated_at: at() }).where('endpoint_id', '=', arrivalsId).execute();
    expect(await destinationsOfNextValidation()).toEqual({ arrived: [arrivalsId], used: [arrivalsId, usesId].sort() });
  });
});
