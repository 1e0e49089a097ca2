/**
 * The bulk statements: one organization's year, table by table, each row copied from a row the
 * API made (every column the generator does not set keeps that row's value) and set apart by
 * its number `n`: its instant (spread evenly over the year, in order), its id (a ULID of that
 * instant), its names, site and gate. `insert ... select` over a series, a chunk a transaction.
 */
import type { Conn } from './conn.ts';
import { base32, castTo, idOf, isoOf, lit, padded, pick, series, valueLiteral } from './sql.ts';

export interface OrganizationPlan {
  organizationId: string;
  /** Its code prefix (`BENC` of `BENC-7QX2`). */
  codePrefix: string;
  /** Site and gate pairs the rows are spread over. */
  gates: { siteId: string; gate: string }[];
  /** Set apart the ids of two organizations made at the same instants. */
  salt: number;
  sizes: Sizes;
  /** The webhook endpoint the year's deliveries went to. */
  endpointId: string;
  /** The first feed position and code change number of this organization's rows. */
  feedFrom: number;
}

export interface Sizes {
  visits: number;
  codes: number;
  incidents: number;
  events: number;
  audit: number;
  messages: number;
}

export interface Templates {
  code: Record<string, unknown>;
  visit: Record<string, unknown>;
  incident: Record<string, unknown>;
  timeline: Record<string, unknown>;
  /** Event type → one the API wrote. */
  events: Record<string, Record<string, unknown>>;
  audit: Record<string, unknown>;
}

const FIRST = ['Adaeze', 'Babajide', 'Chiamaka', 'Chinedu', 'Damilola', 'Emeka', 'Folake', 'Funmilayo', 'Ifeoma', 'Ikenna', 'Kelechi', 'Kemi', 'Ngozi', 'Nnamdi', 'Obinna', 'Olumide', 'Oluwaseun', 'Segun', 'Tobi', 'Tunde', 'Uche', 'Yetunde', 'Zainab', 'Aisha', 'Musa', 'Ibrahim', 'Halima', 'Amaka', 'Bisi', 'Efosa', 'Osaze', 'Ese', 'Temitope', 'Sade', 'Kunle', 'Nkechi', 'Chukwuma', 'Fatima', 'Yusuf', 'Abiodun'];
const MIDDLE = ['Adebayo', 'Chioma', 'Ebere', 'Femi', 'Gbenga', 'Ifeanyi', 'Jumoke', 'Lola', 'Mobolaji', 'Nneka', 'Ola', 'Precious', 'Rotimi', 'Simi', 'Titi', 'Ugo', 'Victor', 'Wale', 'Yemi', 'Zik', 'Amina', 'Bola', 'Dayo', 'Ejiro', 'Goodluck', 'Hauwa', 'Jide', 'Kayode', 'Lanre', 'Mayowa'];
const LAST = ['Okafor', 'Adeyemi', 'Okonkwo', 'Balogun', 'Eze', 'Nwosu', 'Ogunleye', 'Bello', 'Abubakar', 'Onyekachi', 'Adebisi', 'Obi', 'Ojo', 'Chukwu', 'Ibekwe', 'Lawal', 'Mohammed', 'Nwachukwu', 'Odunsi', 'Oyelaran', 'Salami', 'Uzor', 'Williams', 'Yakubu', 'Ajayi', 'Akande', 'Bakare', 'Dike', 'Egwu', 'Fashola', 'Garba', 'Ikwuemesi', 'Jibril', 'Kalu', 'Mbah', 'Nnaji', 'Obasi', 'Okeke', 'Olawale', 'Oni', 'Osagie', 'Sanni', 'Tinubu', 'Udoh', 'Umar', 'Usman', 'Wike', 'Yar Adua', 'Zubairu', 'Agu'];
const PURPOSES = ['Delivery', 'Family visit', 'Contractor', 'Interview', 'Meeting', 'Maintenance', 'Domestic staff', 'Courier'];
const CATEGORIES = ['sos', 'medical', 'vehicle', 'location_threat', 'sos', 'medical', 'sos'];
const TITLES: Record<string, string> = { sos: 'SOS Alert', medical: 'Medical Emergency', vehicle: 'Vehicle Incident', location_threat: 'Location Threat' };
const SEVERITIES = ['high', 'critical', 'medium', 'low', 'high'];
const EVENT_TYPES = ['visitor.arrived', 'visitor.departed', 'access_code.created', 'access_code.used', 'incident.created', 'incident.resolved'];

/** A person of the year, by number: "First Middle Last" (60,000 names) and a phone of their own. */
export function personName(v: string): string {
  return `${pick(FIRST, v)} || ' ' || ${pick(MIDDLE, `(${v}) / ${FIRST.length}`)} || ' ' || ${pick(LAST, `(${v}) / ${FIRST.length * MIDDLE.length}`)}`;
}
export const personNameOf = (v: number) =>
  `${FIRST[v % FIRST.length]} ${MIDDLE[Math.floor(v / FIRST.length) % MIDDLE.length]} ${LAST[Math.floor(v / (FIRST.length * MIDDLE.length)) % LAST.length]}`;
export const personPhoneOf = (v: number) => `+23480${String(v).padStart(8, '0')}`;

export interface YearClock {
  /** The year's first instant (ms). */
  from: number;
  /** Its length (ms). */
  span: number;
}

export interface FillContext {
  conn: Conn;
  clock: YearClock;
  chunk: number;
  log: (line: string) => void;
}

/** Inserts `count` rows into `table`, n = 0 .. count - 1, `chunk` a transaction. */
export async function fillTable(
  context: FillContext,
  table: string,
  template: Record<string, unknown>,
  overrides: Record<string, string>,
  count: number,
  options: { extraFrom?: string; where?: string } = {},
): Promise<void> {
  const { conn } = context;
  const columns = await conn.columns(table);
  const names = [...columns.keys()].filter((column) => column in overrides || (column in template && column !== 'tallied'));
  const select = names.map((column) => castTo(conn.engine, columns.get(column), column in overrides ? overrides[column]! : valueLiteral(template[column]))).join(', ');
  const started = performance.now();
  for (let lo = 0; lo < count; lo += context.chunk) {
    const hi = Math.min(count, lo + context.chunk);
    const s = series(conn.engine, lo, hi);
    await conn.exec(`${s.with}insert into ${table} (${names.join(', ')}) select ${select} from ${s.from}${options.extraFrom ?? ''}${options.where ? ` where ${options.where}` : ''}`);
  }
  context.log(`  ${table}: ${count.toLocaleString('en')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The instant of row `n` of `count` spread over the year. */
const at = (clock: YearClock, n: string, count: number) => `(${clock.from} + ((${n}) * ${clock.span}) / ${count})`;

/** One organization's year: codes, visits, incidents and their timelines, events and their deliveries, audit entries, texts. */
export async function fillOrganization(context: FillContext, plan: OrganizationPlan, templates: Templates): Promise<void> {
  const { conn, clock } = context;
  const engine = conn.engine;
  const { sizes, salt } = plan;
  const iso = (ms: string) => isoOf(engine, ms);
  const now = clock.from + clock.span;
  const tenant = { organization_id: lit(plan.organizationId), environment: lit('live') };
  const gateIndex = (n: string) => `((${n}) * 7) % ${plan.gates.length}`;
  const siteOf = (n: string) => pick(plan.gates.map((g) => g.siteId), gateIndex(n));
  const gateOf = (n: string) => pick(plan.gates.map((g) => g.gate), gateIndex(n));
  const visitors = Math.max(1, Math.floor(sizes.visits / 5));
  const codeId = (k: string) => idOf('code', at(clock, k, sizes.codes), k, salt);
  const visitId = (n: string) => idOf('log', at(clock, n, sizes.visits), n, salt);
  const incidentId = (i: string) => idOf('inc', at(clock, i, sizes.incidents), i, salt);
  const eventId = (e: string) => idOf('evt', at(clock, e, sizes.events), e, salt);

  // Access codes: a day's validity each; the last day's still active, the rest used, expired or revoked.
  const codeAt = at(clock, 'n', sizes.codes);
  const codeActive = `${codeAt} + 86400000 > ${now}`;
  const codeVisitor = `n % ${visitors}`;
  await fillTable(context, 'access_codes', templates.code, {
    ...tenant,
    code_id: codeId('n'),
    code: `${lit(`${plan.codePrefix}-`)} || ${base32('n', 4)}`,
    visitor_name: personName(codeVisitor),
    visitor_phone: `'+23480' || ${padded(engine, codeVisitor, 8)}`,
    purpose: pick(PURPOSES, 'n'),
    site_id: siteOf('n'),
    entry_point_id: 'null',
    status: `case when ${codeActive} then 'active' when n % 10 = 0 then 'revoked' when n % 3 = 0 then 'expired' else 'used' end`,
    valid_from: iso(codeAt),
    valid_until: iso(`${codeAt} + 86400000`),
    max_uses: '1',
    use_count: `case when ${codeActive} or n % 10 = 0 or n % 3 = 0 then 0 else 1 end`,
    change_seq: 'n + 1',
    created_at: iso(codeAt),
    updated_at: iso(`${codeAt} + 3600000`),
    revoked_at: `case when not (${codeActive}) and n % 10 = 0 then ${iso(`${codeAt} + 3600000`)} end`,
    revoke_reason: `case when not (${codeActive}) and n % 10 = 0 then 'Visit called off' end`,
  }, sizes.codes);

  // Visits: every fifth visitor comes back; the last three hours' still on the premises.
  const visitAt = at(clock, 'n', sizes.visits);
  const open = `${visitAt} > ${now - 3 * 3_600_000}`;
  const visitor = `n % ${visitors}`;
  const outAt = `${visitAt} + (10 + n % 160) * 60000`;
  await fillTable(context, 'access_logs', templates.visit, {
    ...tenant,
    log_id: visitId('n'),
    code_id: sizes.codes ? codeId(`(n * ${sizes.codes}) / ${sizes.visits}`) : 'null',
    visitor_name: personName(visitor),
    visitor_phone: `'+23480' || ${padded(engine, visitor, 8)}`,
    entry_point: gateOf('n'),
    site_id: siteOf('n'),
    status: `case when ${open} then 'checked_in' else 'checked_out' end`,
    checked_in_at: iso(visitAt),
    checked_out_at: `case when ${open} then null else ${iso(outAt)} end`,
    auto_checked_out: '0',
    created_at: iso(visitAt),
    updated_at: `case when ${open} then ${iso(visitAt)} else ${iso(outAt)} end`,
  }, sizes.visits);

  // Incidents: every one settled (resolved, or cancelled), with its responder's times.
  const incAt = at(clock, 'n', sizes.incidents);
  const cancelled = 'n % 10 = 0';
  const assignedAt = `${incAt} + (20 + n % 240) * 1000`;
  const onSceneAt = `${assignedAt} + (240 + n % 1200) * 1000`;
  const resolvedAt = `${onSceneAt} + 1800000`;
  const category = pick(CATEGORIES, 'n');
  const severity = pick(SEVERITIES, 'n / 3');
  const subject = `n % ${visitors} + 7`;
  await fillTable(context, 'incidents', templates.incident, {
    ...tenant,
    incident_id: incidentId('n'),
    idempotency_key: 'null',
    category,
    severity,
    status: `case when ${cancelled} then 'cancelled' else 'resolved' end`,
    title: `'[' || upper(${severity}) || '] ' || ${pick(CATEGORIES.map((c) => TITLES[c]!), 'n')}`,
    subject_name: personName(subject),
    subject_phone: `'+23480' || ${padded(engine, subject, 8)}`,
    longitude: `3.35 + (n % 300) / 1000.0`,
    latitude: `6.42 + (n % 170) / 1000.0`,
    version: '5',
    dispatch_deadline: iso(`${incAt} + 60000`),
    escalation_deadline: iso(`${incAt} + 300000`),
    assigned_at: `case when ${cancelled} then null else ${iso(assignedAt)} end`,
    on_scene_at: `case when ${cancelled} then null else ${iso(onSceneAt)} end`,
    resolution_outcome: `case when ${cancelled} then null else 'assisted' end`,
    resolution_notes: 'null',
    created_at: iso(incAt),
    updated_at: `case when ${cancelled} then ${iso(`${incAt} + 90000`)} else ${iso(resolvedAt)} end`,
    resolved_at: `case when ${cancelled} then null else ${iso(resolvedAt)} end`,
    cancelled_at: `case when ${cancelled} then ${iso(`${incAt} + 90000`)} end`,
    responder_id: 'null',
    next_step_at: 'null',
    dispatch_round: '1',
    site_id: siteOf('n'),
  }, sizes.incidents);

  // Each incident's timeline: reported, dispatched, then resolved or cancelled.
  await fillTable(context, 'incident_timeline', templates.timeline, {
    incident_id: incidentId('n'),
    seq: 'st.k',
    status: `case st.k when 1 then 'created' when 2 then 'dispatching' else case when ${cancelled} then 'cancelled' else 'resolved' end end`,
    event: `case st.k when 1 then 'created' when 2 then 'dispatched' else case when ${cancelled} then 'cancelled' else 'resolved' end end`,
    message: `case st.k when 1 then 'Incident reported' when 2 then 'Dispatching to the nearest available responders' else case when ${cancelled} then 'Cancelled' else 'Resolved: assisted' end end`,
    timestamp: `case st.k when 3 then case when ${cancelled} then ${iso(`${incAt} + 90000`)} else ${iso(resolvedAt)} end else ${iso(incAt)} end`,
  }, sizes.incidents, { extraFrom: ' cross join (select 1 as k union all select 2 union all select 3) st' });

  // Events, numbered in order on the feed, each delivered once to the endpoint.
  const eventAt = at(clock, 'n', sizes.events);
  const type = pick(EVENT_TYPES, 'n');
  const resource = `case n % ${EVENT_TYPES.length} when 0 then ${visitId(`(n * ${sizes.visits}) / ${sizes.events}`)} when 1 then ${visitId(`(n * ${sizes.visits}) / ${sizes.events}`)} when 2 then ${codeId(`(n * ${sizes.codes}) / ${sizes.events}`)} when 3 then ${codeId(`(n * ${sizes.codes}) / ${sizes.events}`)} else ${incidentId(`(n * ${sizes.incidents}) / ${sizes.events}`)} end`;
  const dataOf = (t: string) => valueLiteral((templates.events[t] ?? templates.events['visitor.arrived'] ?? Object.values(templates.events)[0]!).data);
  const anyEvent = templates.events['visitor.arrived'] ?? Object.values(templates.events)[0]!;
  await fillTable(context, 'events', anyEvent, {
    ...tenant,
    event_id: eventId('n'),
    type,
    resource_id: resource,
    data: `case n % ${EVENT_TYPES.length} ${EVENT_TYPES.map((t, i) => `when ${i} then ${dataOf(t)}`).join(' ')} end`,
    created_at: iso(eventAt),
    test: '0',
    feed_seq: `n + ${plan.feedFrom}`,
    site_id: siteOf('n'),
  }, sizes.events);
  await fillTable(context, 'webhook_jobs', {}, {
    job_id: idOf('whj', eventAt, 'n', salt),
    endpoint_id: lit(plan.endpointId),
    event_id: eventId('n'),
    state: "'succeeded'",
    attempts: '1',
    next_attempt_at: iso(eventAt),
    created_at: iso(eventAt),
  }, sizes.events);
  await fillTable(context, 'webhook_deliveries', {}, {
    delivery_id: idOf('whd', eventAt, 'n', salt),
    job_id: idOf('whj', eventAt, 'n', salt),
    endpoint_id: lit(plan.endpointId),
    event_id: eventId('n'),
    event_type: type,
    attempt: '1',
    status: "'succeeded'",
    response_status: '200',
    duration_ms: '20 + n % 180',
    attempted_at: iso(`${eventAt} + 150`),
  }, sizes.events);

  // Audit entries: the API calls that made the year.
  const auditAt = at(clock, 'n', sizes.audit);
  await fillTable(context, 'audit_log', templates.audit, {
    organization_id: tenant.organization_id,
    environment: tenant.environment,
    audit_id: idOf('aud', auditAt, 'n', salt),
    action: pick(['createAccessCode', 'validateAccessCode', 'createIncident', 'cancelIncident', 'revokeAccessCode'], 'n'),
    resource_type: pick(['access-codes', 'access-codes', 'incidents', 'incidents', 'access-codes'], 'n'),
    resource_id: `case n % 5 when 1 then null when 2 then ${incidentId(`(n * ${sizes.incidents}) / ${sizes.audit}`)} when 3 then ${incidentId(`(n * ${sizes.incidents}) / ${sizes.audit}`)} else ${codeId(`(n * ${sizes.codes}) / ${sizes.audit}`)} end`,
    created_at: iso(auditAt),
  }, sizes.audit);

  // Texts to hosts on their visitors' arrival, delivered.
  const textAt = at(clock, 'n', sizes.messages);
  const host = `n % 5000`;
  await fillTable(context, 'text_messages', {}, {
    ...tenant,
    message_id: idOf('sms', textAt, 'n', salt),
    incident_id: 'null',
    site_id: siteOf('n'),
    reason: "'visitor_arrived'",
    recipient_name: personName(`${host} + 11`),
    phone: `'+23481' || ${padded(engine, host, 8)}`,
    body: `'Your visitor ' || ${personName(`n % ${visitors}`)} || ' has arrived at ' || ${gateOf('n')} || '.'`,
    status: "'delivered'",
    attempts: '1',
    next_attempt_at: iso(textAt),
    dlr_token_sealed: "'bench'",
    created_at: iso(textAt),
    updated_at: iso(`${textAt} + 4000`),
    sent_at: iso(`${textAt} + 1000`),
    delivered_at: iso(`${textAt} + 4000`),
    log_id: visitId(`(n * ${sizes.visits}) / ${sizes.messages}`),
  }, sizes.messages);
}
