/**
 * Section `operations`: the operations centre across two hosts on one PostgreSQL database
 * (issue #47). Host A takes the partner's SOS and runs the dispatch sweep (DISPATCH_WINDOW_S 1, so
 * nobody accepting escalates an incident within about two seconds); host B runs no sweep and
 * holds a controller's staff channel (GET /v1/staff/live). Reported:
 *
 *   1. the queue's update across hosts: from the moment host A escalated an incident (its timeline
 *      entry's timestamp, this machine's clock) until host B's staff channel carried the queue with
 *      it escalated, read by this process. BENCH_OPS_SAMPLES incidents (default 40, after 3 discarded),
 *      one at a time, each cancelled once seen; the channel is reopened after a random pause before
 *      each, so B's once-a-second reads fall anywhere in A's sweep's second. Aim: p99 < 2 s.
 *   2. manual dispatch to the phone: a verified responder on duty holds the app's long poll
 *      (GET /v1/responder/offers?wait=25) on host A; a controller on host B offers them a live
 *      incident (POST /v1/staff/incidents/{id}/offers); timed from sending the offer until the long
 *      poll answered with it (the offer bell: PostgreSQL NOTIFY, then one check). The same number of
 *      samples; each offer is declined and the incident cancelled before the next. Aim: p99 < 2 s.
 *
 * PostgreSQL only (several hosts). Environment: BENCH_OPS_SAMPLES, BENCH_POSTGRES_ADMIN_URL.
 */
import { createParser } from 'eventsource-parser';
import { generate } from 'otplib';
import { systemClock } from '../server/clock.ts';
import { openDatabase } from '../server/db/database.ts';
import { addResponder } from '../server/responders/service.ts';
import { inviteStaff } from '../server/staff/service.ts';
import { ConsoleBrowser, PASSWORD } from '../test/support/console.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase } from './lib/databases.ts';
import type { AimCheck, BenchSection, SectionContext } from './lib/section.ts';
import { intFromEnv, sleep } from './lib/settings.ts';
import { fmt, percentile, seededRandom } from './lib/stats.ts';

interface ServeReady {
  baseUrl: string;
  liveKey: string;
  pid: number;
}

const WARMUP = 3;
const AIM_MS = 2000;
/** The SOS: Lekki, Lagos. The responder of phase 2 stands in Abuja, beyond any automatic offer. */
const SOS = {
  category: 'sos',
  severity: 'critical',
  subject: { name: 'Bench Subject', phone: '+2348012345678' },
  location: { coordinates: [3.4739, 6.4474], address: 'Admiralty Way, Lekki' },
};
const ABUJA = { latitude: 9.0765, longitude: 7.4986 };

/** The partner's API on a host, with the owner's live key. */
function partnerCall(baseUrl: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

/** A controller invited from the host, joined with a password and an authenticator, signed in on host B. */
async function joinController(databaseUrl: string, hostB: string): Promise<ConsoleBrowser> {
  const origin = new URL(hostB).origin;
  const opened = openDatabase(databaseUrl, { poolSize: 1 });
  const { invite_url } = await inviteStaff({ db: opened.db, clock: systemClock, publicUrl: origin }, { email: 'bench-controller@tsaro.example', role: 'controller' }).finally(() => opened.close());
  const browser = new ConsoleBrowser(hostB.replace('/v1/external', '/v1/staff'), origin);
  const accepted = await browser.post(`/invitations/${invite_url.split('/').pop()}/accept`, { password: PASSWORD, name: 'Bench Controller' });
  if (accepted.status !== 201) throw new Error(`joining as staff: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const secret = (await browser.post('/totp/enrolment')).body.secret as string;
  const confirmed = await browser.post('/totp/enrolment/confirm', { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) }) });
  if (confirmed.status !== 200) throw new Error(`the second step: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return browser;
}

/** The staff channel as the console holds it: when each incident was first carried as escalated (Date.now()). */
async function openStaffChannel(browser: ConsoleBrowser): Promise<{ escalatedAt: Map<string, number>; close(): void }> {
  const abort = new AbortController();
  const response = await fetch(`${browser.baseUrl}/live`, { headers: { cookie: browser.cookie!, origin: browser.origin }, signal: abort.signal });
  if (response.status !== 200) throw new Error(`GET /v1/staff/live: ${response.status}`);
  const escalatedAt = new Map<string, number>();
  const parser = createParser({
    onEvent(event) {
      if (event.event !== 'queue' && event.event !== 'snapshot') return;
      const at = Date.now();
      for (const item of (JSON.parse(event.data) as { queue: { incident_id: string; status: string }[] }).queue) {
        if (item.status === 'escalated' && !escalatedAt.has(item.incident_id)) escalatedAt.set(item.incident_id, at);
      }
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // closed
    }
  })();
  return { escalatedAt, close: () => abort.abort() };
}

async function until<T>(look: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(10);
  }
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
};

export const operationsSection: BenchSection = {
  name: 'operations',
  description: "The operations centre on two PostgreSQL hosts: an escalation on host A to the staff channel on host B, and a controller's offer on B to the phone's long poll on A (p99)",
  async run(context: SectionContext) {
    const samples = intFromEnv('BENCH_OPS_SAMPLES', 40, 1);
    const notes: string[] = [];
    const aims: AimCheck[] = [];
    const database = await createEngineDatabase('postgres', (line) => notes.push(line), 'operations');
    if (!database) return { name: 'operations', rows: [], aims, notes };
    const children: BenchChild<unknown>[] = [];
    let channel: { close(): void } | undefined;
    try {
      const quiet = { DATABASE_URL: database.url, BENCH_DISPATCH_WINDOW_S: '1', BENCH_LOG_DEST: '/dev/null' };
      const hostA = await startChild<ServeReady>('tsaro host A', { script: 'bench/serve.ts', env: quiet });
      children.push(hostA);
      const hostB = await startChild<ServeReady>('tsaro host B', { script: 'bench/serve.ts', env: { ...quiet, BENCH_SERVE_ORGANIZATION: '0', BENCH_SERVE_RUN_DISPATCH: '0' } });
      children.push(hostB);
      const partner = partnerCall(hostA.ready.baseUrl, hostA.ready.liveKey);
      const controller = await joinController(database.url, hostB.ready.baseUrl);

      const newSos = async () => {
        const created = await partner('POST', '/incidents', SOS);
        if (created.status !== 201) throw new Error(`POST /incidents: ${created.status} ${JSON.stringify(created.body)}`);
        return created.body.incident.incident_id as string;
      };
      const cancel = (incidentId: string) => partner('POST', `/incidents/${incidentId}/cancel`, {});

      context.log(`[operations] ${samples} escalations on host A, read on host B's staff channel`);
      const queueMs: number[] = [];
      const random = seededRandom(47);
      for (let i = 0; i < samples + WARMUP; i++) {
        // Host A's sweep and host B's channel both run once a second: reopened after a random pause,
        // B's reads fall anywhere in A's second, as a controller's screen opened at any time does.
        channel?.close();
        await sleep(50 + Math.round(random() * 1000));
        const staffChannel = await openStaffChannel(controller);
        channel = staffChannel;
        const incidentId = await newSos();
        const seenAt = await until(() => staffChannel.escalatedAt.get(incidentId), 15_000, `escalation of ${incidentId} on host B's channel`);
        const timeline = (await partner('GET', `/incidents/${incidentId}`)).body.incident.timeline as { event: string; timestamp: string }[];
        const escalated = timeline.find((entry) => entry.event === 'escalated');
        if (!escalated) throw new Error(`${incidentId}: carried as escalated with no escalation in its timeline`);
        if (i >= WARMUP) queueMs.push(seenAt - Date.parse(escalated.timestamp));
        await cancel(incidentId);
      }

      context.log(`[operations] ${samples} offers by a controller on host B to a phone waiting on host A`);
      const opened = openDatabase(database.url, { poolSize: 1 });
      const { responder, token } = await addResponder(opened.db, systemClock, { name: 'Bench Phone', phone: '+2348030009999', ...ABUJA, environment: 'live' }).finally(() => opened.close());
      const phone = (method: string, path: string, body?: unknown) =>
        fetch(hostA.ready.baseUrl.replace('/v1/external', '/v1/responder') + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
      const onDuty = await phone('PUT', '/availability', { available: true, ...ABUJA });
      if (onDuty.status !== 200) throw new Error(`PUT /availability: ${onDuty.status}`);
      const offerMs: number[] = [];
      const offerAnswerMs: number[] = [];
      for (let i = 0; i < samples + WARMUP; i++) {
        const incidentId = await newSos();
        const waiting = phone('GET', '/offers?wait=25').then((answer) => ({ answer, at: performance.now() }));
        // The long poll reads once, then waits on the bell: let it get there.
        await sleep(300);
        const sentAt = performance.now();
        const offered = await controller.post(`/incidents/${incidentId}/offers`, { responder_id: responder.responder_id });
        const answeredAt = performance.now();
        if (offered.status !== 201) throw new Error(`POST /v1/staff/incidents/${incidentId}/offers: ${offered.status} ${JSON.stringify(offered.body)}`);
        const { answer, at } = await waiting;
        const offers = answer.body.offers as { offer_id: string; incident: { incident_id: string } }[];
        const mine = offers.find((offer) => offer.incident.incident_id === incidentId);
        if (!mine) throw new Error(`the long poll answered without the offer of ${incidentId}: ${JSON.stringify(answer.body)}`);
        if (i >= WARMUP) {
          offerMs.push(at - sentAt);
          offerAnswerMs.push(answeredAt - sentAt);
        }
        await phone('POST', `/offers/${mine.offer_id}/decline`, { reason: 'bench' });
        await cancel(incidentId);
      }

      const queue = summary(queueMs);
      const offer = summary(offerMs);
      const offerAnswer = summary(offerAnswerMs);
      aims.push({ aim: `escalation on host A → host B's staff channel, p99 < ${AIM_MS} ms`, engine: 'postgres', actual: `${fmt(queue.p99)} ms`, met: queue.p99 < AIM_MS });
      aims.push({ aim: `controller's offer on host B → the phone's long poll on host A answers, p99 < ${AIM_MS} ms`, engine: 'postgres', actual: `${fmt(offer.p99)} ms`, met: offer.p99 < AIM_MS });
      notes.push(
        "The staff channel's reader on each host reads the network once a second while a staff stream is open there, so the queue's update is bounded by that second plus the read and the fan-out.",
        "The phone's long poll waits on its host's offer bell: host B's offer commits, PostgreSQL NOTIFYs tsaro_offers, host A checks its waiting phones 15 ms later and answers.",
      );
      const row = (label: string, s: ReturnType<typeof summary>) => [label, fmt(samples), fmt(s.p50), fmt(s.p90), fmt(s.p99), fmt(s.max)];
      return {
        name: 'operations',
        rows: [],
        aims,
        notes,
        tables: [
          {
            title: 'The operations centre across two PostgreSQL hosts (ms)',
            header: ['path', 'samples', 'p50', 'p90', 'p99', 'max'],
            rows: [
              row("escalated on A → the queue on B's staff channel", queue),
              row("controller's offer sent on B → the phone's waiting request on A answers", offer),
              row('(the offer request itself, on B)', offerAnswer),
            ],
          },
        ],
        data: { samples, queueMs: queue, offerMs: offer, offerRequestMs: offerAnswer },
      };
    } finally {
      channel?.close();
      for (const child of children.reverse()) await child.stop();
      await database.drop().catch((err: unknown) => context.log(`[operations] could not drop the database: ${String(err)}`));
    }
  },
};
