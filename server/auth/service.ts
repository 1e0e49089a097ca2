import type { ApiKey, ApiKeyFilter, Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment, Page } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Executor, type Tenant } from '../db/schema.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { parseSiteIds } from '../db/tenant.ts';
import { makerColumns, rowToApiKey, type Maker } from './api-key.ts';
import { hashSecret, newKeySecret, secretHint } from './secrets.ts';
import { findApiKey, findApiKeyById, findOrganizationKey, insertApiKey, listApiKeys, listUnreviewedPersonKeys, markKeyReviewed, markKeyRevoked, setKeyExpiry } from './store.ts';

export interface CreatedKey {
  api_key: ApiKey;
  secret: string;
}

export interface NewApiKey {
  organizationId: string;
  environment: Environment;
  name: string;
  scopes: Scope[];
  /** Who makes it: kept on the key, which outlives them (migration 0025). */
  maker: Maker;
  /** The sites it is limited to (sites/service.ts `siteLimitFor`); null or absent: every site. */
  siteIds?: readonly string[] | null;
}

export async function createApiKey(db: Executor, clock: Clock, input: NewApiKey): Promise<CreatedKey> {
  const secret = newKeySecret(input.environment);
  const row = {
    key_id: newId('key', clock.now()),
    organization_id: input.organizationId,
    environment: input.environment,
    name: input.name,
    scopes: JSON.stringify([...new Set(input.scopes)]),
    secret_hash: hashSecret(secret),
    secret_hint: secretHint(secret),
    created_at: clock.now().toISOString(),
    last_used_at: null,
    revoked_at: null,
    expires_at: null,
    ...makerColumns(input.maker),
    reviewed_at: null,
    reviewed_by: null,
    site_ids: input.siteIds ? JSON.stringify(input.siteIds) : null,
  };
  await insertApiKey(db, row);
  return { api_key: rowToApiKey(row), secret };
}

/** The keys of the caller's organization and environment, newest first, a page at a time. */
export async function listTenantApiKeys(db: Executor, clock: Clock, tenant: Tenant, query: PageRequest & ApiKeyFilter): Promise<Page<ApiKey>> {
  const paged = await listApiKeys(db, tenant, { status: query.status, scopes: query.scopes, site_id: query.site_id, now: clock.now().toISOString() }, query);
  return toPage(paged.rows.map(rowToApiKey), paged.total, paged, query.limit);
}

/** Revokes a key of the caller's organization and environment; another's is a 404. */
export async function revokeApiKey(db: Executor, clock: Clock, scope: Tenant, keyId: string): Promise<ApiKey> {
  return inTransaction(db, async (trx) => {
    const row = await findApiKey(trx, scope, keyId);
    if (!row) throw notFound('API key');
    if (row.revoked_at) throw conflict('API key is already revoked');
    await markKeyRevoked(trx, keyId, clock.now().toISOString());
    return rowToApiKey((await findApiKey(trx, scope, keyId))!);
  });
}

/**
 * A new key with the old one's name and scopes; the old one answers until `expiresInHours` from
 * now (sooner if it was already to expire sooner), so every client can switch without a gap.
 */
export async function rollApiKey(db: Executor, clock: Clock, tenant: Tenant, keyId: string, expiresInHours: number, maker: Maker): Promise<CreatedKey> {
  return inTransaction(db, async (trx) => {
    const row = await findApiKey(trx, tenant, keyId);
    if (!row) throw notFound('API key');
    if (row.revoked_at) throw conflict('API key is already revoked');
    const now = clock.now();
    if (row.expires_at && Date.parse(row.expires_at) <= now.getTime()) throw conflict('API key has already expired');
    const until = new Date(now.getTime() + expiresInHours * 3_600_000).toISOString();
    await setKeyExpiry(trx, keyId, row.expires_at && row.expires_at < until ? row.expires_at : until);
    return createApiKey(trx, clock, {
      organizationId: tenant.organizationId,
      environment: row.environment as Environment,
      name: row.name,
      scopes: JSON.parse(row.scopes) as Scope[],
      maker,
      siteIds: parseSiteIds(row.site_ids),
    });
  });
}

/** The scopes of a key of the tenant (what rolling it grants); undefined when there is none. */
export async function scopesOfKey(db: Executor, tenant: Tenant, keyId: string): Promise<Scope[] | undefined> {
  const row = await findApiKey(db, tenant, keyId);
  return row && (JSON.parse(row.scopes) as Scope[]);
}

/** The operator's revoke (`tsaro key revoke`), which stands above organizations: any key by id; undefined when there is none. */
export async function revokeApiKeyById(db: Executor, clock: Clock, keyId: string): Promise<ApiKey | undefined> {
  if (!(await findApiKeyById(db, keyId))) return undefined;
  await markKeyRevoked(db, keyId, clock.now().toISOString());
  return rowToApiKey((await findApiKeyById(db, keyId))!);
}

/**
 * The organization's keys, in both environments, that still answer and hold scopes their maker
 * could not grant (shared/console/grants.ts): what its owners review.
 */
export async function keysToReview(db: Executor, clock: Clock, organizationId: string): Promise<ApiKey[]> {
  const rows = await listUnreviewedPersonKeys(db, organizationId, clock.now().toISOString());
  return rows.map(rowToApiKey).filter((key) => key.needs_review);
}

/** An owner keeps a key made beyond its maker's grant: it leaves the review list. A key that needs no review: 409. */
export async function keepReviewedKey(db: Executor, clock: Clock, organizationId: string, keyId: string, ownerId: string): Promise<ApiKey> {
  return inTransaction(db, async (trx) => {
    const row = await findOrganizationKey(trx, organizationId, keyId);
    if (!row) throw notFound('API key');
    if (!rowToApiKey(row).needs_review) throw conflict('This API key needs no review');
    await markKeyReviewed(trx, keyId, clock.now().toISOString(), ownerId);
    return rowToApiKey((await findOrganizationKey(trx, organizationId, keyId))!);
  });
}
