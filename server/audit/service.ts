import type { z } from 'zod';
import type { AuditEntry } from '../../shared/schemas/console.ts';
import type { Page } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import type { AuditRow, Executor } from '../db/schema.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { countAudit, insertAudit, listAudit, type AuditFilter } from './store.ts';

type Entry = z.infer<typeof AuditEntry>;

export interface AuditEvent {
  organizationId: string;
  environment: string | null;
  actor: { type: 'person' | 'key' | 'operator'; id: string; label: string };
  /** The operation as the OpenAPI document names it. */
  action: string;
  resourceType: string | null;
  resourceId: string | null;
  ip: string | null;
}

/** Records a change, in the caller's transaction where there is one: it commits with the change. */
export async function recordAudit(db: Executor, clock: Clock, event: AuditEvent): Promise<void> {
  const at = clock.now();
  await insertAudit(db, {
    audit_id: newId('aud', at),
    organization_id: event.organizationId,
    environment: event.environment,
    actor_type: event.actor.type,
    actor_id: event.actor.id,
    actor_label: event.actor.label,
    action: event.action,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    ip: event.ip,
    created_at: at.toISOString(),
  });
}

function rowToEntry(row: AuditRow): Entry {
  return {
    audit_id: row.audit_id,
    actor: { type: row.actor_type as Entry['actor']['type'], id: row.actor_id, label: row.actor_label },
    action: row.action,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    environment: row.environment as Entry['environment'],
    ip: row.ip,
    created_at: row.created_at,
  };
}

export async function auditLog(db: Executor, filter: AuditFilter, query: PageRequest): Promise<Page<Entry>> {
  const [paged, total] = await Promise.all([listAudit(db, filter, query), countAudit(db, filter)]);
  return toPage(paged.rows.map(rowToEntry), total, paged, query.limit);
}

/** The audit log's tallies (server/db/tallies.ts), folded in the background. */
export { AUDIT_TALLY } from './store.ts';
