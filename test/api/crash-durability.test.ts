import { describe, expect, it } from 'vitest';
import { systemClock } from '../../server/clock.ts';
import { changeOrganization, createOrganization } from '../../server/organizations/service.ts';
import { incidentBody } from '../support/server.ts';
import { openOwnHandle, ownDatabase, startServerProcess, undoAfterEachTest, waitFor } from '../support/webhook-durability.ts';

/**
 * "Nothing a client was told succeeded is ever lost": the real server process (`server/main.ts`)
 * is killed with SIGKILL while 24 clients write as fast as it answers; every request it answered
 * 2xx is then found in the database, with its stored answer when it carried an Idempotency-Key,
 * and a retry of it on a new server replays instead of writing twice. (SIGKILL loses the
 * process, not the operating system's cache: power loss is what `synchronous=FULL` and
 * PostgreSQL's WAL flush cover, and both are kept.)
 */
describe('crash durability: acknowledged = stored', () => {
  undoAfterEachTest();

  it('SIGKILL under concurrent writes loses no acknowledged incident', { timeout: 180_000 }, async () => {
    const database = await ownDatabase();
    const server = await startServerProcess(database.url);
    const handle = openOwnHandle(database.url);
    const created = await createOrganization(handle.db, systemClock, { name: 'Crash Estate', plan: 'enterprise' });
    await changeOrganization(handle.db, systemClock, created.organization.organization_id, { rateLimitPerMinute: 1_000_000 });
    const key = created.keys.live.secret;

    const acknowledged: { incidentId: string; idempotencyKey?: string; body: string }[] = [];
    let sent = 0;
    let stopping = false;
    const client = async (worker: number) => {
      for (let i = 0; !stopping; i++) {
        const idempotencyKey = i % 2 === 0 ? `crash-${worker}-${i}` : undefined;
        const body = JSON.stringify(incidentBody({ description: `worker ${worker} request ${i}` }));
        sent++;
        try {
          const res = await fetch(`${server.baseUrl}/incidents`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
            },
            body,
          });
          const text = await res.text();
          if (res.status === 201) acknowledged.push({ incidentId: JSON.parse(text).incident.incident_id, idempotencyKey, body });
        } catch {
          return; // the server is gone: this request was never acknowledged
        }
      }
    };
    const clients = Array.from({ length: 24 }, (_, worker) => client(worker));
    await waitFor('200 acknowledged writes', () => acknowledged.length >= 200, 60_000);
    await server.kill(); // SIGKILL with requests in flight
    stopping = true;
    await Promise.all(clients);
    const answered = acknowledged.length;
    expect(sent).toBeGreaterThan(answered); // some were in flight when the process died

    const stored = new Set(
      (await handle.db.selectFrom('incidents').select('incident_id').where('organization_id', '=', created.organization.organization_id).execute()).map(
        (row) => row.incident_id,
      ),
    );
    const lost = acknowledged.filter((ack) => !stored.has(ack.incidentId));
    expect(lost).toEqual([]);
    const keyed = acknowledged.filter((ack) => ack.idempotencyKey);
    const answers = await handle.db
      .selectFrom('idempotency_requests')
      .select(['idempotency_key', 'state'])
      .where('organization_id', '=', created.organization.organization_id)
      .execute();
    const complete = new Set(answers.filter((row) => row.state === 'complete').map((row) => row.idempotency_key));
    expect(keyed.filter((ack) => !complete.has(ack.idempotencyKey!))).toEqual([]);
    // Nothing half-done: no claim is left in flight by the requests the crash cut off.
    expect(answers.filter((row) => row.state !== 'complete')).toEqual([]);

    // A client retrying an acknowledged request on the restarted server gets the same incident.
    const restarted = await startServerProcess(database.url);
    for (const ack of keyed.slice(-5)) {
      const retry = await fetch(`${restarted.baseUrl}/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': ack.idempotencyKey! },
        body: ack.body,
      });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(((await retry.json()) as { incident: { incident_id: string } }).incident.incident_id).toBe(ack.incidentId);
    }
  });
});
