import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../shared/webhooks.ts';
import { freePort } from '../support/ports.ts';
import { Receiver, undoAfterEachTest } from '../support/webhook-durability.ts';
import { incidentBody, startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * "Webhooks keep trying": at once, again at once, +30 s, +5 min, then hourly until 72 hours
 * after the event. WEBHOOK_RETRY_SCALE=3600 makes an hour of that schedule one second of the
 * server's (hand-moved) clock, so three days of retries are walked through here attempt by
 * attempt, against a real receiver on loopback.
 */
const SCALE = 3600;
const scheduleHour = 3_600_000 / SCALE;

let server: TestServer;
let org: TestOrganization;
undoAfterEachTest();
beforeAll(async () => {
  server = await startTestServer({ deliverWebhooks: false, config: { WEBHOOK_RETRY_SCALE: String(SCALE), WEBHOOK_TIMEOUT_S: '2' } });
  org = await server.createOrganization({ name: 'Retry Estate' });
});
afterAll(() => server?.stop());

const db = () => server.running.database.db;
const jobsOf = (endpointId: string) => db().selectFrom('webhook_jobs').selectAll().where('endpoint_id', '=', endpointId).execute();

async function register(url: string): Promise<{ endpointId: string; secret: string }> {
  const res = await org.sandbox.post('/webhook-endpoints', { url, events: ['incident.created'] });
  expect(res.status).toBe(201);
  return { endpointId: res.body.webhook_endpoint.endpoint_id, secret: res.body.secret };
}

async function deliveryLog(endpointId: string) {
  const res = await org.sandbox.get(`/webhook-endpoints/${endpointId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.results as { event_id: string; attempt: number; status: string; attempted_at: string; next_attempt_at: string | null }[])
    .slice()
    .sort((a, b) => a.event_id.localeCompare(b.event_id) || a.attempt - b.attempt);
}

/** Moves the clock to the earliest pending attempt of this endpoint and sends what is due; false when nothing is pending. */
async function nextAttempt(endpointId: string): Promise<boolean> {
  const pending = (await jobsOf(endpointId)).filter((job) => job.state === 'pending');
  if (!pending.length) return false;
  const due = Math.min(...pending.map((job) => Date.parse(job.next_attempt_at)));
  if (due > server.clock.now().getTime()) server.clock.set(new Date(due).toISOString());
  await server.running.deliverWebhooks();
  return true;
}

describe('a webhook receiver that is down (WEBHOOK_RETRY_SCALE=3600)', () => {
  it('down for an hour: every event still arrives, once, after the failed attempts the log shows', async () => {
    const port = await freePort();
    const { endpointId, secret } = await register(`http://127.0.0.1:${port}/hooks`);
    const t0 = server.clock.now().getTime();
    const eventIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await org.sandbox.post('/incidents', incidentBody({ description: `event ${i}` }));
      expect(created.status).toBe(201);
      const events = await org.sandbox.get(`/events?type=incident.created&resource_id=${created.body.incident.incident_id}`);
      eventIds.push(events.body.results[0].id);
    }
    // The receiver is down for one hour of schedule: every attempt in it fails.
    while (server.clock.now().getTime() < t0 + scheduleHour) {
      const pending = (await jobsOf(endpointId)).filter((job) => job.state === 'pending');
      expect(pending).toHaveLength(3);
      const due = Math.min(...pending.map((job) => Date.parse(job.next_attempt_at)));
      if (due >= t0 + scheduleHour) break;
      await nextAttempt(endpointId);
    }
    const duringOutage = await deliveryLog(endpointId);
    // At once, at once, +30 s, +5 min, and (jitter permitting) a first hourly one: all failed.
    for (const eventId of eventIds) {
      const attempts = duringOutage.filter((d) => d.event_id === eventId);
      expect(attempts.length).toBeGreaterThanOrEqual(4);
      expect(attempts.length).toBeLessThanOrEqual(5);
      expect(attempts.every((d) => d.status === 'failed')).toBe(true);
      const third = Math.round(30_000 / SCALE);
      expect(attempts.slice(0, 4).map((d) => Date.parse(d.attempted_at) - t0)).toEqual([0, 0, third, Math.round(third + 300_000 / SCALE)]);
    }

    // Back up on the same port: the next (hourly) attempt delivers each event.
    const receiver = await Receiver.start({ port });
    for (let i = 0; i < 10 && (await nextAttempt(endpointId)); i++);
    for (const eventId of eventIds) {
      const accepted = receiver.accepted(eventId);
      expect(accepted).toHaveLength(1);
      const now = Math.floor(server.clock.now().getTime() / 1000);
      expect(await verifyWebhookSignature(accepted[0]!.rawBody, accepted[0]!.signature, secret, { now })).toBe(true);
    }
    expect(receiver.arrivals).toHaveLength(3);
    const log = await deliveryLog(endpointId);
    for (const eventId of eventIds) {
      const attempts = log.filter((d) => d.event_id === eventId);
      const succeeded = attempts.at(-1)!;
      expect(attempts.slice(0, -1).every((d) => d.status === 'failed')).toBe(true);
      expect(succeeded.status).toBe('succeeded');
      expect(Date.parse(succeeded.attempted_at)).toBeGreaterThanOrEqual(t0 + scheduleHour);
      const hourly = Date.parse(succeeded.attempted_at) - Date.parse(attempts.at(-2)!.attempted_at);
      expect(hourly).toBeGreaterThanOrEqual(0.9 * scheduleHour - 1);
      expect(hourly).toBeLessThanOrEqual(1.1 * scheduleHour + 1);
    }
    expect((await jobsOf(endpointId)).map((job) => job.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('down for good: tried about hourly until 72 hours after the event, then marked failed and never tried again', async () => {
    const { endpointId } = await register(`http://127.0.0.1:${await freePort()}/hooks`);
    const t0 = server.clock.now().getTime();
    expect((await org.sandbox.post('/incidents', incidentBody())).status).toBe(201);
    let passes = 0;
    while (await nextAttempt(endpointId)) expect(++passes).toBeLessThan(200);

    const [job] = await jobsOf(endpointId);
    expect(job).toMatchObject({ state: 'failed', locked_until: null });
    const log = await deliveryLog(endpointId);
    expect(log).toHaveLength(Number(job!.attempts));
    // Four quick attempts, then one every 54-66 minutes of schedule for the rest of 72 hours.
    expect(log.length).toBeGreaterThanOrEqual(4 + Math.floor((72 * 60 - 6) / 66));
    expect(log.length).toBeLessThanOrEqual(4 + Math.ceil((72 * 60) / 54));
    expect(log.every((d) => d.status === 'failed')).toBe(true);
    expect(log.map((d) => d.attempt)).toEqual(log.map((_, i) => i + 1));
    const last = log.at(-1)!;
    expect(last.next_attempt_at).toBeNull();
    expect(Date.parse(last.attempted_at)).toBeLessThanOrEqual(t0 + 72 * scheduleHour);
    expect(Date.parse(last.attempted_at)).toBeGreaterThan(t0 + 71 * scheduleHour - 0.1 * scheduleHour);
    for (const [i, d] of log.slice(0, -1).entries()) expect(d.next_attempt_at).toBe(log[i + 1]!.attempted_at);

    // Days later, nothing more is attempted.
    server.clock.advance(240 * scheduleHour);
    await server.running.deliverWebhooks();
    expect(await deliveryLog(endpointId)).toHaveLength(log.length);
    expect((await jobsOf(endpointId)).map((j) => j.state)).toEqual(['failed']);
  });
});
