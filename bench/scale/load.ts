/**
 * Issue #45's aims on a generated year, under load:
 *
 * - **Reads**: each list's first page, each filter alone, a search, a cursor page a year deep, and
 *   the stats, analytics and reports over a year, each for `BENCH_SCALE_LOAD_S` seconds with 10
 *   connections (autocannon): p50, p99 and the rate. Aims: lists p99 under 50 ms, reports under
 *   100 ms; the small organization's as on an empty database (bench `http-api` figures).
 * - **The SOS first**: SOSs sent at a steady 50 a second (an open loop: one every 20 ms whatever
 *   the answers, so a slow server queues them as real panics would queue), alone and then while
 *   20 connections run the heaviest reads (search, stats, deep pages, reports) without pause; the
 *   same for code validations. Aims: p99 under 50 ms with the reads, and within 1.5x of alone.
 */
import { Agent, request } from 'undici';
import { ACTIVE_INCIDENT_STATUSES } from '../../shared/schemas/incidents.ts';
import { measure, type LoadMeasurement } from '../lib/load.ts';
import { percentile } from '../lib/stats.ts';
import type { GeneratedOrganization, Probes } from './generate.ts';

const q = encodeURIComponent;

export interface LoadRequest {
  name: string;
  organization: 'big' | 'small';
  kind: 'list' | 'report';
  path(probes: Probes & { deepCursor: string }): string;
}

/** A year back from now: the reports' window. */
const yearAgo = () => new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);

export const LOAD_REQUESTS: LoadRequest[] = [
  { name: 'GET /access-logs', organization: 'big', kind: 'list', path: () => '/access-logs' },
  { name: '  ?status=checked_in', organization: 'big', kind: 'list', path: () => '/access-logs?status=checked_in' },
  { name: '  ?entry_point=<a gate>', organization: 'big', kind: 'list', path: (p) => `/access-logs?entry_point=${q(p.entryPoint ?? 'Main Gate')}` },
  { name: '  ?visitor_phone=<a phone>', organization: 'big', kind: 'list', path: (p) => `/access-logs?visitor_phone=${q(p.visitorPhone)}` },
  { name: '  ?from_date&to_date (a month)', organization: 'big', kind: 'list', path: () => `/access-logs?from_date=${monthAgo()}&to_date=${today()}` },
  { name: '  ?search=<a visitor\u2019s name>', organization: 'big', kind: 'list', path: (p) => `/access-logs?search=${q(p.visitorName)}` },
  { name: '  ?cursor=<half a year deep>', organization: 'big', kind: 'list', path: (p) => `/access-logs?cursor=${q(p.deepCursor)}` },
  { name: '  ?page=<half a year deep> (offset)', organization: 'big', kind: 'list', path: (p) => `/access-logs?page=${p.deepPage}` },
  { name: 'GET /incidents', organization: 'big', kind: 'list', path: () => '/incidents' },
  { name: '  ?status=resolved', organization: 'big', kind: 'list', path: () => '/incidents?status=resolved' },
  { name: '  ?category=medical', organization: 'big', kind: 'list', path: () => '/incidents?category=medical' },
  { name: '  ?severity=high', organization: 'big', kind: 'list', path: () => '/incidents?severity=high' },
  { name: '  ?search=<a subject>', organization: 'big', kind: 'list', path: (p) => `/incidents?search=${q(p.visitorName.split(' ')[0]!)}` },
  { name: 'GET /access-codes', organization: 'big', kind: 'list', path: () => '/access-codes' },
  { name: '  ?status=active', organization: 'big', kind: 'list', path: () => '/access-codes?status=active' },
  { name: 'GET /events', organization: 'big', kind: 'list', path: () => '/events' },
  { name: '  ?type=visitor.arrived', organization: 'big', kind: 'list', path: () => '/events?type=visitor.arrived' },
  { name: 'GET /audit-log', organization: 'big', kind: 'list', path: () => '/audit-log' },
  { name: 'GET /messages', organization: 'big', kind: 'list', path: () => '/messages' },
  { name: 'GET /access-logs/stats (a year)', organization: 'big', kind: 'report', path: () => `/access-logs/stats?from_date=${yearAgo()}` },
  { name: 'GET /access-codes/stats (a year)', organization: 'big', kind: 'report', path: () => `/access-codes/stats?from_date=${yearAgo()}` },
  { name: 'GET /incidents/analytics (a year)', organization: 'big', kind: 'report', path: () => `/incidents/analytics?from_date=${yearAgo()}` },
  { name: 'GET /incidents/analytics (Lagos days)', organization: 'big', kind: 'report', path: () => `/incidents/analytics?from_date=${yearAgo()}T23:00:00Z&to_date=${today()}T23:00:00Z` },
  { name: 'small: GET /access-logs', organization: 'small', kind: 'list', path: () => '/access-logs' },
  { name: 'small: ?search=<a name>', organization: 'small', kind: 'list', path: (p) => `/access-logs?search=${q(p.visitorName)}` },
  { name: 'small: GET /incidents', organization: 'small', kind: 'list', path: () => '/incidents' },
  { name: 'small: GET /access-logs/stats', organization: 'small', kind: 'report', path: () => '/access-logs/stats' },
];

const today = () => new Date().toISOString().slice(0, 10);
const monthAgo = () => new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);

export interface LoadRow {
  request: LoadRequest;
  measurement: LoadMeasurement;
}

/** A cursor half a year deep: the `next_cursor` of the page in the middle (read once, by its offset). */
export async function deepCursor(baseUrl: string, organization: GeneratedOrganization): Promise<string> {
  const answer = await fetch(`${baseUrl}/access-logs?page=${organization.probes.deepPage}`, { headers: { authorization: `Bearer ${organization.liveKey}` } });
  const body = (await answer.json()) as { next_cursor?: string };
  if (!body.next_cursor) throw new Error(`no cursor half a year deep (${answer.status})`);
  return body.next_cursor;
}

/** Each request of `LOAD_REQUESTS` with 10 connections for `durationS`. */
export async function loadReads(baseUrl: string, organizations: Record<'big' | 'small', GeneratedOrganization>, durationS: number, log: (line: string) => void): Promise<LoadRow[]> {
  const cursors = { big: await deepCursor(baseUrl, organizations.big), small: '' };
  const rows: LoadRow[] = [];
  for (const request of LOAD_REQUESTS) {
    const organization = organizations[request.organization];
    const path = request.path({ ...organization.probes, deepCursor: cursors[request.organization] });
    const measurement = await measure({ url: baseUrl + path, headers: { authorization: `Bearer ${organization.liveKey}` } }, { connections: 10, durationS, warmupS: 1 });
    log(`${request.name}: p99 ${measurement.latencyMs.p99} ms, ${Math.round(measurement.requestsPerSecond)}/s, ${measurement.non2xx} not 2xx`);
    rows.push({ request, measurement });
  }
  return rows;
}

/** The heaviest reads, which 20 connections run without pause beside the SOSs. */
export function heaviestReads(baseUrl: string, organization: GeneratedOrganization, cursor: string): string[] {
  const p = organization.probes;
  return [
    `/access-logs?search=${q(p.visitorName)}`,
    `/access-logs?search=${q(p.visitorPhone.slice(-6))}`,
    `/access-logs/stats?from_date=${yearAgo()}`,
    `/incidents/analytics?from_date=${yearAgo()}`,
    `/access-logs?cursor=${q(cursor)}`,
    `/access-logs?page=${p.deepPage}`,
    `/incidents?search=${q(p.visitorName.split(' ')[0]!)}`,
    `/access-codes/stats?from_date=${yearAgo()}`,
  ].map((path) => baseUrl + path);
}

export interface OpenLoop {
  sent: number;
  answered: number;
  failed: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  /** Every answer's milliseconds, in order. */
  latencies: number[];
}

/**
 * Requests at a steady `perSecond` for `durationS` (an open loop: sent on the clock, not after an
 * answer), each timed from send to the whole answer read.
 */
export async function openLoop(
  make: (n: number) => { url: string; method: 'POST' | 'GET'; headers: Record<string, string>; body?: string },
  perSecond: number,
  durationS: number,
  onBody?: (text: string) => void,
): Promise<OpenLoop> {
  const agent = new Agent({ connections: 256, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let failed = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const total = perSecond * durationS;
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    const { url, ...init } = make(n);
    pending.push(
      request(url, { ...init, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 }).then(
        async (answer) => {
          if (onBody) onBody(await answer.body.text());
          else await answer.body.dump();
          latencies.push(performance.now() - sent);
          statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  await agent.close();
  const sorted = [...latencies].sort((a, b) => a - b);
  return { sent: total, answered: latencies.length, failed, statuses, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0, latencies: sorted };
}

/** An SOS of the big organization, each with its own Idempotency-Key. */
export function sosOf(baseUrl: string, organization: GeneratedOrganization, run: string) {
  return (n: number) => ({
    url: `${baseUrl}/incidents`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${organization.liveKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-sos-${run}-${n}` },
    body: JSON.stringify({
      category: 'sos',
      severity: 'critical',
      subject: { name: 'Bench Subject', phone: '+2348030000000' },
      location: { coordinates: [3.42 + (n % 50) / 1000, 6.44 + (n % 37) / 1000] },
    }),
  });
}

/** The organization's first page of visits (the small organization's, beside the big one's readers). */
export function firstPageOf(baseUrl: string, organization: GeneratedOrganization) {
  return () => ({ url: `${baseUrl}/access-logs`, method: 'GET' as const, headers: { authorization: `Bearer ${organization.liveKey}` } });
}

/** Validations of the given codes (each of many uses), in turn. */
export function validationOf(baseUrl: string, organization: GeneratedOrganization, codes: string[], keyPrefix?: string) {
  return (n: number) => ({
    url: `${baseUrl}/access-codes/validate`,
    method: 'POST' as const,
    // With `keyPrefix`, each validation carries an Idempotency-Key of its own, as a kiosk's does.
    headers: { authorization: `Bearer ${organization.liveKey}`, 'content-type': 'application/json', ...(keyPrefix && { 'idempotency-key': `${keyPrefix}-${n}` }) },
    body: JSON.stringify({ code: codes[n % codes.length], entry_point: 'Main Gate' }),
  });
}

/** Codes of 1,000 uses each, valid for the run, for the validations. */
export async function manyUseCodes(baseUrl: string, organization: GeneratedOrganization, n: number): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const answer = await fetch(`${baseUrl}/access-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${organization.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ visitor_name: `Bench Visitor ${i}`, visitor_phone: `+23481900${String(i).padStart(5, '0')}`, max_uses: 1000, ...(organization.siteId ? { site_id: organization.siteId } : {}) }),
    });
    const body = (await answer.json()) as { access_code?: { code: string } };
    if (!body.access_code) throw new Error(`could not make a code for the validations: ${answer.status} ${JSON.stringify(body)}`);
    codes.push(body.access_code.code);
  }
  return codes;
}

/**
 * Cancels the organization's open incidents through the API (the SOSs a run sent), so the
 * dispatcher's work on them (escalations, rounds) does not weigh on the next run.
 */
export async function cancelOpenIncidents(baseUrl: string, organization: GeneratedOrganization): Promise<number> {
  const headers = { authorization: `Bearer ${organization.liveKey}`, 'content-type': 'application/json' };
  let cancelled = 0;
  for (const status of ACTIVE_INCIDENT_STATUSES) {
    for (;;) {
      const page = (await (await fetch(`${baseUrl}/incidents?status=${status}&limit=100`, { headers })).json()) as { results?: { incident_id: string }[] };
      const ids = (page.results ?? []).map((incident) => incident.incident_id);
      let progress = 0;
      for (let i = 0; i < ids.length; i += 8) {
        const answers = await Promise.all(ids.slice(i, i + 8).map((id) => fetch(`${baseUrl}/incidents/${id}/cancel`, { method: 'POST', headers, body: JSON.stringify({ reason: 'Bench run over' }) })));
        for (const answer of answers) {
          await answer.body?.cancel();
          if (answer.ok) progress++;
        }
      }
      cancelled += progress;
      if (ids.length < 100 || progress === 0) break;
    }
  }
  return cancelled;
}
