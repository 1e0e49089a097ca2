import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../server/clock.ts';
import { migrateToLatest, openDatabase } from '../../../server/db/database.ts';
import { SCOPES } from '../../../shared/schemas/api-keys.ts';
import { createApiKey } from '../../../server/auth/service.ts';
import { createOrganization } from '../../../server/organizations/service.ts';
import { startBalancer, startHosts, type Balancer, type Host } from './hosts.ts';
import { call, driveLoad, Receiver, type Outcome } from './load.ts';
import { sleep, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './services.ts';

/**
 * The fault suite (issue #12): three API hosts on one private PostgreSQL and one private Redis,
 * behind HAProxy; a bounded mixed load; one fault at a time; after each, the checks a partner
 * depends on. Used by `npm run faults` and by the `faults` vitest project.
 */
export interface FaultRow {
  fault: string;
  requests: number;
  ok2xx: number;
  /** Non-2xx answers by status; 0 is "no answer at all". */
  errors: Record<string, number>;
  /** Acknowledged with a 2xx but not stored exactly once (must be 0). */
  missing: number;
  /** Answers without the `{code, message}` shape (must be 0). */
  unshaped: number;
  /** Incident events not delivered to the receiver when the check gave up (must be 0). */
  undelivered: number;
  /** Hosts that exited without being told to (must be empty). */
  exits: string[];
  /** From the fault's start until the last write probe through the balancer that failed (0: none failed). */
  recoverS: number;
  /** What each request without any answer saw. */
  noAnswer: string[];
}

export interface SuiteOptions {
  /** Seconds of load around each fault (at most 60). */
  loadS?: number;
  workers?: number;
  /** Only these faults (by name); all by default. */
  only?: string[];
  log?: (line: string) => void;
  /** Keep the temp dir (logs, configs) for a look after the run. */
  keep?: boolean;
}

/** WEBHOOK_RETRY_SCALE: an hour of the retry schedule passes in 10 s. */
const RETRY_SCALE = 360;
const SCALED_HOUR_MS = (3600 / RETRY_SCALE) * 1000;

export interface Rig {
  dir: string;
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  hosts: Host[];
  balancer: Balancer;
  receiver: Receiver;
  /** The checks' key (rate limits are per key: the load never starves the checks, nor the reverse). */
  key: string;
  /** The load's key. */
  loadKey: string;
  /** The recovery probes' key. */
  probeKey: string;
}

export interface Fault {
  name: string;
  /** Injects the fault and heals it; resolves once the fault is over on its side. */
  inject(rig: Rig): Promise<void>;
}

export const FAULTS: Fault[] = [
  {
    name: 'kill -9 of one host, restarted',
    async inject(rig) {
      const victim = rig.hosts[1]!;
      await victim.kill9();
      await sleep(3000);
      await victim.start();
    },
  },
  {
    name: 'pg_terminate_backend of every connection',
    async inject(rig) {
      for (let i = 0; i < 3; i++) {
        await rig.postgres.terminateAll();
        await sleep(500);
      }
    },
  },
  {
    name: 'PostgreSQL restarted',
    async inject(rig) {
      await rig.postgres.stop();
      await sleep(3000);
      await rig.postgres.start();
    },
  },
  {
    name: 'Redis stopped for 10 s',
    async inject(rig) {
      await rig.redis.stop();
      await sleep(10_000);
      await rig.redis.start();
    },
  },
  {
    name: 'webhook receiver down for 1 h (scaled)',
    async inject(rig) {
      await rig.receiver.down();
      await sleep(SCALED_HOUR_MS);
      await rig.receiver.up();
    },
  },
];

export async function setUp(log: (line: string) => void): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tsaro-faults-'));
  chmodSync(dir, 0o755); // the private PostgreSQL runs as the postgres user
  log(`fault suite: working in ${dir}`);
  const postgres = await startPrivatePostgres(join(dir, 'pg'));
  const redis = await startPrivateRedis(dir);
  const receiver = await Receiver.start();
  const env = {
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    LOG_LEVEL: 'warn',
    DEMO: '0',
    THREAT_SEED: '0',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    SANDBOX_SPEED: '60',
    SWEEP_INTERVAL_S: '1',
    WEBHOOK_TIMEOUT_S: '2',
    WEBHOOK_RETRY_SCALE: String(RETRY_SCALE),
    WEBHOOK_ALLOW_PRIVATE: '1',
    DATABASE_CONNECT_TIMEOUT_S: '3',
    DATABASE_STATEMENT_TIMEOUT_S: '10',
  };
  const hosts = await startHosts(3, env, dir);
  const balancer = await startBalancer(hosts, dir);
  // The partner: an organization made as the CLI does, its sandbox key, a webhook endpoint on loopback.
  const database = openDatabase(postgres.url, { poolSize: 1 });
  await migrateToLatest(database.db);
  const created = await createOrganization(database.db, systemClock, { name: 'Fault Suite Estate', plan: 'enterprise' });
  const organizationId = created.organization.organization_id;
  const newKey = async (name: string) =>
    (await createApiKey(database.db, systemClock, { organizationId, environment: 'sandbox', name, scopes: [...SCOPES], maker: { type: 'operator' } })).secret;
  const loadKey = await newKey('fault load');
  const probeKey = await newKey('fault probe');
  await database.close();
  const key = created.keys.sandbox.secret;
  const endpoint = await call(`${balancer.url}/webhook-endpoints`, key, 'POST', { url: receiver.url, events: ['incident.*'] });
  if (endpoint.status !== 201) throw new Error(`could not register the webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  return { dir, postgres, redis, hosts, balancer, receiver, key, loadKey, probeKey };
}

export async function tearDown(rig: Rig | undefined, keep: boolean) {
  if (!rig) return;
  await rig.balancer.stop().catch(() => undefined);
  await Promise.all(rig.hosts.map((host) => host.stop().catch(() => undefined)));
  await rig.receiver.down();
  await rig.redis.remove().catch(() => undefined);
  await rig.postgres.remove().catch(() => undefined);
  if (!keep) rmSync(rig.dir, { recursive: true, force: true });
}

/** Pages through a list endpoint until it is exhausted. */
async function listAll(rig: Rig, path: string, field = 'results'): Promise<any[]> {
  const rows: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call(`${rig.balancer.url}${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`, rig.key, 'GET');
    if (res.status !== 200) throw new Error(`GET ${path} page ${page}: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...res.body[field]);
    if (page >= res.body.totalPages) return rows;
  }
}

/** Every write acknowledged with a 2xx is stored exactly once, read back through the API. */
async function countMissing(rig: Rig, outcomes: Outcome[], since: string): Promise<number> {
  const acked = (kind: Outcome['kind']) => outcomes.filter((o) => o.kind === kind && o.status >= 200 && o.status < 300);
  const incidents = await listAll(rig, `/incidents?from_date=${encodeURIComponent(since)}`);
  const byRef = new Map<string, number>();
  for (const incident of incidents) byRef.set(incident.subject.reference, (byRef.get(incident.subject.reference) ?? 0) + 1);
  let missing = 0;
  for (const o of acked('incident')) if (byRef.get(o.ref!) !== 1) missing++;
  // Each code is validated once: an acknowledged validation shows as exactly one use.
  for (const o of [...acked('code'), ...acked('validation')]) {
    const res = await call(`${rig.balancer.url}/access-codes/${o.id}`, rig.key, 'GET');
    if (res.status !== 200) missing++;
    else if (o.kind === 'validation' && res.body.access_code.use_count !== 1) missing++;
  }
  return missing;
}

/** Waits until every incident event in the log has reached the receiver; answers how many have not. */
async function undelivered(rig: Rig, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await listAll(rig, '/events?type=incident.*');
    const missing = events.filter((event) => !rig.receiver.eventIds.has(event.event_id ?? event.id)).length;
    if (missing === 0 || Date.now() > deadline) return missing;
    await sleep(1000);
  }
}

async function writeSucceeds(rig: Rig): Promise<boolean> {
  const res = await call(`${rig.balancer.url}/access-codes`, rig.probeKey, 'POST', { visitor_name: 'Probe', visitor_phone: '+2348012345670' });
  return res.status === 201;
}

export async function runFault(rig: Rig, fault: Fault, options: Required<Pick<SuiteOptions, 'loadS' | 'workers'>>): Promise<FaultRow> {
  const since = new Date(Date.now() - 1000).toISOString();
  const load = driveLoad(rig.balancer.url, rig.loadKey, options.workers);
  await sleep(2000);
  const started = Date.now();
  // Recovery: a write probe through the balancer every 200 ms from the fault's start until 2 s
  // after it is healed; the outage lasts until the last failed probe.
  let lastFailure: number | undefined;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      if (!(await writeSucceeds(rig))) lastFailure = Date.now();
      await sleep(200);
    }
  })();
  await fault.inject(rig);
  const healed = Date.now();
  while (Date.now() - healed < 60_000 && (lastFailure === undefined ? false : Date.now() - lastFailure < 2000)) await sleep(200);
  await sleep(2000);
  probing = false;
  await probe;
  const remaining = options.loadS * 1000 - (Date.now() - started);
  if (remaining > 0) await sleep(remaining);
  const outcomes = await load.stop();
  const errors: Record<string, number> = {};
  for (const o of outcomes) if (o.status < 200 || o.status >= 300) errors[o.status] = (errors[o.status] ?? 0) + 1;
  return {
    fault: fault.name,
    requests: outcomes.length,
    ok2xx: outcomes.filter((o) => o.status >= 200 && o.status < 300).length,
    errors,
    missing: await countMissing(rig, outcomes, since),
    unshaped: outcomes.filter((o) => !o.shaped).length,
    // A job claimed by a killed host waits out its 60 s lease before another host sends it.
    undelivered: await undelivered(rig, 90_000),
    exits: rig.hosts.flatMap((host) => host.unexpectedExits.splice(0)),
    recoverS: lastFailure === undefined ? 0 : Math.round((lastFailure - started) / 100) / 10,
    noAnswer: outcomes.flatMap((o) => (o.detail ? [o.detail] : [])),
  };
}

export async function runFaultSuite(options: SuiteOptions = {}): Promise<FaultRow[]> {
  const log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  const settings = { loadS: Math.min(options.loadS ?? 20, 60), workers: options.workers ?? 6 };
  let rig: Rig | undefined;
  const rows: FaultRow[] = [];
  try {
    rig = await setUp(log);
    for (const fault of FAULTS.filter((f) => !options.only || options.only.some((name) => f.name.includes(name)))) {
      log(`fault: ${fault.name}`);
      const row = await runFault(rig, fault, settings);
      log(`  ${JSON.stringify(row)}`);
      rows.push(row);
    }
  } finally {
    await tearDown(rig, options.keep ?? false);
  }
  return rows;
}

export function formatTable(rows: FaultRow[]): string {
  const header = ['fault', 'requests', '2xx', 'errors by status', 'acked-but-missing', 'unshaped', 'undelivered events', 'host exits', 'recover s'];
  const lines = rows.map((row) => [
    row.fault,
    String(row.requests),
    String(row.ok2xx),
    Object.entries(row.errors).map(([status, n]) => `${status === '0' ? 'no answer' : status}: ${n}`).join(', ') || '-',
    String(row.missing),
    String(row.unshaped),
    String(row.undelivered),
    String(row.exits.length),
    row.recoverS.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [format(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(format)].join('\n');
}

/**
 * A row passes when nothing was lost, every answer had the shape, no dependency fault surfaced
 * as a 500 (it is a 503 the client may retry), every event arrived and no host died.
 */
export function rowPasses(row: FaultRow): boolean {
  return row.missing === 0 && row.unshaped === 0 && !row.errors['500'] && row.undelivered === 0 && row.exits.length === 0;
}
