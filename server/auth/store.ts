import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { ApiKeyRow, Executor, OrganizationRow, Tenant } from '../db/schema.ts';
import { whereSitesWithin, whereTenant } from '../db/tenant.ts';
import { SCOPES, type ApiKeyFilter } from '../../shared/schemas/api-keys.ts';

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export interface KeyWithOrganization {
  key: ApiKeyRow;
  /** What a key's request needs of its organization (not the console's sign-in policy). */
  organization: Omit<OrganizationRow, 'two_step_roles'>;
}

export async function findKeyBySecretHash(db: Executor, secretHash: string): Promise<KeyWithOrganization | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.organization_id', 'api_keys.organization_id')
    .selectAll('api_keys')
    .select([
      'organizations.name as org_name',
      'organizations.plan as org_plan',
      'organizations.subscription_status as org_subscription_status',
      'organizations.code_prefix as org_code_prefix',
      'organizations.rate_limit_per_minute as org_rate_limit_per_minute',
      'organizations.auto_checkout_hours as org_auto_checkout_hours',
      'organizations.retention_days as org_retention_days',
      'organizations.created_at as org_created_at',
      'organizations.updated_at as org_updated_at',
    ])
    .where('api_keys.secret_hash', '=', secretHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    org_name,
    org_plan,
    org_subscription_status,
    org_code_prefix,
    org_rate_limit_per_minute,
    org_auto_checkout_hours,
    org_retention_days,
    org_created_at,
    org_updated_at,
    ...key
  } = row;
  return {
    key,
    organization: {
      organization_id: key.organization_id,
      name: org_name,
      plan: org_plan,
      subscription_status: org_subscription_status,
      code_prefix: org_code_prefix,
      rate_limit_per_minute: org_rate_limit_per_minute,
      auto_checkout_hours: org_auto_checkout_hours,
      retention_days: org_retention_days,
      created_at: org_created_at,
      updated_at: org_updated_at,
    },
  };
}

export async function findApiKey(db: Executor, scope: Tenant, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_id', '=', keyId)
    .where(whereTenant(scope))
    .where(whereSitesWithin(db, scope))
    .executeTakeFirst();
}

/** A key of the organization in either environment (an owner's review spans both). */
export async function findOrganizationKey(db: Executor, organizationId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).where('organization_id', '=', organizationId).executeTakeFirst();
}

/** Keys people made that still answer at `now` and no owner has kept: the candidates for review. */
export async function listUnreviewedPersonKeys(db: Executor, organizationId: string, now: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('created_by', 'like', 'per_%') // ids are `per_` + ULID: the wildcard `_` is harmless
    .where('reviewed_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .limit(1000)
    .execute();
}

export async function markKeyReviewed(db: Executor, keyId: string, at: string, by: string): Promise<void> {
  await db.updateTable('api_keys').set({ reviewed_at: at, reviewed_by: by }).where('key_id', '=', keyId).execute();
}

/** Finds a key by id alone: the operator's CLI, which stands above organizations. */
export async function findApiKeyById(db: Executor, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

/** Newest first; the cursor seeks the (tenant, created_at) index. */
const API_KEYS_ORDER: ListOrder = { name: 'api_keys', kind: 'keyset', column: 'created_at', id: 'key_id', direction: 'desc' };

export async function listApiKeys(
  db: Executor,
  scope: Tenant,
  filter: ApiKeyFilter & { now: string },
  page: PageRequest,
) {
  let base = db
    .selectFrom('api_keys')
    .where(whereTenant(scope))
    .where(whereSitesWithin(db, scope));
  if (filter.status === 'revoked') base = base.where('revoked_at', 'is not', null);
  if (filter.status === 'active') base = base.where('revoked_at', 'is', null).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', filter.now)]));
  if (filter.status === 'expired') base = base.where('revoked_at', 'is', null).where('expires_at', '<=', filter.now);
  // Site ids are `site_` and letters and digits: quoted, one is never part of another.
  if (filter.site_id) base = base.where((eb) => eb.or([eb('site_ids', 'is', null), eb('site_ids', 'like', `%"${filter.site_id}"%`)]));
  if (filter.scopes) {
    // Scopes are stored as a JSON array of scope names (none is a substring of another's quoted
    // form): exactly these scopes is each of them present and every other absent.
    const wanted = new Set(filter.scopes);
    for (const name of SCOPES) base = base.where('scopes', wanted.has(name) ? 'like' : 'not like', `%"${name}"%`);
  }
  return pageAndCount(base.selectAll(), API_KEYS_ORDER, page);
}

export async function markKeyRevoked(db: Executor, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
}

export async function setKeyExpiry(db: Executor, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ expires_at: at }).where('key_id', '=', keyId).execute();
}

export async function touchKeyLastUsed(db: Executor, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('key_id', '=', keyId).execute();
}

/** The revision migration 0014's triggers bump on every change that could refuse a key; undefined before that migration. */
export async function authRevision(db: Executor): Promise<number | undefined> {
  return (await readAuthRevision(db, {})).rows[0]?.revision;
}

/** Read on every SQLite request (the key cache): built and compiled once. */
const readAuthRevision = preparedQuery((db) => db.selectFrom('auth_revision').select('revision').where('id', '=', 1));
