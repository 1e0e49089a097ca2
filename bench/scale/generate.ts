/**
 * A year of data on demand (issue #45): one big organization's year and a small organization's,
 * in a fresh SQLite file or PostgreSQL database, by bulk SQL.
 *
 * 1. The server migrates the database and makes the first rows through its API (seed.ts).
 * 2. A small second organization, made as `tsaro org create` makes one.
 * 3. Each table filled by `insert ... select` over a series, copying the shape of those rows
 *    (fill.ts): codes, visits, incidents with their timelines, events numbered in order on the
 *    feed with their deliveries finished, audit entries, texts. The feed's and the codes'
 *    counters are moved past them; nothing is left for the stream's sequencer, the webhook
 *    worker, the dispatcher or the sweeps.
 * 4. The tallies folded (`foldInBulk`, every table of TALLIED_TABLES); the text indexes are kept
 *    by their triggers (SQLite FTS5) or by the inserts (PostgreSQL GIN); `ANALYZE` (and on
 *    PostgreSQL `VACUUM`, so index-only counts see an all-visible table).
 *
 * Sizes (environment; the big organization's, the small one's fixed): BENCH_SCALE_VISITS (default
 * 5,000,000), BENCH_SCALE_CODES, BENCH_SCALE_INCIDENTS, BENCH_SCALE_AUDIT (default a fifth of the
 * visits each), BENCH_SCALE_EVENTS (two fifths), BENCH_SCALE_MESSAGES (a fiftieth); BENCH_SCALE_CHUNK
 * rows a transaction (default 200,000).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as clockModule from '../../server/clock.ts';
import * as databaseModule from '../../server/db/database.ts';
import * as talliesModule from '../../server/db/tallies.ts';
import { newId } from '../../server/ids.ts';
import * as organizationsModule from '../../server/organizations/service.ts';
import * as tallyFolderModule from '../../server/tally-folder.ts';
import { REPO_ROOT } from '../lib/children.ts';
import { intFromEnv, type Engine } from '../lib/settings.ts';
import { openConn, type Conn } from './conn.ts';
import { fillOrganization, fillTable, personNameOf, personPhoneOf, type FillContext, type OrganizationPlan, type Sizes, type Templates } from './fill.ts';
import { seedThroughApi } from './seed.ts';
import { lit } from './sql.ts';
import { measureSize, type SizeReport } from './size.ts';

/** What a request of the bench names: a visitor who exists, their phone, a gate, a page half a year deep. */
export interface Probes {
  visitorName: string;
  visitorPhone: string;
  entryPoint: string;
  deepPage: number;
}

export interface GeneratedOrganization {
  organizationId: string;
  liveKey: string;
  /** A site of its own (codes for the validations are made there). */
  siteId?: string;
  sizes: Sizes;
  probes: Probes;
}

export interface GeneratedYear {
  engine: Engine;
  url: string;
  big: GeneratedOrganization;
  small: GeneratedOrganization;
  /** Seconds per step of the build, and the whole. */
  buildSeconds: Record<string, number>;
  size: SizeReport;
}

/** bench/serve.ts's: no run meets a 429 (importing it would start a server). */
const BENCH_RATE_LIMIT_PER_MINUTE = 100_000_000;

export const SMALL_SIZES: Sizes = { visits: 2_000, codes: 500, incidents: 200, events: 1_000, audit: 500, messages: 50 };

/** The big organization's sizes from the environment (the by default). */
export function sizesFromEnv(): Sizes {
  const visits = intFromEnv('BENCH_SCALE_VISITS', 5_000_000, 100);
  return {
    visits,
    codes: intFromEnv('BENCH_SCALE_CODES', Math.round(visits / 5), 1),
    incidents: intFromEnv('BENCH_SCALE_INCIDENTS', Math.round(visits / 5), 1),
    events: intFromEnv('BENCH_SCALE_EVENTS', Math.round((visits * 2) / 5), 1),
    audit: intFromEnv('BENCH_SCALE_AUDIT', Math.round(visits / 5), 1),
    messages: intFromEnv('BENCH_SCALE_MESSAGES', Math.max(1, Math.round(visits / 50)), 1),
  };
}

const one = async (conn: Conn, text: string) => (await conn.rows(text))[0]!;

async function readTemplates(conn: Conn, ids: { codeId: string; logId: string; incidentId: string }, organizationId: string): Promise<Templates> {
  const events: Templates['events'] = {};
  for (const row of await conn.rows(`select * from events where organization_id = ${lit(organizationId)} and environment = 'live' order by created_at`)) events[String(row.type)] ??= row;
  return {
    code: await one(conn, `select * from access_codes where code_id = ${lit(ids.codeId)}`),
    visit: await one(conn, `select * from access_logs where log_id = ${lit(ids.logId)}`),
    incident: await one(conn, `select * from incidents where incident_id = ${lit(ids.incidentId)}`),
    timeline: await one(conn, `select * from incident_timeline where incident_id = ${lit(ids.incidentId)} order by seq limit 1`),
    events,
    audit: await one(conn, `select * from audit_log where organization_id = ${lit(organizationId)} order by created_at limit 1`),
  };
}

/** The year's keys and probes, kept in the database itself so BENCH_SCALE_FROM can reuse it. */
async function saveYear(conn: Conn, year: Omit<GeneratedYear, 'url'>): Promise<void> {
  await conn.exec('create table if not exists bench_scale_year (doc text not null)');
  await conn.exec('delete from bench_scale_year');
  await conn.exec(`insert into bench_scale_year (doc) values (${lit(JSON.stringify(year))})`);
}

export async function loadYear(engine: Engine, url: string): Promise<GeneratedYear> {
  const conn = await openConn(engine, url);
  try {
    const [row] = await conn.rows<{ doc: string }>('select doc from bench_scale_year');
    if (!row) throw new Error(`BENCH_SCALE_FROM: ${url} holds no generated year (no bench_scale_year row)`);
    return { ...(JSON.parse(row.doc) as Omit<GeneratedYear, 'url'>), url };
  } finally {
    await conn.close();
  }
}

/** The server code the generator writes with: the second organization, the fold of the year. */
interface ServerCode {
  openDatabase: typeof databaseModule.openDatabase;
  systemClock: typeof clockModule.systemClock;
  createOrganization: typeof organizationsModule.createOrganization;
  changeOrganization: typeof organizationsModule.changeOrganization;
  foldInBulk: typeof talliesModule.foldInBulk;
  TALLIED_TABLES: typeof tallyFolderModule.TALLIED_TABLES;
}

/**
 * This tree's server code, or, for a year on an older schema (`serveScript` an older tree's
 * `bench/serve.ts`), that tree's own: its store fits its schema, and its fold fills the tallies
 * that version kept (before 0057, the day tallies only: this tree's fold would write the month
 * tallies too, which that schema has not), so the year is as that version would have left it.
 */
async function serverCodeOf(serveScript: string | undefined): Promise<ServerCode> {
  const root = serveScript ? resolve(REPO_ROOT, serveScript, '../..') : REPO_ROOT;
  if (root === REPO_ROOT) return { ...databaseModule, ...clockModule, ...organizationsModule, ...talliesModule, ...tallyFolderModule };
  const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
  const [database, clock, organizations, tallies, tallyFolder] = (await Promise.all([
    load('server/db/database.ts'),
    load('server/clock.ts'),
    load('server/organizations/service.ts'),
    load('server/db/tallies.ts'),
    load('server/tally-folder.ts'),
  ])) as [typeof databaseModule, typeof clockModule, typeof organizationsModule, typeof talliesModule, typeof tallyFolderModule];
  return { ...database, ...clock, ...organizations, ...tallies, ...tallyFolder };
}

/** Fills the (fresh, empty) database at `url` with the year. */
export async function generateYear(engine: Engine, url: string, sizes: Sizes, log: (line: string) => void, options: { serveScript?: string } = {}): Promise<GeneratedYear> {
  const seconds: Record<string, number> = {};
  const started = performance.now();
  let mark = started;
  const step = (name: string) => {
    const now = performance.now();
    seconds[name] = Math.round((now - mark) / 100) / 10;
    mark = now;
  };
  const seed = await seedThroughApi(url, log, options.serveScript);
  step('seed through the API');

  // A schema before migration 0036 (an older tree's server seeded it, for the upgrade's bench):
  // no tallies to fold, and no second organization. A later schema of an older tree: that tree's
  // code makes the second organization and folds (serverCodeOf).
  const probe = await openConn(engine, url);
  const legacy = !(await probe.columns('visit_tallies')).size;
  await probe.close();
  const { openDatabase, systemClock, createOrganization, changeOrganization, foldInBulk, TALLIED_TABLES } = legacy ? await serverCodeOf(undefined) : await serverCodeOf(options.serveScript);
  let small: { organization: { organization_id: string }; keys: { live: { secret: string } } } = { organization: { organization_id: seed.organizationId }, keys: { live: { secret: seed.liveKey } } };
  if (!legacy) {
    const opened = openDatabase(url);
    small = await createOrganization(opened.db, systemClock, { name: 'Small Estate', plan: 'enterprise' });
    await changeOrganization(opened.db, systemClock, small.organization.organization_id, { rateLimitPerMinute: BENCH_RATE_LIMIT_PER_MINUTE });
    await opened.close();
  } else log('a schema before 0036: no small organization, no fold');
  const smallId = small.organization.organization_id;

  const conn = await openConn(engine, url);
  let smallSite = '';
  const clock = { from: Date.now() - 365 * 86_400_000, span: 365 * 86_400_000 - 3_600_000 };
  const context: FillContext = { conn, clock, chunk: intFromEnv('BENCH_SCALE_CHUNK', 200_000, 1000), log };
  try {
    const templates = await readTemplates(conn, seed.templates, seed.organizationId);
    const prefixOf = async (id: string) => String((await one(conn, `select code_prefix from organizations where organization_id = ${lit(id)}`)).code_prefix);
    smallSite = legacy ? seed.sites[0]!.siteId : String((await one(conn, `select site_id from sites where organization_id = ${lit(smallId)} order by created_at limit 1`)).site_id);
    const endpoint = await one(conn, `select * from webhook_endpoints where endpoint_id = ${lit(seed.templates.endpointId)}`);
    const liveEndpoint = async (organizationId: string) => {
      const endpointId = newId('whe');
      await fillTable(context, 'webhook_endpoints', endpoint, { endpoint_id: lit(endpointId), organization_id: lit(organizationId), environment: "'live'", url: "'https://hooks.bench.example/tsaro'", status: "'disabled'" }, 1);
      return endpointId;
    };
    const bigPlan: OrganizationPlan = {
      organizationId: seed.organizationId,
      codePrefix: await prefixOf(seed.organizationId),
      gates: seed.sites.flatMap((site) => site.gates.map((gate) => ({ siteId: site.siteId, gate }))),
      salt: 1,
      sizes,
      endpointId: await liveEndpoint(seed.organizationId),
      feedFrom: 1,
    };
    const smallPlan: OrganizationPlan = {
      organizationId: smallId,
      codePrefix: await prefixOf(smallId),
      gates: [{ siteId: smallSite, gate: 'Main Gate' }, { siteId: smallSite, gate: 'Back Gate' }],
      salt: 2,
      sizes: SMALL_SIZES,
      endpointId: legacy ? '' : await liveEndpoint(smallId),
      feedFrom: 1 + sizes.events,
    };
    const generatedEvents = sizes.events + (legacy ? 0 : SMALL_SIZES.events);
    // The API's own rows come after the year: their feed and change numbers move past it.
    await conn.exec(`update events set feed_seq = feed_seq + ${generatedEvents} where feed_seq is not null`);
    await conn.exec(`update access_codes set change_seq = change_seq + ${sizes.codes} where organization_id = ${lit(seed.organizationId)}`);
    await conn.exec(`update feed_counters set last_seq = last_seq + ${sizes.codes} where organization_id = ${lit(seed.organizationId)}`);
    if (!legacy) await conn.exec(`insert into feed_counters (organization_id, environment, last_seq) values (${lit(smallId)}, 'live', ${SMALL_SIZES.codes})`);
    step('templates');
    log(`filling the big organization: ${JSON.stringify(sizes)}`);
    await fillOrganization(context, bigPlan, templates);
    step('big organization');
    if (!legacy) {
      await fillOrganization(context, smallPlan, templates);
      step('small organization');
    }
    if (engine === 'postgres') await conn.exec(`select setval('event_feed_seq', (select max(feed_seq) from events))`);
    else await conn.exec('update event_feed set seq = (select max(feed_seq) from events) where id = 1');
  } finally {
    await conn.close();
  }

  const folding = openDatabase(url);
  try {
    for (const spec of legacy ? [] : TALLIED_TABLES) {
      const n = await foldInBulk(folding.db, spec, intFromEnv('BENCH_SCALE_FOLD_CHUNK', 20_000, 100));
      log(`  folded ${n.toLocaleString('en')} ${spec.name}`);
    }
  } finally {
    await folding.close();
  }
  step('tallies folded');
  const finish = await openConn(engine, url);
  try {
    await finish.exec(engine === 'postgres' ? 'vacuum analyze' : 'analyze');
    step(engine === 'postgres' ? 'vacuum analyze' : 'analyze');
    seconds.total = Math.round((performance.now() - started) / 100) / 10;
    const size = await measureSize(finish, url);
    const visitor = 12_345 % Math.max(1, Math.floor(sizes.visits / 5));
    const year: Omit<GeneratedYear, 'url'> = {
      engine,
      big: {
        organizationId: seed.organizationId,
        liveKey: seed.liveKey,
        siteId: seed.sites[1]!.siteId,
        sizes,
        probes: { visitorName: personNameOf(visitor), visitorPhone: personPhoneOf(visitor), entryPoint: seed.sites[1]!.gates[0]!, deepPage: Math.max(1, Math.floor(sizes.visits / 2 / 20)) },
      },
      small: {
        organizationId: smallId,
        liveKey: small.keys.live.secret,
        siteId: smallSite,
        sizes: SMALL_SIZES,
        probes: { visitorName: personNameOf(12_345 % (SMALL_SIZES.visits / 5)), visitorPhone: personPhoneOf(12_345 % (SMALL_SIZES.visits / 5)), entryPoint: 'Main Gate', deepPage: Math.floor(SMALL_SIZES.visits / 2 / 20) },
      },
      buildSeconds: seconds,
      size,
    };
    await saveYear(finish, year);
    return { ...year, url };
  } finally {
    await finish.close();
  }
}
