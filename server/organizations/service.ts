import type { Clock } from '../clock.ts';
import { inTransaction, type Executor } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { createApiKey, type CreatedKey } from '../auth/service.ts';
import { rowToOrganization, twoStepRolesIn, type Organization, type Plan } from './organization.ts';
import { codePrefixTaken, findOrganization, insertOrganization, setTwoStepRoles, updateOrganization } from './store.ts';
import type { Role } from '../../shared/schemas/console.ts';
import { CODE_PREFIX_PATTERN } from '../../shared/schemas/organization.ts';
import { badRequest, conflict } from '../http/errors.ts';
import { createDefaultSite } from '../sites/service.ts';

/** Reads the sweeps, the demo seed and the operator tool take as they are. */
export { countOrganizations, findOrganization, organizationsWithVisitorPolicies } from './store.ts';

export class OrganizationInputError extends Error {}

export interface NewOrganization {
  name: string;
  plan: Plan;
  codePrefix?: string;
}

export interface CreatedOrganization {
  organization: Organization;
  keys: { live: CreatedKey; sandbox: CreatedKey };
}

/**
 * Creates an organization with its two owner keys (live and sandbox, every scope, `admin`
 * included). The secrets exist only in the answer: only their hashes are stored.
 */
export async function createOrganization(db: Executor, clock: Clock, input: NewOrganization): Promise<CreatedOrganization> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new OrganizationInputError('name must be 1 to 200 characters');
  return inTransaction(db, async (trx) => {
    const codePrefix = await choosePrefix(trx, name, input.codePrefix);
    const now = clock.now().toISOString();
    const organizationId = newId('org', clock.now());
    await insertOrganization(trx, {
      organization_id: organizationId,
      name,
      plan: input.plan,
      subscription_status: 'active',
      code_prefix: codePrefix,
      rate_limit_per_minute: null,
      auto_checkout_hours: null,
      retention_days: null,
      two_step_roles: null,
      created_at: now,
      updated_at: now,
    });
    // Its first site, where what names no site belongs (issue #34).
    await createDefaultSite(trx, clock, { organizationId, name });
    const owner = { organizationId, scopes: [...SCOPES], maker: { type: 'operator' } as const };
    const live = await createApiKey(trx, clock, { ...owner, environment: 'live', name: 'Owner key (live)' });
    const sandbox = await createApiKey(trx, clock, { ...owner, environment: 'sandbox', name: 'Owner key (sandbox)' });
    const row = await findOrganization(trx, organizationId);
    return { organization: rowToOrganization(row!), keys: { live, sandbox } };
  });
}

async function choosePrefix(db: Executor, name: string, requested: string | undefined): Promise<string> {
  if (requested !== undefined) {
    if (!CODE_PREFIX_PATTERN.test(requested)) throw new OrganizationInputError('prefix must be 2 to 6 capital letters (A-Z)');
    if (await codePrefixTaken(db, requested)) throw new OrganizationInputError(`prefix ${requested} is taken`);
    return requested;
  }
  const letters = name.toUpperCase().replace(/[^A-Z]/g, '');
  const base = (letters.length >= 2 ? letters : `${letters}ORG`).slice(0, 4);
  if (!(await codePrefixTaken(db, base))) return base;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of alphabet) {
    if (!(await codePrefixTaken(db, `${base}${a}`))) return `${base}${a}`;
    for (const b of alphabet) if (!(await codePrefixTaken(db, `${base}${a}${b}`))) return `${base}${a}${b}`;
  }
  throw new OrganizationInputError('no free code prefix; pass one with --prefix');
}

export interface OrganizationChanges {
  /** Shown on every visitor pass and in the console (trimmed, 1 to 200 characters). */
  name?: string;
  /** What new codes begin with (2 to 6 capital letters, unique); codes already issued keep theirs. */
  codePrefix?: string;
  plan?: Plan;
  suspended?: boolean;
  /** A custom per-minute limit for every key of the organization; null goes back to the plan's. */
  rateLimitPerMinute?: number | null;
  /** Visitor policies; null turns one off. */
  autoCheckoutHours?: number | null;
  retentionDays?: number | null;
}

export async function changeOrganization(
  db: Executor,
  clock: Clock,
  organizationId: string,
  changes: OrganizationChanges,
): Promise<Organization | undefined> {
  const name = changes.name?.trim();
  if (name !== undefined && (!name || name.length > 200)) throw badRequest('name: 1 to 200 characters');
  if (changes.codePrefix !== undefined && !CODE_PREFIX_PATTERN.test(changes.codePrefix)) throw badRequest('code_prefix: must be 2 to 6 capital letters (A-Z)');
  return inTransaction(db, async (trx) => {
    const current = await findOrganization(trx, organizationId);
    if (!current) return undefined;
    // Unique among organizations (0001's index): said first, naming the field. Codes already issued keep their prefix.
    if (changes.codePrefix !== undefined && changes.codePrefix !== current.code_prefix && (await codePrefixTaken(trx, changes.codePrefix))) {
      throw conflict(`code_prefix: ${changes.codePrefix} is taken by another organization`);
    }
    await updateOrganization(trx, organizationId, {
      ...(name !== undefined && { name }),
      ...(changes.codePrefix !== undefined && { code_prefix: changes.codePrefix }),
      ...(changes.plan !== undefined && { plan: changes.plan }),
      ...(changes.suspended !== undefined && { subscription_status: changes.suspended ? 'suspended' : 'active' }),
      ...(changes.rateLimitPerMinute !== undefined && { rate_limit_per_minute: changes.rateLimitPerMinute }),
      ...(changes.autoCheckoutHours !== undefined && { auto_checkout_hours: changes.autoCheckoutHours }),
      ...(changes.retentionDays !== undefined && { retention_days: changes.retentionDays }),
      updated_at: clock.now().toISOString(),
    });
    return rowToOrganization((await findOrganization(trx, organizationId))!);
  });
}

/**
 * The organization as stored now: answers read it here, not from the request's auth context,
 * whose copy may come from the API-key cache (on PostgreSQL refreshed by a NOTIFY that can
 * arrive a moment after the change's answer).
 */
export async function currentOrganization(db: Executor, organizationId: string): Promise<Organization | undefined> {
  const row = await findOrganization(db, organizationId);
  return row && rowToOrganization(row);
}

/** The roles besides owner and admin whose people must sign in with a second step (null: the default, operators). */
export async function twoStepRolesOf(db: Executor, organizationId: string): Promise<Role[] | null> {
  const row = await findOrganization(db, organizationId);
  return row ? twoStepRolesIn(row) : null;
}

/** Sets them; each session of a role now required that never passed a second step passes one before it acts here again (issue #46). */
export async function changeTwoStepRoles(db: Executor, clock: Clock, organizationId: string, roles: readonly Role[]): Promise<void> {
  await setTwoStepRoles(db, organizationId, JSON.stringify([...new Set(roles)].sort()), clock.now().toISOString());
}
