import { createHash, hkdfSync } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Engine } from '../db/database.ts';
import type { Executor, IdempotencyRow } from '../db/schema.ts';
import { parseSiteIds, reachesSite } from '../db/tenant.ts';
import { ApiError } from '../http/errors.ts';
import { gcmOpen, gcmSeal, type SecretBox } from '../secrets/secret-box.ts';
import { completeClaim, deleteClaim, findClaim, insertClaim, lockKeyForTransaction, takeOverStaleClaim, type IdempotencyScope } from './store.ts';

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

export const notTheMaker = () =>
  new ApiError(
    409,
    'Idempotency-Key was used by another API key for a request whose answer holds a secret: that answer is replayed only to the key that made it, and the request does not run again',
  );

export const beyondTheCallersSites = () =>
  new ApiError(
    409,
    'Idempotency-Key was used by a caller who reaches sites you do not: its answer is replayed only to a caller who reaches every site it was made for, and the request does not run again',
  );

/**
 * Whether the caller (`scope.sites`) reaches every site the record's maker reached: what its
 * answer may hold (a code, a pass, a visitor) is theirs to read. A record made by a caller of
 * every site, or before records kept their maker's sites, answers only a caller of every site.
 */
function reachesRecord(scope: IdempotencyScope, row: Pick<IdempotencyRow, 'site_ids'>): boolean {
  const madeFor = parseSiteIds(row.site_ids);
  return madeFor === null ? reachesSite(scope.sites, null, 'organization') : madeFor.every((siteId) => reachesSite(scope.sites, siteId, 'organization'));
}

/**
 * An answer that carries a secret shown once (a new API key, a webhook secret) is sealed for its
 * maker: under a key derived from the API key that made the request and the Idempotency-Key.
 * The API key is stored only as a hash, so neither a copy of the database nor another caller
 * opens it. `k1.` tells these apart from values sealed with the sealing key.
 */
const MAKER_SEALED = 'k1.';
function makerKey(credential: string, scope: IdempotencyScope): Buffer {
  return Buffer.from(hkdfSync('sha256', credential, 'tsaro idempotent answer', flightKeyOf(scope), 32));
}

/** Seals an answer for storage: for its maker alone (`credential`), or with the sealing key. */
export function sealAnswer(secretBox: SecretBox, scope: IdempotencyScope, text: string, credential?: string): string {
  return credential === undefined ? secretBox.seal(text) : MAKER_SEALED + gcmSeal(makerKey(credential, scope), text);
}

/** Opens a stored answer; one sealed for its maker opens only with the maker's credential (409 otherwise). */
function openAnswer(secretBox: SecretBox, scope: IdempotencyScope, stored: string, credential?: string): string {
  if (!stored.startsWith(MAKER_SEALED)) return secretBox.open(stored);
  if (credential === undefined) throw notTheMaker();
  try {
    return gcmOpen(makerKey(credential, scope), stored.slice(MAKER_SEALED.length).split('.'));
  } catch {
    throw notTheMaker();
  }
}

/**
 * Takes an Idempotency-Key for the transaction `tx` (Stripe's semantics), for the single routes'
 * middleware and the kiosk's batch replay alike: a first use claims it; a use with another
 * method, path or body is a 400; an answered key gives its stored answer; a key still in flight
 * (on this database: another host's advisory lock on PostgreSQL, an unfinished claim) is a 409,
 * unless its claim is older than the lease (its request died) and is taken over.
 */
export async function claimKey(tx: Executor, deps: ClaimDeps, scope: IdempotencyScope, fingerprint: string, credential?: string): Promise<Claim> {
  if (deps.engine === 'postgres' && !(await lockKeyForTransaction(tx, flightKeyOf(scope)))) throw stillInFlight();
  const now = deps.clock.now();
  const claim = await insertClaim(tx, scope, fingerprint, now.toISOString());
  if (claim.inserted) return { answered: false };
  const row = claim.existing;
  const seen = judgeRecord(deps, scope, row, fingerprint, now, credential);
  if (seen !== 'stale') return seen;
  if (!(await takeOverStaleClaim(tx, scope, row.locked_at, now.toISOString()))) throw stillInFlight();
  return { answered: false };
}

/**
 * The key's record read before any transaction, for a route whose service claims the key in its
 * own transaction (`KeyClaim`, middleware.ts): an answered key gives its stored answer, and the
 * refusals are `claimKey`'s; `{answered: false}` (never seen, or a claim whose request died) means
 * go on, and the transaction's `claimKey` decides again under its lock.
 */
export async function answeredBefore(db: Executor, deps: ClaimDeps, scope: IdempotencyScope, fingerprint: string, credential?: string): Promise<Claim> {
  const row = await findClaim(db, scope);
  if (!row) return { answered: false };
  const seen = judgeRecord(deps, scope, row, fingerprint, deps.clock.now(), credential);
  return seen === 'stale' ? { answered: false } : seen;
}

/** What a key's existing record says to this request: its stored answer, `stale` (a claim whose request died: take it over), or a refusal thrown. */
function judgeRecord(deps: ClaimDeps, scope: IdempotencyScope, row: IdempotencyRow, fingerprint: string, now: Date, credential?: string): Claim | 'stale' {
  // Before anything else about it: a record of sites beyond the caller's says nothing more to them.
  if (!reachesRecord(scope, row)) throw beyondTheCallersSites();
  if (row.fingerprint !== fingerprint) throw new ApiError(400, 'Idempotency-Key was already used with a different method, path or body');
  if (row.state === 'complete') return { answered: true, status: row.response_status!, body: openAnswer(deps.secretBox, scope, row.response_body!, credential) };
  // A claim committed in flight by an older version, or left by a request that died.
  if (Date.parse(row.locked_at) < now.getTime() - CLAIM_LEASE_MS) return 'stale';
  throw stillInFlight();
}

/** Gives back a key claimed in `tx` by a request that was then refused (4xx): no record stays, as when its transaction is rolled back. */
export async function releaseKey(tx: Executor, scope: IdempotencyScope): Promise<void> {
  await deleteClaim(tx, scope);
}

/**
 * Stores the answer of a claimed key, sealed: it may hold personal data, and with `makerCredential`
 * a secret shown once, sealed for its maker alone.
 */
export async function recordAnswer(tx: Executor, secretBox: SecretBox, scope: IdempotencyScope, status: number, body: unknown, makerCredential?: string): Promise<void> {
  await completeClaim(tx, scope, status, sealAnswer(secretBox, scope, JSON.stringify(body), makerCredential));
}

/** The answer stored for a key, parsed; undefined when the key has none (never seen, in flight, or purged) or it is of sites beyond the caller's. */
export async function storedAnswer(db: Executor, secretBox: SecretBox, scope: IdempotencyScope): Promise<unknown> {
  const row = await findClaim(db, scope);
  return row?.state === 'complete' && reachesRecord(scope, row) && row.response_body && !row.response_body.startsWith(MAKER_SEALED)
    ? JSON.parse(secretBox.open(row.response_body))
    : undefined;
}
