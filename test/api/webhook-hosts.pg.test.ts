import { describe, expect, it } from 'vitest';
import { ApiClient, incidentBody, startTestServer } from '../support/server.ts';
import { ManualClock } from '../support/clock.ts';
import { cleanups, Receiver, ownDatabase, createEndpoint, undoAfterEachTest } from '../support/webhook-durability.ts';

/** Several hosts on one PostgreSQL database deliver one queue: no event reaches the receiver twice. */
undoAfterEachTest();

describe('two hosts delivering one queue (PostgreSQL)', () => {
  it('200 events delivered by two servers at once reach the receiver exactly once each', { timeout: 60_000 }, async () => {
    const database = await ownDatabase();
    const clock = new ManualClock();
    const hostA = await startTestServer({ database, clock, deliverWebhooks: false });
    cleanups.push(() => hostA.stop());
    const hostB = await startTestServer({ database, clock, deliverWebhooks: false });
    cleanups.push(() => hostB.stop());
    // A few milliseconds per answer keeps both hosts' passes in flight together.
    const receiver = await Receiver.start({ mode: 'ok', delayMs: 3 });
    const org = await hostA.createOrganization();
    await createEndpoint(org.sandbox, receiver.url);

    const viaB = new ApiClient(hostB.baseUrl, org.keys.sandbox);
    for (let i = 0; i < 200; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) => ((i + j) % 2 ? viaB : org.sandbox).post('/incidents', incidentBody()));
      for (const res of await Promise.all(batch)) expect(res.status).toBe(201);
    }
    const events = await hostA.running.database.db.selectFrom('events').select('event_id').where('type', '=', 'incident.created').execute();
    expect(events).toHaveLength(200);

    const attempted = { a: 0, b: 0 };
    for (let pass = 0; ; pass++) {
      expect(pass).toBeLessThan(50);
      const [a, b] = await Promise.all([hostA.running.deliverWebhooks(), hostB.running.deliverWebhooks()]);
      attempted.a += a;
      attempted.b += b;
      if (a === 0 && b === 0) break;
    }

    const ids = receiver.arrivals.map((arrival) => arrival.eventId);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(new Set(ids)).toEqual(new Set(events.map((event) => event.event_id)));
    expect(receiver.arrivals.every((arrival) => arrival.outcome === 200)).toBe(true);
    // Both hosts did part of the work, and together no more than the whole.
    expect(attempted.a).toBeGreaterThan(0);
    expect(attempted.b).toBeGreaterThan(0);
    expect(attempted.a + attempted.b).toBe(200);
    const jobs = await hostA.running.database.db.selectFrom('webhook_jobs').select(['state', 'attempts']).execute();
    expect(jobs.every((job) => job.state === 'succeeded' && Number(job.attempts) === 1)).toBe(true);
    const deliveries = await hostA.running.database.db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(deliveries).toHaveLength(200);
  });
});
