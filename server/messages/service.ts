import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Page } from '../../shared/schemas/common.ts';
import type { TextGateway, TextMessage } from '../../shared/schemas/messages.ts';
import { HOUR_MS } from '../../shared/time.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { inTransaction, type Executor, type Tenant, type TextMessageRow } from '../db/schema.ts';
import type { EventDeps } from '../events/service.ts';
import { notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { addIncidentTimelineEntry } from '../incidents/service.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { getSite } from '../sites/service.ts';
import { textCeilingsOf, type TextCeilings } from './ceilings.ts';
import { cleanName } from './clean-name.ts';
import type { SmsGateway } from './gateway.ts';
import { countMessages, findMessageById, heldAndMergedSince, insertMessages, listMessageRows, messageCounts, messagesMergedInto, reportDelivery, VISIT_REASONS } from './store.ts';
import { withSecretLink } from './secret-links.ts';
import { alarmNames, clockTime, dayAndTime, visitorArrivedText, visitorPassText, type AlarmReason } from './templates.ts';

/** What texting takes: the gateway (none: SMS is off), where links and delivery reports point, the sealing key and the hourly ceilings. */
export interface TextingDeps extends EventDeps {
  gateway: SmsGateway | undefined;
  /** PUBLIC_URL: the console's links in a text, and the gateway's delivery reports. */
  publicUrl: string;
  secretBox: SecretBox;
  ceilings: TextCeilings;
}

export type { AlarmReason };

/** This server's texting, from its settings: one place for the app's routes and the sender. */
export const textingOf = (
  config: Pick<Config, 'PUBLIC_URL' | 'SMS_MAX_PER_RECIPIENT_HOUR' | 'SMS_MAX_PER_ORGANIZATION_HOUR' | 'SMS_ALARM_MERGE_S'>,
  parts: Pick<TextingDeps, 'gateway' | 'secretBox' | 'clock' | 'webhookQueue'>,
): TextingDeps => ({ ...parts, publicUrl: config.PUBLIC_URL, ceilings: textCeilingsOf(config) });

/** A new text, queued and due now, with its delivery-report token sealed. */
export function queuedText(
  deps: TextingDeps,
  tenant: Pick<TextMessageRow, 'organization_id' | 'environment'>,
  text: Pick<TextMessageRow, 'incident_id' | 'site_id' | 'reason' | 'recipient_name' | 'phone' | 'body'> & { log_id?: string | null; link_sealed?: string | null },
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
    cleared_at: null,
    merged_into: null,
    dlr_token_sealed: deps.secretBox.seal(randomBytes(18).toString('base64url')),
    created_at: at,
    updated_at: at,
    sent_at: null,
    delivered_at: null,
    failed_at: null,
  };
}

/** Texts by status, every status listed (zeros included), for /metrics. */
export async function textMessageCounts(db: Executor): Promise<Record<TextMessage['status'], number>> {
  const counts: Record<TextMessage['status'], number> = { queued: 0, sent: 0, delivered: 0, failed: 0, held: 0, merged: 0, withdrawn: 0 };
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
    merged_into: row.merged_into ?? null,
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
  const filter = { incidentId: query.incident_id, status: query.status, withoutReasons: options.hostTexts ? undefined : VISIT_REASONS };
  const [paged, total] = await Promise.all([listMessageRows(db, tenant, filter, query), countMessages(db, tenant, filter)]);
  return toPage(paged.rows.map(rowToTextMessage), total, paged, query.limit);
}

/**
 * Whether this server texts, through which gateway, its hourly ceilings, and the texts they held
 * and merged in the last hour, counted as the caller may list them (`GET /messages/gateway`:
 * the console says so).
 */
export async function textGatewayState(db: Executor, deps: Pick<TextingDeps, 'gateway' | 'ceilings' | 'clock'>, tenant: Tenant, options: { hostTexts: boolean }): Promise<TextGateway> {
  const gateway = deps.gateway?.name === 'kannel' ? 'kannel' : null;
  const since = new Date(deps.clock.now().getTime() - HOUR_MS).toISOString();
  return {
    enabled: gateway !== null,
    gateway,
    ceilings: {
      per_recipient_per_hour: deps.ceilings.perRecipientHour,
      per_organization_per_hour: deps.ceilings.perOrganizationHour,
      alarm_merge_seconds: deps.ceilings.alarmMergeS,
    },
    last_hour: await heldAndMergedSince(db, tenant, since, { withoutReasons: options.hostTexts ? undefined : VISIT_REASONS }),
  };
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
  const where = [cleanName(site?.name), cleanName(arrival.entryPoint)].filter((name) => name !== undefined);
  await insertMessages(trx, [
    queuedText(deps, { organization_id: tenant.organizationId, environment: tenant.environment }, {
      incident_id: null,
      log_id: arrival.logId,
      site_id: arrival.siteId,
      reason: 'visitor_arrived',
      recipient_name: arrival.hostName ?? 'Host',
      phone: arrival.hostPhone,
      body: visitorArrivedText(cleanName(arrival.visitorName), where, clockTime(arrival.checkedInAt, site?.time_zone)),
    }),
  ]);
}

/** A visitor's pass as its text needs it (access-codes/pass-links.ts). */
export interface PassToText {
  codeId: string;
  code: string;
  siteId: string | null;
  entryPoint: string | null;
  visitorName: string | null;
  /** E.164, a mobile number. */
  phone: string;
  validFrom: string;
  /** The pass's secret link: sealed until the gateway takes the text, cut short in `body` (secret-links.ts). */
  link: string;
}

/**
 * Queues the visitor's pass as a text (issue #48): where, from when, the link to the pass's image
 * and the code to type. Answers the text's id. The caller checked that the code is live and
 * that SMS is on.
 */
export async function queueVisitorPass(trx: Executor, deps: TextingDeps, tenant: Tenant, pass: PassToText): Promise<string> {
  const site = pass.siteId ? await getSite(trx, { organizationId: tenant.organizationId }, pass.siteId).catch(() => undefined) : undefined;
  const names = alarmNames({ site: site?.name, gate: pass.entryPoint });
  const from = dayAndTime(pass.validFrom, site?.time_zone);
  const row = queuedText(deps, { organization_id: tenant.organizationId, environment: tenant.environment }, {
    incident_id: null,
    site_id: pass.siteId,
    reason: 'visitor_pass',
    recipient_name: pass.visitorName ?? 'Visitor',
    phone: pass.phone,
    ...withSecretLink(deps.secretBox, pass.link, (link) => visitorPassText({ site: names.site, gate: names.gate, from, link, code: pass.code })),
  });
  await insertMessages(trx, [row]);
  return row.message_id;
}

/** The pass's hook (access-codes/pass-links.ts) bound to this server's texting: undefined while SMS is off. */
export const passTextsOf = (deps: TextingDeps) =>
  deps.gateway ? { publicUrl: deps.publicUrl, queue: (trx: Executor, tenant: Tenant, pass: PassToText) => queueVisitorPass(trx, deps, tenant, pass) } : undefined;

/** The check-in's hook (access-codes/service.ts, `HostTexts`) bound to this server's texting. */
export const hostTextsOf = (deps: TextingDeps) => (trx: Executor, tenant: Tenant, arrival: Arrival) => queueHostText(trx, deps, tenant, arrival);

/** Where the gateway reports this message's delivery: its id and token, Kannel's `%d` for the status. */
export function deliveryReportUrl(publicUrl: string, row: Pick<TextMessageRow, 'message_id'>, token: string): string {
  return `${publicUrl}/v1/hooks/kannel/dlr?id=${encodeURIComponent(row.message_id)}&token=${encodeURIComponent(token)}&status=%d`;
}

const tenantOf = (row: TextMessageRow): Tenant => ({ organizationId: row.organization_id, environment: row.environment });
const who = (row: TextMessageRow) => `${row.recipient_name} (${row.phone})`;

/**
 * A timeline entry about a text on its incident and, when it carries merged alarms, on theirs too
 * (each incident once): an alarm merged over a ceiling was texted in that one text. A failure to
 * write it is logged by the caller, never lost silently.
 */
export async function noteOnIncident(db: Executor, deps: EventDeps, row: TextMessageRow, event: 'sms_sent' | 'sms_delivered' | 'sms_failed', detail?: string): Promise<void> {
  const carried = await messagesMergedInto(db, row.message_id);
  const together = carried.length ? ` (one text for ${carried.length + 1} alarms)` : '';
  const words = { sms_sent: `Text sent to ${who(row)}${together}`, sms_delivered: `Text delivered to ${who(row)}${together}`, sms_failed: `Text to ${who(row)}${together} failed${detail ? `: ${detail}` : ''}` };
  const incidents = new Set([row, ...carried].map((text) => text.incident_id).filter((id) => id !== null));
  for (const incidentId of incidents) await addIncidentTimelineEntry(db, deps, tenantOf(row), incidentId, { event, message: words[event] });
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
