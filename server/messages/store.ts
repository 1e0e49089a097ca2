import { sql } from 'kysely';
import type { Total } from '../http/pagination.ts';
import type { Engine } from '../db/database.ts';
import { pagedRows, type ListOrder, type PageRequest } from '../db/paged.ts';
import { isPostgres, type AlarmStandDownRow, type Executor, type Tenant, type TextMessageRow } from '../db/schema.ts';
import { listTotal, tallySkip, tenantTally, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import { fromTenant, whereSiteReached, whereTenant } from '../db/tenant.ts';

/** Text messages (migration 0028): this store owns `text_messages`. */

/**
 * Queues messages; one already queued for the same alarm and number (another host, or a
 * transition retried) is left alone, so each number is texted once per alarm.
 */
export async function insertMessages(db: Executor, rows: TextMessageRow[]): Promise<void> {
  if (!rows.length) return;
  await db
    .insertInto('text_messages')
    .values(rows)
    .onConflict((oc) => oc.columns(['incident_id', 'reason', 'phone']).doNothing())
    .execute();
}

/**
 * Takes up to `limit` due messages for this host until `leaseUntil`. On PostgreSQL the rows are
 * locked with SKIP LOCKED, so two hosts never hand the same message to the gateway at once.
 */
export async function claimDueMessages(db: Executor, engine: Engine, now: string, leaseUntil: string, limit: number): Promise<TextMessageRow[]> {
  let due = db
    .selectFrom('text_messages')
    .select('message_id')
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit);
  if (engine === 'postgres') due = due.forUpdate().skipLocked();
  return db.updateTable('text_messages').set({ locked_until: leaseUntil }).where('message_id', 'in', due).returningAll().execute();
}

/**
 * The gateway took a claimed message: `sent`, unless its delivery report already arrived (Kannel
 * reports within milliseconds of answering, sometimes before this is written): a report's
 * `delivered` or `failed` stays.
 */
export async function markHandedOver(db: Executor, messageId: string, changes: Pick<TextMessageRow, 'attempts' | 'sent_at' | 'updated_at'>): Promise<void> {
  await db
    .updateTable('text_messages')
    .set((eb) => ({ ...changes, last_error: null, locked_until: null, status: eb.case().when('status', '=', 'queued').then('sent').else(eb.ref('status')).end() }))
    .where('message_id', '=', messageId)
    .execute();
}

/** Moves a claimed message on and lets go of its lease. */
export async function finishMessageAttempt(db: Executor, messageId: string, changes: Partial<TextMessageRow>): Promise<void> {
  await db.updateTable('text_messages').set({ ...changes, locked_until: null }).where('message_id', '=', messageId).execute();
}

export async function findMessageById(db: Executor, messageId: string): Promise<TextMessageRow | undefined> {
  return db.selectFrom('text_messages').selectAll().where('message_id', '=', messageId).executeTakeFirst();
}

/** A delivery report's change, only from a status it may follow (a late `sent` never undoes `delivered`). */
export async function reportDelivery(db: Executor, messageId: string, from: readonly string[], changes: Partial<TextMessageRow>): Promise<boolean> {
  const result = await db.updateTable('text_messages').set(changes).where('message_id', '=', messageId).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Texts, newest first: the cursor seeks `text_messages_by_tenant`. */
const MESSAGE_ORDER: ListOrder = { name: 'text_messages', kind: 'keyset', column: 'created_at', id: 'message_id', direction: 'desc' };

const MESSAGE_ROLLUP: Rollup = { table: 'message_tallies', dims: ['site_id', 'status', 'reason'] };

/** Texts are tallied by the day they were queued once delivered, failed, held, merged or withdrawn, which never change again (server/db/tallies.ts). */
export const MESSAGE_TALLY: TallySpec = {
  name: 'texts',
  lockKey: 6,
  table: 'text_messages',
  id: 'message_id',
  dayColumn: 'created_at',
  scope: ['organization_id', 'environment'],
  settled: sql<boolean>`b.status in ('delivered', 'failed', 'held', 'merged', 'withdrawn')`,
  rollups: [MESSAGE_ROLLUP],
};

export interface MessageFilter {
  incidentId?: string;
  status?: string;
  /** Leave out the texts of these reasons (hosts' and visitors' texts, for a caller who may not read visits). */
  withoutReasons?: readonly string[];
}

// A text is of its incident's or visit's site: a caller limited to sites sees only theirs.
function filteredMessages(db: Executor, tenant: Tenant, filter: MessageFilter) {
  let base = fromTenant(db, tenant, 'text_messages');
  if (filter.withoutReasons?.length) base = base.where('reason', 'not in', filter.withoutReasons);
  if (filter.incidentId) base = base.where('incident_id', '=', filter.incidentId);
  if (filter.status) base = base.where('status', '=', filter.status);
  return base;
}

export async function listMessageRows(db: Executor, tenant: Tenant, filter: MessageFilter, page: PageRequest) {
  return pagedRows(filteredMessages(db, tenant, filter).selectAll(), MESSAGE_ORDER, page, { skip: tallySkip(db, messageTally(tenant, filter)) });
}

/** How the texts listed are counted (total, deep pages): one incident's on its index, the rest from the tallies. */
function messageTally(tenant: Tenant, filter: MessageFilter): ListTally {
  return {
    spec: MESSAGE_TALLY,
    rollup: MESSAGE_ROLLUP,
    filter: {
      ...tenantTally(tenant, 'organization'),
      equals: filter.status ? { status: filter.status } : {},
      except: filter.withoutReasons?.length ? { reason: filter.withoutReasons } : {},
    },
    narrowed: filter.incidentId,
  };
}

/** How many texts match (`messageTally`). */
export async function countMessages(db: Executor, tenant: Tenant, filter: MessageFilter): Promise<Total> {
  return listTotal(db, () => filteredMessages(db, tenant, filter), messageTally(tenant, filter));
}

/** Texts to a host or a visitor: held over a ceiling, never merged (ceilings.ts). */
export const VISIT_REASONS = ['visitor_arrived', 'visitor_pass'] as const;

/**
 * On PostgreSQL, makes the transaction wait until no other host is deciding the organization's
 * texts against the ceilings (an advisory lock, held to the end of the transaction), so two
 * hosts never both count 9 and clear a 10th and 11th. SQLite runs one writing transaction at a
 * time already. Only the sender takes it, after its claim, and takes no other lock after it.
 */
export async function waitForCeilingDecisions(trx: Executor, organizationId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`text-ceilings:${organizationId}`}, 0))`.execute(trx);
}

/** Texts the ceilings let go since `since`: the organization's, or to one number; alarms only, or every text. */
export async function countCleared(db: Executor, tenant: Tenant, filter: { phone?: string; alarmsOnly: boolean }, since: string): Promise<number> {
  let query = db.selectFrom('text_messages').where(whereTenant(tenant)).where('cleared_at', '>=', since);
  if (filter.phone !== undefined) query = query.where('phone', '=', filter.phone);
  if (filter.alarmsOnly) query = query.where('reason', 'not in', VISIT_REASONS);
  const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

/** When the ceilings last let an alarm text go to this number. */
export async function lastClearedAlarm(db: Executor, tenant: Tenant, phone: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('text_messages')
    .where(whereTenant(tenant))
    .where('phone', '=', phone)
    .where('cleared_at', 'is not', null)
    .where('reason', 'not in', VISIT_REASONS)
    .select((eb) => eb.fn.max('cleared_at').as('at'))
    .executeTakeFirst();
  return row?.at ?? undefined;
}

/** The alarms to one number from one site's call list that the ceilings have yet to decide, oldest first. */
export async function undecidedAlarms(db: Executor, tenant: Tenant, phone: string, siteId: string | null): Promise<TextMessageRow[]> {
  return db
    .selectFrom('text_messages')
    .selectAll()
    .where(whereTenant(tenant))
    .where('phone', '=', phone)
    .where('cleared_at', 'is', null)
    .where('status', '=', 'queued')
    .where('reason', 'in', ALARM_REASONS)
    .where('site_id', siteId === null ? 'is' : '=', siteId)
    .orderBy('created_at')
    .orderBy('message_id')
    .execute();
}

/** The alarms merged into a text, which went out (or will) in it. */
export async function messagesMergedInto(db: Executor, messageId: string): Promise<TextMessageRow[]> {
  return db.selectFrom('text_messages').selectAll().where('merged_into', '=', messageId).orderBy('created_at').orderBy('message_id').execute();
}

/** The ceilings' decision on a text still undecided (queued, not cleared); false when it was decided meanwhile. */
export async function decideMessage(db: Executor, messageId: string, changes: Partial<TextMessageRow>): Promise<boolean> {
  const result = await db
    .updateTable('text_messages')
    .set(changes)
    .where('message_id', '=', messageId)
    .where('status', '=', 'queued')
    .where('cleared_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Held and merged texts made since `since`, as the caller may list them (their sites; host texts only with `logs:read`). */
export async function heldAndMergedSince(db: Executor, tenant: Tenant, since: string, filter: { withoutReasons?: readonly string[] }): Promise<{ held: number; merged: number }> {
  let query = db
    .selectFrom('text_messages')
    .where(whereTenant(tenant))
    .where(whereSiteReached(tenant, 'organization'))
    .where('created_at', '>=', since)
    .where('status', 'in', ['held', 'merged']);
  if (filter.withoutReasons?.length) query = query.where('reason', 'not in', filter.withoutReasons);
  const rows = await query.select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
  return { held: count('held'), merged: count('merged') };
}

/** Messages by status, for /metrics. */
export async function messageCounts(db: Executor): Promise<Array<{ status: string; n: number }>> {
  return db.selectFrom('text_messages').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
}

/** The reasons a text is an alarm to a call list (not a host's text, an all-clear or a visitor's pass). */
export const ALARM_REASONS = ['escalated', 'unresponsive', 'called_for_help', 'false_alarm'] as const;

/**
 * Records that the incident's alarm texts are over (migration 0045), once: false when it was
 * recorded already (the all-clear goes once per incident).
 */
export async function insertStandDown(db: Executor, row: AlarmStandDownRow): Promise<boolean> {
  const result = await db.insertInto('alarm_stand_downs').values(row).onConflict((oc) => oc.column('incident_id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function isStoodDown(db: Executor, incidentId: string): Promise<boolean> {
  return (await db.selectFrom('alarm_stand_downs').select('incident_id').where('incident_id', '=', incidentId).executeTakeFirst()) !== undefined;
}

/**
 * The incident's alarm texts not yet handed over become `withdrawn`, never sent: those a sender
 * holds right now (a live lease) may reach the gateway, and count as gone out. A text other
 * alarms were merged into stays: it carries them too.
 */
export async function withdrawQueuedAlarms(db: Executor, incidentId: string, now: string, why: string): Promise<void> {
  await db
    .updateTable('text_messages')
    .set({ status: 'withdrawn', last_error: why, locked_until: null, updated_at: now })
    .where('incident_id', '=', incidentId)
    .where('status', '=', 'queued')
    .where('reason', 'in', ALARM_REASONS)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('text_messages as carried').select('carried.message_id').whereRef('carried.merged_into', '=', 'text_messages.message_id'))))
    .execute();
}

/** The numbers an alarm text about the incident went out to (or is going out to, under a sender's lease), each once. */
export async function alarmedNumbers(db: Executor, incidentId: string, now: string): Promise<Array<{ phone: string; recipient_name: string }>> {
  const rows = await db
    .selectFrom('text_messages')
    .select(['phone', 'recipient_name'])
    .where('incident_id', '=', incidentId)
    .where('reason', 'in', ALARM_REASONS)
    .where((eb) =>
      eb.or([eb('status', 'in', ['sent', 'delivered', 'merged']), eb.and([eb('status', '=', 'queued'), eb('locked_until', '>=', now)])]),
    )
    .orderBy('created_at')
    .execute();
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.phone) && seen.add(row.phone));
}

/** Forgets a text's sealed link once the gateway took it (or it failed for good). */
export async function forgetLink(db: Executor, messageId: string): Promise<void> {
  await db.updateTable('text_messages').set({ link_sealed: null }).where('message_id', '=', messageId).where('link_sealed', 'is not', null).execute();
}
