import { preparedQuery } from '../db/prepared.ts';
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

export async function listAudit(db: Executor, filter: AuditFilter, page: { offset: number; limit: number }): Promise<{ rows: AuditRow[]; total: number }> {
  let base = db.selectFrom('audit_log').where('organization_id', '=', filter.organizationId);
  if (filter.actorType) base = base.where('actor_type', '=', filter.actorType);
  if (filter.actorId) base = base.where('actor_id', '=', filter.actorId);
  if (filter.action) base = base.where('action', '=', filter.action);
  if (filter.resourceId) base = base.where('resource_id', '=', filter.resourceId);
  if (filter.from) base = base.where('created_at', '>=', filter.from);
  if (filter.to) base = base.where('created_at', '<', filter.to);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('audit_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
