import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEALED_COLUMNS } from '../../server/secrets/store.ts';
import { proveKioskKey, rawPublicKeyOf } from '../../shared/node/kiosk-certificate.ts';
import { joinConsole } from '../support/console.ts';
import { freePort } from '../support/ports.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { joinStaff } from '../support/staff.ts';

/**
 * Rotation, the key check at start and the upgrade from a database-kept key reach exactly the
 * columns in SEALED_COLUMNS (server/secrets/store.ts). A sealed value in any other column would
 * stop opening once the old key is retired: a staff member who cannot sign in, a delivery report
 * refused. So: fill every kind of sealed value the product writes, then look in every column of
 * every table for a sealed value (`v2.<key id>.…`) and expect each such column to be listed.
 */
describe('every sealed value lives in a column that rotation re-seals', () => {
  let server: TestServer;

  beforeAll(async () => {
    const port = await freePort();
    // Texts queued for a gateway that is never reached: the rows are what matters here.
    server = await startTestServer({
      deliverTexts: false,
      config: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, SMS_GATEWAY: 'kannel', KANNEL_SENDSMS_URL: 'http://127.0.0.1:9/cgi-bin/sendsms', KANNEL_USERNAME: 'tsaro', KANNEL_PASSWORD: 'not-reached' },
    });
  });
  afterAll(() => server?.stop());

  it('after webhooks, passes, kiosk authorities, people, staff and texts have sealed theirs, no sealed value is anywhere else', async () => {
    const org = await server.createOrganization({ name: 'Shield Security' });
    expect((await org.live.post('/webhook-endpoints', { url: 'https://8.8.8.8/tsaro/hooks', events: ['incident.created'] })).status).toBe(201);
    const code = await org.live.post('/access-codes', { visitor_name: 'Chioma Eze', visitor_phone: '+2348031112222' });
    expect(code.status).toBe(201);
    expect((await org.live.post(`/access-codes/${code.body.access_code.code_id}/send`, {})).status).toBe(202);
    await joinConsole(server, org.organizationId, 'admin');
    await joinStaff(server, 'controller');
    // A gate kiosk's certificate makes its site's kiosk authority.
    const kioskId = 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB';
    const beat = { entry_point: 'Main gate', app_version: '0.1.0', queued_operations: 0, oldest_queued_at: null, last_sync_at: null, needs_attention: 0, clock: server.clock.now().toISOString() };
    expect((await org.live.request('PUT', `/kiosks/${kioskId}/heartbeat`, { body: beat })).status).toBe(200);
    const pair = generateKeyPairSync('ed25519');
    const publicKey = rawPublicKeyOf(pair.publicKey);
    expect((await org.live.post(`/kiosks/${kioskId}/certificate`, { public_key: publicKey, proof: proveKioskKey(pair.privateKey, kioskId, publicKey) })).status).toBe(200);

    const db = server.running.database.db;
    const found = new Set<string>();
    for (const table of await db.introspection.getTables()) {
      if (table.name.startsWith('kysely_')) continue;
      for (const column of table.columns) {
        if (!/char|text/i.test(column.dataType)) continue;
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table.name)} where ${sql.ref(column.name)} like 'v2.%'`.execute(db);
        if (Number(rows[0]!.n) > 0) found.add(`${table.name}.${column.name}`);
      }
    }
    const listed = new Set(SEALED_COLUMNS.map(({ table, column }) => `${table}.${column}`));
    // The workload reached the columns this test is about (else it proves nothing).
    for (const column of ['kiosk_authorities.private_key', 'people.totp_secret', 'staff.totp_secret', 'text_messages.dlr_token_sealed', 'text_messages.link_sealed', 'webhook_endpoints.secret']) expect(found).toContain(column);
    expect([...found].filter((column) => !listed.has(column))).toEqual([]);
  });
});
