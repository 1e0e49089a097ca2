import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, Tenant } from './schema.ts';

/** The tables partitioned by tenant: every one with an organization and an environment column. */
export type TenantTable = {
  [T in keyof Database]: Database[T] extends { organization_id: string; environment: string } ? T : never;
}[keyof Database];

/**
 * The tenant filter, `organization_id = ? and environment = ?`: the rule that a caller never
 * reaches another organization's (or environment's) rows, written once. Pass it to `.where()`
 * of a query on a tenant table (the type checker refuses any other); name the table when the
 * query joins another that has the same columns.
 */
export function whereTenant(tenant: Tenant, table?: TenantTable) {
  const column = (name: 'organization_id' | 'environment') => sql.ref<string>(table ? `${table}.${name}` : name);
  return <TB extends TenantTable>(eb: ExpressionBuilder<Database, TB>): Expression<SqlBool> =>
    eb.and([eb(column('organization_id'), '=', tenant.organizationId), eb(column('environment'), '=', tenant.environment)]);
}

/**
 * The tenant as a compiled-once query's parameters (server/db/prepared.ts): exactly
 * `{organizationId, environment}`, since such a query refuses parameter names it does not know
 * (a `Tenant` may carry more).
 */
export function tenantParams(tenant: Tenant): { organizationId: string; environment: Tenant['environment'] } {
  return { organizationId: tenant.organizationId, environment: tenant.environment };
}
