import { describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { ApiClient } from '../support/server.ts';
import { sleep, waitFor, Receiver, startServerProcess, openOwnHandle, ownDatabase, sandboxKey, createEndpoint, createIncident, jobsOf, deliveriesOf, expectTheEvent, undoAfterEachTest } from '../support/webhook-durability.ts';

/**
 * "A delivery survives a restart": the real server (`server/main.ts`, as `npm start` runs it) is
 * killed with SIGKILL between the change and a successful delivery, started again on the same
 * database, and a real receiver on loopback gets the event exactly once.
 */
undoAfterEachTest();

describe('webhook deliveries survive a crash of the server (SIGKILL, then a restart on the same database)', () => {
  it('killed while the delivery is in flight: after the restart the event arrives once, with its id', { timeout: 180_000 }, async () => {
    const database = await ownDatabase();
    // The receiver takes the first attempt and holds it: the server has claimed the job and is
    // waiting for an answer when it is killed.
    const receiver = await Receiver.start({ mode: 'hold' });
    const first = await startServerProcess(database.url);
    const handle = openOwnHandle(database.url);
    const key = await sandboxKey(handle);
    const { secret } = await createEndpoint(new ApiClient(first.baseUrl, key), receiver.url);
    const { incidentId, eventId } = await createIncident(new ApiClient(first.baseUrl, key));

    await waitFor('the first attempt to reach the receiver', () => receiver.arrivals.length === 1);
    expect(receiver.arrivals[0]!.eventId).toBe(eventId);
    await first.kill();
    await waitFor('the receiver to see the sender go away', () => receiver.arrivals[0]!.outcome === 'aborted');

    // What the crash left: the job, claimed under a 60 s lease by a process that is gone, and no
    // attempt recorded.
    const [job] = await jobsOf(handle, eventId);
    expect(job).toMatchObject({ state: 'pending', attempts: 0 });
    expect(job!.locked_until! > new Date().toISOString()).toBe(true);
    expect(await deliveriesOf(handle, eventId)).toEqual([]);
    // The lease is what keeps two live hosts off one job; here its holder is dead and another
    // host would take the job once it runs out (60 s). The test does not wait a minute: it moves
    // the lease's end into the past, as if that minute had gone by.
    await handle.db.updateTable('webhook_jobs').set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where('job_id', '=', job!.job_id).execute();

    receiver.mode = 'ok';
    const second = await startServerProcess(database.url);
    await waitFor('the delivery after the restart', () => receiver.accepted(eventId).length > 0);
    await sleep(2_500); // two more polls of the worker: a second delivery would show here
    expect(receiver.accepted(eventId)).toHaveLength(1);
    expect(receiver.arrivals.map((arrival) => [arrival.eventId, arrival.outcome])).toEqual([
      [eventId, 'aborted'],
      [eventId, 200],
    ]);
    await expectTheEvent(receiver.accepted(eventId)[0]!, { eventId, incidentId, secret });

    const [after] = await jobsOf(handle, eventId);
    expect(after).toMatchObject({ state: 'succeeded', attempts: 1, locked_until: null });
    const deliveries = await deliveriesOf(handle, eventId);
    expect(deliveries.map((d) => [d.attempt, d.status, d.response_status])).toEqual([[1, 'succeeded', 200]]);
    await second.kill();
  });

  it('killed while the receiver is down: attempts made before the crash count, and the event arrives once after the restart', { timeout: 180_000 }, async () => {
    const database = await ownDatabase();
    const port = await freePort();
    const first = await startServerProcess(database.url);
    const handle = openOwnHandle(database.url);
    const key = await sandboxKey(handle);
    const { secret } = await createEndpoint(new ApiClient(first.baseUrl, key), `http://127.0.0.1:${port}/hooks`);
    const { incidentId, eventId } = await createIncident(new ApiClient(first.baseUrl, key));

    await waitFor('a failed attempt (connection refused)', async () => (await deliveriesOf(handle, eventId)).length > 0);
    await first.kill();

    const before = await deliveriesOf(handle, eventId);
    // Every attempt failed without an answer (a row that shows one names what answered).
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(before.filter((d) => d.status !== 'failed' || d.response_status !== null)).toEqual([]);
    const [job] = await jobsOf(handle, eventId);
    expect(job!.state).toBe('pending');
    expect(Number(job!.attempts)).toBeGreaterThanOrEqual(1);
    // The next attempt is due at once after a first failure, but 30 s later after a second one
    // (and a lease holds the job for 60 s if the kill hit an attempt in flight). The test does not
    // wait that out: it moves the job's times to now, as if they had passed.
    await handle.db
      .updateTable('webhook_jobs')
      .set({ next_attempt_at: new Date().toISOString(), locked_until: null })
      .where('job_id', '=', job!.job_id)
      .execute();

    const receiver = await Receiver.start({ mode: 'ok', port });
    const second = await startServerProcess(database.url);
    await waitFor('the delivery after the restart', () => receiver.accepted(eventId).length > 0);
    await sleep(2_500);
    expect(receiver.arrivals).toHaveLength(1);
    expect(receiver.accepted(eventId)).toHaveLength(1);
    await expectTheEvent(receiver.arrivals[0]!, { eventId, incidentId, secret });

    const [after] = await jobsOf(handle, eventId);
    expect(after).toMatchObject({ state: 'succeeded', attempts: Number(job!.attempts) + 1 });
    const last = (await deliveriesOf(handle, eventId)).at(-1)!;
    expect(last).toMatchObject({ attempt: Number(job!.attempts) + 1, status: 'succeeded', response_status: 200 });
    await second.kill();
  });
});
