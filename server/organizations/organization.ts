import type { OrganizationRow } from '../db/schema.ts';
import type { Role } from '../../shared/schemas/console.ts';
import { PLANS, SUBSCRIPTION_STATUSES } from '../../shared/schemas/organization.ts';

export { PLANS, SUBSCRIPTION_STATUSES };
export type Plan = (typeof PLANS)[number];
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Requests per minute per key, by plan (reference, "Limits"). `none` has no API access at all. */
export const PLAN_RATE_LIMITS: Record<Plan, number> = { none: 0, starter: 60, growth: 300, enterprise: 1000 };

export interface Organization {
  organization_id: string;
  name: string;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  code_prefix: string;
  rate_limit_per_minute: number;
  /** Visitor policies: null is off. */
  auto_checkout_hours: number | null;
  retention_days: number | null;
  created_at: string;
  updated_at: string;
}

export function rowToOrganization(row: Omit<OrganizationRow, 'two_step_roles'>): Organization {
  const plan = row.plan as Plan;
  return {
    organization_id: row.organization_id,
    name: row.name,
    plan,
    subscription_status: row.subscription_status as SubscriptionStatus,
    code_prefix: row.code_prefix,
    rate_limit_per_minute: row.rate_limit_per_minute ?? PLAN_RATE_LIMITS[plan],
    auto_checkout_hours: row.auto_checkout_hours,
    retention_days: row.retention_days,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The roles besides owner and admin whose people must use a second step here (null: the default, operators), from the row as stored. */
export const twoStepRolesIn = (row: Pick<OrganizationRow, 'two_step_roles'>): Role[] | null => (row.two_step_roles ? (JSON.parse(row.two_step_roles) as Role[]) : null);
