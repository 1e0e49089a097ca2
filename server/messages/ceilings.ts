import { HOUR_MS } from '../../shared/time.ts';
import type { Config } from '../config.ts';
import { inTransaction, type Db, type Executor, type Tenant, type TextMessageRow } from '../db/schema.ts';
import { getSite } from '../sites/service.ts';
import type { Clock } from '../clock.ts';
import { alarmNames, clockTime, mergedAlarmsText } from './templates.ts';
import {
  countCleared,
  decideMessage,
  findMessageById,
  lastClearedAlarm,
  messagesMergedInto,
  undecidedAlarms,
  VISIT_REASONS,
  waitForCeilingDecisions,
} from './store.ts';

const isVisitText = (row: TextMessageRow) => (VISIT_REASONS as readonly string[]).includes(row.reason);

/** How many texts may go in any hour (docs/operations.md, "Text messages through Kannel"). */
export interface TextCeilings {
  /** To one number, from one organization (SMS_MAX_PER_RECIPIENT_HOUR). */
  perRecipientHour: number;
  /** From one organization, to all its numbers (SMS_MAX_PER_ORGANIZATION_HOUR). */
  perOrganizationHour: number;
  /** Once over a ceiling, the least time between two alarm texts to one number (SMS_ALARM_MERGE_S). */
  alarmMergeS: number;
}

export const textCeilingsOf = (config: Pick<Config, 'SMS_MAX_PER_RECIPIENT_HOUR' | 'SMS_MAX_PER_ORGANIZATION_HOUR' | 'SMS_ALARM_MERGE_S'>): TextCeilings => ({
  perRecipientHour: config.SMS_MAX_PER_RECIPIENT_HOUR,
  perOrganizationHour: config.SMS_MAX_PER_ORGANIZATION_HOUR,
  alarmMergeS: config.SMS_ALARM_MERGE_S,
});

export interface CeilingDeps {
  clock: Clock;
  ceilings: TextCeilings;
  publicUrl: string;
}

const tenantOf = (row: TextMessageRow): Tenant => ({ organizationId: row.organization_id, environment: row.environment });

/**
 * The hourly ceilings' decision on the texts the sender claimed, each decided once, before its
 * first hand-over (a retry was decided already). Answers the texts to hand over now.
 *
 * - An all-clear goes at once: there is at most one per alarm text that went out, and it ends
 *   the alarm a call list is acting on.
 * - A host's text (or a visitor's pass) goes while its number and its organization are under their ceilings, counting
 *   every text of the last hour; past either it is `held`: never sent (a late "your visitor has
 *   arrived" misleads), listed and counted.
 * - An alarm is never dropped. It goes while its number and organization are under their
 *   ceilings counting alarms only, so a flood of host texts never delays one. Past either, the
 *   number's undecided alarms from the same site become one text naming how many (the oldest
 *   carries it; the others are `merged` into it), which goes once the number's last alarm text
 *   is SMS_ALARM_MERGE_S old; the alarms that come meanwhile join it.
 *
 * Each organization's decisions run in one transaction under its lock (store.ts), reading each
 * text afresh: another host may have merged it into its own carrier meanwhile.
 */
export async function passCeilings(db: Db, deps: CeilingDeps, claimed: TextMessageRow[]): Promise<TextMessageRow[]> {
  const going = claimed.filter((row) => row.cleared_at !== null);
  const undecided = claimed.filter((row) => row.cleared_at === null);
  for (const organizationId of new Set(undecided.map((row) => row.organization_id))) {
    const rows = undecided.filter((row) => row.organization_id === organizationId);
    await inTransaction(db, async (trx) => {
      await waitForCeilingDecisions(trx, organizationId);
      for (const { message_id } of rows) {
        const row = await findMessageById(trx, message_id);
        if (!row || row.status !== 'queued' || row.cleared_at !== null) continue;
        const goes = row.reason === 'all_clear' ? await clear(trx, deps, row) : isVisitText(row) ? await decideHostText(trx, deps, row) : await decideAlarm(trx, deps, row);
        if (goes) going.push(goes);
      }
    });
  }
  return going;
}

/** Why a text is over a ceiling (the words `last_error` keeps), or undefined when it may go. */
async function overCeiling(trx: Executor, deps: CeilingDeps, row: TextMessageRow, alarmsOnly: boolean): Promise<string | undefined> {
  const since = new Date(deps.clock.now().getTime() - HOUR_MS).toISOString();
  const what = alarmsOnly ? 'alarm texts' : 'texts';
  const { perRecipientHour, perOrganizationHour } = deps.ceilings;
  if ((await countCleared(trx, tenantOf(row), { phone: row.phone, alarmsOnly }, since)) >= perRecipientHour) {
    return `this number was sent ${perRecipientHour} ${what} in the last hour, its ceiling`;
  }
  if ((await countCleared(trx, tenantOf(row), { alarmsOnly }, since)) >= perOrganizationHour) {
    return `the organization sent ${perOrganizationHour} ${what} in the last hour, its ceiling`;
  }
  return undefined;
}

async function clear(trx: Executor, deps: CeilingDeps, row: TextMessageRow, changes: Partial<TextMessageRow> = {}): Promise<TextMessageRow | undefined> {
  const at = deps.clock.now().toISOString();
  const cleared = { ...changes, cleared_at: at, updated_at: at };
  return (await decideMessage(trx, row.message_id, cleared)) ? { ...row, ...cleared } : undefined;
}

async function decideHostText(trx: Executor, deps: CeilingDeps, row: TextMessageRow): Promise<TextMessageRow | undefined> {
  const over = await overCeiling(trx, deps, row, false);
  if (!over) return clear(trx, deps, row);
  await decideMessage(trx, row.message_id, { status: 'held', last_error: `Held, not sent: ${over}`, locked_until: null, updated_at: deps.clock.now().toISOString() });
  return undefined;
}

async function decideAlarm(trx: Executor, deps: CeilingDeps, row: TextMessageRow): Promise<TextMessageRow | undefined> {
  const over = await overCeiling(trx, deps, row, true);
  if (!over) return clear(trx, deps, row);
  const now = deps.clock.now();
  const [carrier, ...others] = await undecidedAlarms(trx, tenantOf(row), row.phone, row.site_id);
  if (!carrier) return undefined;
  for (const other of others) {
    await decideMessage(trx, other.message_id, {
      status: 'merged',
      merged_into: carrier.message_id,
      last_error: `Merged into one text with the other alarms to this number: ${over}`,
      locked_until: null,
      updated_at: now.toISOString(),
    });
  }
  const carried = 1 + (await messagesMergedInto(trx, carrier.message_id)).length;
  const body = carried > 1 ? await mergedBody(trx, deps, carrier, carried) : carrier.body;
  const last = await lastClearedAlarm(trx, tenantOf(row), row.phone);
  const dueAt = last ? Math.max(now.getTime(), Date.parse(last) + deps.ceilings.alarmMergeS * 1000) : now.getTime();
  if (dueAt <= now.getTime()) return clear(trx, deps, carrier, { body });
  // Not yet: it waits for its turn (out of this pass's lease), gathering the alarms that come meanwhile.
  await decideMessage(trx, carrier.message_id, { body, next_attempt_at: new Date(dueAt).toISOString(), locked_until: null, updated_at: now.toISOString() });
  return undefined;
}

/** The carrier's words once it carries `count` alarms: in its recipient's language, naming the site and since when. */
async function mergedBody(trx: Executor, deps: CeilingDeps, carrier: TextMessageRow, count: number): Promise<string> {
  const site = carrier.site_id ? await getSite(trx, { organizationId: carrier.organization_id }, carrier.site_id).catch(() => undefined) : undefined;
  const language = site?.call_list.find((entry) => entry.phone === carrier.phone)?.language;
  return mergedAlarmsText(count, alarmNames({ site: site?.name }).site, clockTime(carrier.created_at, site?.time_zone), language);
}
