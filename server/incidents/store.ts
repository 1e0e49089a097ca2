import type { Executor, IncidentRow, Tenant, TimelineRow } from '../db/schema.ts';

export type { Tenant };

/**
 * Inserts an incident; false when one with its idempotency_key exists already. ON CONFLICT
 * rather than catching the violation: a failed statement aborts a whole PostgreSQL transaction.
 */
export async function insertIncident(db: Executor, row: IncidentRow): Promise<boolean> {
  const result = await db
    .insertInto('incidents')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'environment', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findIncident(db: Executor, tenant: Tenant, incidentId: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .where('organization_id', '=', tenant.organizationId)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

export async function findIncidentByIdempotencyKey(db: Executor, tenant: Tenant, key: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('organization_id', '=', tenant.organizationId)
    .where('environment', '=', tenant.environment)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export interface IncidentFilter {
  status?: string;
  category?: string;
  severity?: string;
  createdFrom?: string;
  createdBefore?: string;
}

export async function listIncidentRows(
  db: Executor,
  tenant: Tenant,
  filter: IncidentFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: IncidentRow[]; total: number }> {
  let base = db
    .selectFrom('incidents')
    .where('organization_id', '=', tenant.organizationId)
    .where('environment', '=', tenant.environment);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.category) base = base.where('category', '=', filter.category);
  if (filter.severity) base = base.where('severity', '=', filter.severity);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('incident_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Compare-and-set on `version`: false when someone else changed the incident first. */
export async function updateIncidentAtVersion(
  db: Executor,
  incidentId: string,
  expectedVersion: number,
  changes: Partial<IncidentRow>,
): Promise<boolean> {
  const result = await db
    .updateTable('incidents')
    .set(changes)
    .where('incident_id', '=', incidentId)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertTimelineRows(db: Executor, rows: TimelineRow[]): Promise<void> {
  await db.insertInto('incident_timeline').values(rows).execute();
}

export async function appendTimelineRow(db: Executor, entry: Omit<TimelineRow, 'seq'>): Promise<void> {
  const last = await db
    .selectFrom('incident_timeline')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('incident_id', '=', entry.incident_id)
    .executeTakeFirst();
  await db
    .insertInto('incident_timeline')
    .values({ ...entry, seq: Number(last?.seq ?? 0) + 1 })
    .execute();
}

export async function timelinesOf(db: Executor, incidentIds: string[]): Promise<Map<string, TimelineRow[]>> {
  const byIncident = new Map<string, TimelineRow[]>(incidentIds.map((id) => [id, []]));
  if (incidentIds.length === 0) return byIncident;
  const rows = await db
    .selectFrom('incident_timeline')
    .selectAll()
    .where('incident_id', 'in', incidentIds)
    .orderBy('incident_id')
    .orderBy('seq')
    .execute();
  for (const row of rows) byIncident.get(row.incident_id)?.push(row);
  return byIncident;
}
