import { sql } from 'kysely';
import { preparedQuery } from '../db/prepared.ts';
import { isPostgres, type Executor, type IdempotencyRow, type Tenant } from '../db/schema.ts';
import { whereTenant } from '../db/tenant.ts';

export interface IdempotencyScope {
  organizationId: string;
  environment: string;
  key: string;
  /** The caller's sites (null or absent: every site): a record keeps its maker's, and answers only a caller who reaches them. */
  sites?: readonly string[] | null;
}

/** The caller's sites as a record keeps them (the `site_ids` form of keys and endpoints). */
const siteIdsOf = (scope: IdempotencyScope) => (scope.sites ? JSON.stringify(scope.sites) : null);

const where = (scope: IdempotencyScope) => (db: Executor) =>
  db
    .selectFrom('idempotency_requests')
    .selectAll()
    .where(whereTenant(scope))
    .where('idempotency_key', '=', scope.key);

/** Inserts an in-flight claim; answers the row already there when the key was seen before. */
export async function insertClaim(
  db: Executor,
  scope: IdempotencyScope,
  fingerprint: string,
  at: string,
): Promise<{ inserted: true } | { inserted: false; existing: IdempotencyRow }> {
  const result = await claimInsert(db, { organizationId: scope.organizationId, environment: scope.environment, key: scope.key, fingerprint, at, siteIds: siteIdsOf(scope) });
  if (Number(result.numAffectedRows ?? 0n) === 1) return { inserted: true };
  const existing = await where(scope)(db).executeTakeFirst();
  // Purged between the two statements: treat as seen-nothing and let the caller try again.
  if (!existing) return insertClaim(db, scope, fingerprint, at);
  return { inserted: false, existing };
}

/** Takes over a claim whose holder died (lease ran out), as the taker's (its sites); only one taker wins. */
export async function takeOverStaleClaim(db: Executor, scope: IdempotencyScope, staleLockedAt: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_requests')
    .set({ locked_at: at, site_ids: siteIdsOf(scope) })
    .where(whereTenant(scope))
    .where('idempotency_key', '=', scope.key)
    .where('state', '=', 'in_flight')
    .where('locked_at', '=', staleLockedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes the key's claim still in flight (taken in this transaction). */
export async function deleteClaim(db: Executor, scope: IdempotencyScope): Promise<void> {
  await db.deleteFrom('idempotency_requests').where(whereTenant(scope)).where('idempotency_key', '=', scope.key).where('state', '=', 'in_flight').execute();
}

export async function completeClaim(db: Executor, scope: IdempotencyScope, status: number, body: string): Promise<void> {
  await claimCompleted(db, { organizationId: scope.organizationId, environment: scope.environment, key: scope.key, status, body });
}

/** Every request with an Idempotency-Key (every kiosk replay item): built and compiled once (server/db/prepared.ts). */
const claimInsert = preparedQuery((db, p: Tenant & { key: string; fingerprint: string; at: string; siteIds: string | null }) =>
  db
    .insertInto('idempotency_requests')
    .values({
      organization_id: p.organizationId,
      environment: p.environment,
      idempotency_key: p.key,
      fingerprint: p.fingerprint,
      state: 'in_flight',
      response_status: null,
      response_body: null,
      locked_at: p.at,
      created_at: p.at,
      site_ids: p.siteIds,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'environment', 'idempotency_key']).doNothing()),
);

const claimCompleted = preparedQuery((db, p: Tenant & { key: string; status: number; body: string }) =>
  db
    .updateTable('idempotency_requests')
    .set({ state: 'complete', response_status: p.status, response_body: p.body })
    .where(whereTenant(p))
    .where('idempotency_key', '=', p.key),
);

/**
 * Deletes up to `batch` records made before `createdBefore`, oldest first, in one short statement
 * (a year's records are millions: one DELETE of them all would hold its locks, and SQLite's
 * writer, for as long as it took). Answers how many went; the sweep calls it again while it fills.
 */
export async function purgeIdempotencyRecords(db: Executor, createdBefore: string, batch: number): Promise<number> {
  const oldest = db.selectFrom('idempotency_requests').where('created_at', '<', createdBefore).orderBy('created_at').limit(batch);
  const result = isPostgres(db)
    ? await db.deleteFrom('idempotency_requests').where(sql<boolean>`ctid = any(array(${oldest.select(sql`ctid`.as('ctid'))}))`).executeTakeFirst()
    : await db.deleteFrom('idempotency_requests').where(sql<boolean>`rowid in (${oldest.select(sql`rowid`.as('rowid'))})`).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** PostgreSQL: held until this transaction ends; another host holding it means the key is in flight there. */
export async function lockKeyForTransaction(tx: Executor, flightKey: string): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${flightKey}, 0)) as locked`.execute(tx);
  return rows[0]?.locked === true;
}

/** The record of a key, whatever its state; undefined when never seen (or purged). */
export async function findClaim(db: Executor, scope: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  return where(scope)(db).executeTakeFirst();
}
