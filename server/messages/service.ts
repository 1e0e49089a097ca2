import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Page } from '../../shared/schemas/common.ts';
import type { TextMessage } from '../../shared/schemas/messages.ts';
import type { TEXT_LANGUAGES } from '../../shared/schemas/sites.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Executor, type IncidentRow, type Tenant, type TextMessageRow } from '../db/schema.ts';
import type { EventDeps } from '../events/service.ts';
import { notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { addIncidentTimelineEntry } from '../incidents/service.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { getSite } from '../sites/service.ts';
import { textable } from '../../shared/schemas/sites.ts';
import type { SmsGateway } from './gateway.ts';
import { countMessages, findMessageById, insertMessages, listMessageRows, messageCounts, reportDelivery } from './store.ts';

/** What texting takes: the gateway (none: SMS is off), where links and delivery reports point, and the sealing key. */
export interface TextingDeps extends EventDeps {
  gateway: SmsGateway | undefined;
  /** PUBLIC_URL: the console's links in a text, and the gateway's delivery reports. */
  publicUrl: string;
  secretBox: SecretBox;
}

export type AlarmReason = Exclude<TextMessage['reason'], 'visitor_arrived'>;

type TextLanguage = (typeof TEXT_LANGUAGES)[number];

/** Each alarm's words in each language a call-list entry may ask for: `w` is where (site, gate), `t` the incident's title. */
const ALARM_TEXTS: Record<TextLanguage, Record<AlarmReason, (t: string, w: string) => string>> = {
  en: {
    escalated: (t, w) => `NO RESPONDER has accepted ${t} at ${w}. Call for help now.`,
    unresponsive: (t, w) => `STILL NO RESPONDER for ${t} at ${w}. Call for help now.`,
    called_for_help: (t, w) => `The guard at ${w} has called for help for ${t}.`,
    false_alarm: (t, w) => `The guard at ${w} reports ${t} is a FALSE ALARM. It stays open until an operator closes it.`,
  },
  ha: {
    escalated: (t, w) => `BABU mai agaji da ya amsa ${t} a ${w}. A kira taimako yanzu.`,
    unresponsive: (t, w) => `HAR YANZU babu mai agaji don ${t} a ${w}. A kira taimako yanzu.`,
    called_for_help: (t, w) => `Mai gadi a ${w} ya kira taimako don ${t}.`,
    false_alarm: (t, w) => `Mai gadi a ${w} ya ce ${t} ƙararrawar ƙarya ce. Za a bar shi a buɗe har ɗakin kulawa ya rufe shi.`,
  },
  pcm: {
    escalated: (t, w) => `NOBODY don accept ${t} for ${w}. Call for help now now.`,
    unresponsive: (t, w) => `STILL NOBODY for ${t} for ${w}. Call for help now now.`,
    called_for_help: (t, w) => `Security for ${w} don call for help for ${t}.`,
    false_alarm: (t, w) => `Security for ${w} talk say ${t} na FALSE ALARM. E go dey open till control room close am.`,
  },
};

/** The text a call list receives, in the entry's language: short, naming the site and where, with the incident's console link. */
export function alarmText(
  reason: AlarmReason,
  incident: Pick<IncidentRow, 'incident_id' | 'title' | 'address' | 'landmark'>,
  siteName: string,
  publicUrl: string,
  language: TextLanguage = 'en',
): string {
  const where = incident.landmark ?? incident.address;
  return `TSARO: ${ALARM_TEXTS[language][reason](incident.title, `${siteName}${where ? `, ${where}` : ''}`)} ${publicUrl}/console/incidents/${incident.incident_id}`;
}

/** A new text, queued and due now, with its delivery-report token sealed. */
function queuedText(
  deps: TextingDeps,
  tenant: Pick<TextMessageRow, 'organization_id' | 'environment'>,
  text: Pick<TextMessageRow, 'incident_id' | 'site_id' | 'reason' | 'recipient_name' | 'phone' | 'body'> & { log_id?: string | null },
): TextMessageRow {
  const at = deps.clock.now().toISOString();
  return {
    message_id: newId('sms', deps.clock.now()),
    organization_id: tenant.organization_id,
    environment: tenant.environment,
    log_id: null,
    ...text,
    status: 'queued',
    attempts: 0,
    next_attempt_at: at,
    locked_until: null,
    last_error: null,
    dlr_token_sealed: deps.secretBox.seal(randomBytes(18).toString('base64url')),
    created_at: at,
    updated_at: at,
    sent_at: null,
    delivered_at: null,
    failed_at: null,
  };
}

/**
 * Queues the alarm's texts to the incident's site's call list, in the transaction that moved the
 * incident (so a text exists exactly when the alarm does, and survives a crash before it is
 * sent). Nobody is texted for a sandbox incident or a drill, for an incident at no site, or while
 * SMS is off; each number once per alarm (the table's unique index).
 */
export async function queueAlarmTexts(trx: Executor, deps: TextingDeps, incident: IncidentRow, reason: AlarmReason): Promise<number> {
  if (!deps.gateway || incident.environment !== 'live' || Number(incident.is_drill) === 1 || !incident.site_id) return 0;
  const site = await getSite(trx, { organizationId: incident.organization_id }, incident.site_id);
  // An emergency short code (112) is called, not texted.
  const rows = site.call_list.filter((entry) => textable(entry.phone)).map((entry) =>
    queuedText(deps, incident, {
      incident_id: incident.incident_id,
      site_id: site.site_id,
      reason,
      recipient_name: entry.name,
      phone: entry.phone,
      body: alarmText(reason, incident, site.name, deps.publicUrl, entry.language),
    }),
  );
  await insertMessages(trx, rows);
  return rows.length;
}

/** Texts by status, every status listed (zeros included), for /metrics. */
export async function textMessageCounts(db: Executor): Promise<Record<TextMessage['status'], number>> {
  const counts: Record<TextMessage['status'], number> = { queued: 0, sent: 0, delivered: 0, failed: 0 };
  for (const { status, n } of await messageCounts(db)) if (status in counts) counts[status as TextMessage['status']] = Number(n);
  return counts;
}

export function rowToTextMessage(row: TextMessageRow): TextMessage {
  return {
    message_id: row.message_id,
    incident_id: row.incident_id,
    log_id: row.log_id ?? null,
    site_id: row.site_id,
    reason: row.reason as TextMessage['reason'],
    recipient: { name: row.recipient_name, phone: row.phone },
    body: row.body,
    status: row.status as TextMessage['status'],
    attempts: Number(row.attempts),
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
    delivered_at: row.delivered_at,
    failed_at: row.failed_at,
  };
}

export async function listTextMessages(
  db: Executor,
  tenant: Tenant,
  query: PageRequest & { incident_id?: string; status?: string },
  options: { hostTexts: boolean },
): Promise<Page<TextMessage>> {
  const filter = { incidentId: query.incident_id, status: query.status, withoutReason: options.hostTexts ? undefined : 'visitor_arrived' };
  const [paged, total] = await Promise.all([listMessageRows(db, tenant, filter, query), countMessages(db, tenant, filter)]);
  return toPage(paged.rows.map(rowToTextMessage), total, paged, query.limit);
}

/** A visit as a host's text needs it. */
export interface Arrival {
  logId: string;
  siteId: string | null;
  entryPoint: string | null;
  visitorName: string | null;
  hostName: string | null;
  /** E.164, from the code. */
  hostPhone: string;
  checkedInAt: string;
}

/**
 * Queues the text telling a host their visitor arrived, in the check-in's transaction: live only
 * (a sandbox code texts nobody), and only while SMS is on. Named by the visitor's name as the
 * code has it, the site and gate, and the time in the site's time zone.
 */
export async function queueHostText(trx: Executor, deps: TextingDeps, tenant: Tenant, arrival: Arrival): Promise<void> {
  if (!deps.gateway || tenant.environment !== 'live') return;
  const site = arrival.siteId ? await getSite(trx, { organizationId: tenant.organizationId }, arrival.siteId).catch(() => undefined) : undefined;
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: site?.time_zone ?? 'Africa/Lagos' }).format(new Date(arrival.checkedInAt));
  const where = [site?.name, arrival.entryPoint].filter(Boolean).join(', ');
  await insertMessages(trx, [
    queuedText(deps, { organization_id: tenant.organizationId, environment: tenant.environment }, {
      incident_id: null,
      log_id: arrival.logId,
      site_id: arrival.siteId,
      reason: 'visitor_arrived',
      recipient_name: arrival.hostName ?? 'Host',
      phone: arrival.hostPhone,
      body: `TSARO: ${arrival.visitorName ? `Your visitor ${arrival.visitorName}` : 'Your visitor'} has arrived${where ? ` at ${where}` : ''} (${time}).`,
    }),
  ]);
}

/** The check-in's hook (access-codes/service.ts, `HostTexts`) bound to this server's texting. */
export const hostTextsOf = (deps: TextingDeps) => (trx: Executor, tenant: Tenant, arrival: Arrival) => queueHostText(trx, deps, tenant, arrival);

/** Where the gateway reports this message's delivery: its id and token, Kannel's `%d` for the status. */
export function deliveryReportUrl(publicUrl: string, row: Pick<TextMessageRow, 'message_id'>, token: string): string {
  return `${publicUrl}/v1/hooks/kannel/dlr?id=${encodeURIComponent(row.message_id)}&token=${encodeURIComponent(token)}&status=%d`;
}

const tenantOf = (row: TextMessageRow): Tenant => ({ organizationId: row.organization_id, environment: row.environment });
const who = (row: TextMessageRow) => `${row.recipient_name} (${row.phone})`;

/** A timeline entry about a text, on its incident; a failure to write it is logged by the caller, never lost silently. */
export async function noteOnIncident(db: Executor, deps: EventDeps, row: TextMessageRow, event: 'sms_sent' | 'sms_delivered' | 'sms_failed', detail?: string): Promise<void> {
  if (!row.incident_id) return;
  const words = { sms_sent: `Text sent to ${who(row)}`, sms_delivered: `Text delivered to ${who(row)}`, sms_failed: `Text to ${who(row)} failed${detail ? `: ${detail}` : ''}` };
  await addIncidentTimelineEntry(db, deps, tenantOf(row), row.incident_id, { event, message: words[event] });
}

/** Kannel's `%d`: 1 delivered, 2 failed, 4 buffered, 8 accepted by the SMSC, 16 rejected by the SMSC. */
const DELIVERED = 1;
const FAILED = [2, 16];

/**
 * A delivery report from the gateway. The token must be the message's own (unknown id or wrong
 * token: 404, the same answer, so a report cannot probe for ids). A final report moves `sent`
 * (or a `queued` message whose hand-over answer was lost) to delivered or failed, once, with its
 * timeline entry; intermediate ones (buffered, accepted by the SMSC) change nothing.
 */
export async function recordDeliveryReport(
  db: Executor,
  deps: Pick<TextingDeps, 'clock' | 'webhookQueue' | 'secretBox'> & { clock: Clock },
  report: { id: string; token: string; status: number; answer?: string },
): Promise<{ status: string }> {
  const row = await findMessageById(db, report.id);
  if (!row || !sameToken(deps.secretBox.open(row.dlr_token_sealed), report.token)) throw notFound('Message');
  const at = deps.clock.now().toISOString();
  // The text's new status and its timeline entry commit together: a report is never half recorded.
  const outcome = await inTransaction(db, async (trx) => {
    if (report.status === DELIVERED) {
      if (!(await reportDelivery(trx, row.message_id, ['queued', 'sent'], { status: 'delivered', delivered_at: at, updated_at: at, locked_until: null }))) return undefined;
      await noteOnIncident(trx, deps, row, 'sms_delivered');
      return 'delivered';
    }
    if (FAILED.includes(report.status)) {
      const why = `the network reported it ${report.status === 2 ? 'undelivered' : 'rejected'}${report.answer ? ` (${report.answer})` : ''}`;
      if (!(await reportDelivery(trx, row.message_id, ['queued', 'sent'], { status: 'failed', failed_at: at, updated_at: at, last_error: why, locked_until: null }))) return undefined;
      await noteOnIncident(trx, deps, row, 'sms_failed', why);
      return 'failed';
    }
    return undefined;
  });
  return { status: outcome ?? (await findMessageById(db, row.message_id))!.status };
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The texts' tallies (server/db/tallies.ts), folded in the background. */
export { MESSAGE_TALLY } from './store.ts';
