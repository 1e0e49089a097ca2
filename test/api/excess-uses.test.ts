import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestOrganization, type TestServer, expectErrorBody } from '../support/server.ts';

/** A gate let a visitor in offline with a code the server then refused: the walk-in it records says so in fields (issue #49). */
describe('excess uses: visits a gate let in offline with a code the server refused', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.createOrganization({ name: 'Excess Estate' });
  });
  afterAll(() => server.stop());

  it('are kept on the visit, listed among who is inside, and raised as visitor.excess_use', async () => {
    const scannedAt = new Date(server.clock.now().getTime() - 10 * 60_000).toISOString();
    const admitted = { code: 'DEMO-7K2P', scanned_at: scannedAt, server_said: 'Maximum uses reached' };
    const made = await org.live.post('/access-logs', { visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', entry_point: 'Back gate', checked_in_at: scannedAt, admitted_offline: admitted });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.access_log).toMatchObject({ method: 'walk_in', checked_in_at: scannedAt, admitted_offline: admitted });
    const plain = await org.live.post('/access-logs', { visitor_name: 'Ada Obi', visitor_phone: '+2348031113333' });
    expect(plain.body.access_log.admitted_offline).toBeNull();

    const inside = (await org.live.get('/access-logs/current-visitors')).body.visitors as Array<{ log_id: string; admitted_offline: unknown }>;
    expect(inside.find((visitor) => visitor.log_id === made.body.access_log.log_id)!.admitted_offline).toEqual(admitted);
    expect(inside.find((visitor) => visitor.log_id === plain.body.access_log.log_id)!.admitted_offline).toBeNull();

    const events = (await org.live.get('/events?type=visitor.excess_use')).body.results as Array<{ type: string; data: { log_id: string } }>;
    expect(events.map((event) => event.data.log_id)).toEqual([made.body.access_log.log_id]);
    // Never an access_code.* event: the code's own events stay the server's decisions.
    const codeEvents = (await org.live.get('/events?type=access_code.*')).body.results as unknown[];
    expect(codeEvents).toEqual([]);
  });

  it('a bad excess-use record is a 400 naming its field', async () => {
    const bad = await org.live.post('/access-logs', { visitor_name: 'Musa Bello', visitor_phone: '+2348031112222', admitted_offline: { code: '', scanned_at: 'yesterday', server_said: 'x' } });
    expectErrorBody(bad.body, 400, expect.stringContaining('admitted_offline.code'));
  });
});
