import type { Executor, OrganizationRow } from '../db/schema.ts';

export async function insertOrganization(db: Executor, row: OrganizationRow): Promise<void> {
  await db.insertInto('organizations').values(row).execute();
}

export async function findOrganization(db: Executor, organizationId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('organization_id', '=', organizationId).executeTakeFirst();
}

export async function codePrefixTaken(db: Executor, prefix: string): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('organization_id').where('code_prefix', '=', prefix).executeTakeFirst();
  return row !== undefined;
}

export async function countOrganizations(db: Executor): Promise<number> {
  const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return row.n;
}

export async function updateOrganization(
  db: Executor,
  organizationId: string,
  changes: Partial<
    Pick<OrganizationRow, 'name' | 'code_prefix' | 'plan' | 'subscription_status' | 'rate_limit_per_minute' | 'auto_checkout_hours' | 'retention_days' | 'updated_at'>
  >,
): Promise<void> {
  await db.updateTable('organizations').set(changes).where('organization_id', '=', organizationId).execute();
}

/** Organizations with an auto-checkout or retention policy, for the sweeps that enforce them. */
export async function organizationsWithVisitorPolicies(db: Executor): Promise<OrganizationRow[]> {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb.or([eb('auto_checkout_hours', 'is not', null), eb('retention_days', 'is not', null)]))
    .execute();
}

export async function setTwoStepRoles(db: Executor, organizationId: string, roles: string, at: string): Promise<void> {
  await db.updateTable('organizations').set({ two_step_roles: roles, updated_at: at }).where('organization_id', '=', organizationId).execute();
}
