import { sql } from 'kysely';
import type { Total } from '../http/pagination.ts';
import { pagedRows, type ListOrder, type PageRequest } from '../db/paged.ts';
import { preparedQuery } from '../db/prepared.ts';
import { listTotal, tallySkip, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import type { AuditRow, Executor } from '../db/schema.ts';

/** Deferred (server/db/deferred-write.ts): in a request's transaction on PostgreSQL it rides with the COMMIT, no round trip of its own. */
export async function insertAudit(db: Executor, row: AuditRow): Promise<void> {
  await auditInsert(db, row);
}

/** Every change's entry (an SOS's among them): built and compiled once (server/db/prepared.ts). */
const auditInsert = preparedQuery((db, row: AuditRow) => db.insertInto('audit_log').values(row), { deferred: true });

export interface AuditFilter {
  organizationId: string;
  actorType?: string;
  actorId?: string;
  action?: string;
  resourceId?: string;
  from?: string;
  to?: string;
}

/** The log, newest first: the cursor seeks `audit_log_by_org`. */
const AUDIT_ORDER: ListOrder = { name: 'audit_log', kind: 'keyset', column: 'created_at', id: 'audit_id', direction: 'desc' };

const AUDIT_ROLLUP: Rollup = { table: 'audit_tallies', dims: ['environment', 'actor_type', 'action'] };

/** Entries never change: tallied by day as soon as the fold runs (server/db/tallies.ts). The log is the organization's, both environments. */
export const AUDIT_TALLY: TallySpec = {
  name: 'audit',
  lockKey: 5,
  table: 'audit_log',
  id: 'audit_id',
  dayColumn: 'created_at',
  scope: ['organization_id'],
  settled: sql<boolean>`1 = 1`,
  rollups: [AUDIT_ROLLUP],
};

function filteredAudit(db: Executor, filter: AuditFilter) {
  let base = db.selectFrom('audit_log').where('organization_id', '=', filter.organizationId);
  if (filter.actorType) base = base.where('actor_type', '=', filter.actorType);
  if (filter.actorId) base = base.where('actor_id', '=', filter.actorId);
  if (filter.action) base = base.where('action', '=', filter.action);
  if (filter.resourceId) base = base.where('resource_id', '=', filter.resourceId);
  if (filter.from) base = base.where('created_at', '>=', filter.from);
  if (filter.to) base = base.where('created_at', '<', filter.to);
  return base;
}

export async function listAudit(db: Executor, filter: AuditFilter, page: PageRequest) {
  return pagedRows(filteredAudit(db, filter).selectAll(), AUDIT_ORDER, page, { skip: tallySkip(db, auditTally(filter)) });
}

/** How the entries listed are counted (total, deep pages): one actor's or one resource's on its index, the rest from the tallies. */
function auditTally(filter: AuditFilter): ListTally {
  const equals: Record<string, string> = {};
  if (filter.actorType) equals.actor_type = filter.actorType;
  if (filter.action) equals.action = filter.action;
  return {
    spec: AUDIT_TALLY,
    rollup: AUDIT_ROLLUP,
    filter: { scope: { organization_id: filter.organizationId }, equals, from: filter.from, before: filter.to },
    narrowed: filter.actorId || filter.resourceId,
  };
}

/** How many entries match (`auditTally`). */
export async function countAudit(db: Executor, filter: AuditFilter): Promise<Total> {
  return listTotal(db, () => filteredAudit(db, filter), auditTally(filter));
}
