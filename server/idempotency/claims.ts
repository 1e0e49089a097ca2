import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Engine } from '../db/database.ts';
import type { Executor } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import { completeClaim, findClaim, insertClaim, lockKeyForTransaction, takeOverStaleClaim, type IdempotencyScope } from './store.ts';

export type { IdempotencyScope };

/** A claim whose request died without finishing may be taken over after this. */
export const CLAIM_LEASE_MS = 60_000;

export const stillInFlight = () => new ApiError(409, 'A request with this Idempotency-Key is still in progress; retry shortly');

/** What a key's first request is compared by: the same key with another method, path or body is a 400. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

/** The key as locked in flight; keys are visible ASCII, so no newline. */
export function flightKeyOf(scope: IdempotencyScope): string {
  return `${scope.organizationId}\n${scope.environment}\n${scope.key}`;
}

export interface ClaimDeps {
  clock: Clock;
  secretBox: SecretBox;
  engine: Engine;
}

/** The key is this transaction's to answer, or it was answered before (the answer as stored, unsealed). */
export type Claim = { answered: false } | { answered: true; status: number; body: string };

/**
 * Takes an Idempotency-Key for the transaction `tx` (Stripe's semantics), for the single routes'
 * middleware and the kiosk's batch replay alike: a first use claims it; a use with another
 * method, path or body is a 400; an answered key gives its stored answer; a key still in flight
 * (on this database: another host's advisory lock on PostgreSQL, an unfinished claim) is a 409,
 * unless its claim is older than the lease (its request died) and is taken over.
 */
export async function claimKey(tx: Executor, deps: ClaimDeps, scope: IdempotencyScope, fingerprint: string): Promise<Claim> {
  if (deps.engine === 'postgres' && !(await lockKeyForTransaction(tx, flightKeyOf(scope)))) throw stillInFlight();
  const now = deps.clock.now();
  const claim = await insertClaim(tx, scope, fingerprint, now.toISOString());
  if (claim.inserted) return { answered: false };
  const row = claim.existing;
  if (row.fingerprint !== fingerprint) throw new ApiError(400, 'Idempotency-Key was already used with a different method, path or body');
  if (row.state === 'complete') return { answered: true, status: row.response_status!, body: deps.secretBox.open(row.response_body!) };
  // A claim committed in flight by an older version, or left by a request that died.
  const stale = Date.parse(row.locked_at) < now.getTime() - CLAIM_LEASE_MS;
  if (!stale || !(await takeOverStaleClaim(tx, scope, row.locked_at, now.toISOString()))) throw stillInFlight();
  return { answered: false };
}

/** Stores the answer of a claimed key, sealed: it may hold a secret shown once or personal data. */
export async function recordAnswer(tx: Executor, secretBox: SecretBox, scope: IdempotencyScope, status: number, body: unknown): Promise<void> {
  await completeClaim(tx, scope, status, secretBox.seal(JSON.stringify(body)));
}

/** The answer stored for a key, parsed; undefined when the key has none (never seen, in flight, or purged). */
export async function storedAnswer(db: Executor, secretBox: SecretBox, scope: IdempotencyScope): Promise<unknown> {
  const row = await findClaim(db, scope);
  return row?.state === 'complete' && row.response_body ? JSON.parse(secretBox.open(row.response_body)) : undefined;
}
