import { randomInt } from 'node:crypto';
import {
  CODE_ALPHABET,
  type AccessCode,
  type BulkCreateAccessCodesRequest,
  type CreateAccessCodeRequest,
  type AlreadyInsideChoice,
  type OpenVisit,
  type ValidationReason,
  type ValidationResult,
} from '../../shared/schemas/access.ts';
import type { Page } from '../../shared/schemas/common.ts';
import { looksLikePass, normalizeCode } from '../../shared/pass.ts';
import { happenedAt } from '../access-logs/replay-window.ts';
import { openVisitOfCode, recordCheckIn } from '../access-logs/service.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type AccessCodeRow, type AccessLogRow, type Executor, type Tenant } from '../db/schema.ts';
import { appendEvent, scrubVisitorDataFromEvents, type EventDeps } from '../events/service.ts';
import { ApiError, badRequest, conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage, utcInstant } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { defaultSiteFor, placeFor, placeNamedIn, type Place } from '../sites/service.ts';
import { reachesSite } from '../db/tenant.ts';
import type { Arrival } from '../messages/service.ts';
import { takeGuess } from '../rate-limit/guesses.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { rowToAccessCode } from './access-code.ts';
import { numberAtOnce, numberedAtEnd, type FeedNumbering } from './feed-numbering.ts';
import { serialBatches, waitForOtherBatches } from '../db/serial-batches.ts';
import type { Claim } from '../idempotency/claims.ts';
import type { KeyClaim } from '../idempotency/middleware.ts';
import { passKeyOf, publicPassKeys, signPass, type PassVerifier } from './pass-keys.ts';
import {
  activeCodesDue,
  changeCodeStatus,
  codeStats,
  codesChangedAfter,
  consumeUse,
  eraseCodeVisitorData,
  findAccessCode,
  findAccessCodeByCode,
  finalCodesToErase,
  statusesOfCodes,
  insertAccessCode,
  countAccessCodes,
  listAccessCodeRows,
  searchAccessCodeRows,
  nextChangeSeq,
} from './store.ts';
import { DAY_MS } from '../../shared/time.ts';

export interface CodeIssuer extends EventDeps {
  /** Opens the tenant's sealed pass-signing key. */
  secretBox: SecretBox;
  /** The organization's `code_prefix`: codes read `<PREFIX>-XXXX`. */
  codePrefix: string;
}

interface NewCode {
  visitor_name: string;
  visitor_phone: string;
  visitor_email?: string;
  purpose?: string;
  entry_point?: string;
  host_user_id?: string;
  host_phone?: string;
  max_uses: number;
  /** Where it admits: resolved by `placeOfCode` before the transaction. */
  place: Place;
}

/**
 * Where a new code admits: the entry point or site it names (checked: the organization's, not
 * archived), else the organization's default site, so an old caller's code belongs where its
 * visits always did. (A key limited to one site will give that site here.)
 */
async function placeOfCode(db: Executor, tenant: Tenant, named: { site_id?: string; entry_point_id?: string }, field?: string): Promise<Place> {
  return placeFor(db, tenant, named, { active: true, field });
}

/** The same instant a calendar year later: the longest a code may be valid. */
function oneYearAfter(from: Date): Date {
  const limit = new Date(from);
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  return limit;
}

/**
 * The code's validity, checked: `valid_until` after `valid_from`, at most a year after it (a
 * signed pass decides offline at any kiosk that holds the key, so it must not outlive its
 * purpose), and not already past.
 */
function validityWindow(clock: Clock, validFrom?: string, validUntil?: string): { from: Date; until: Date } {
  const from = validFrom ? new Date(validFrom) : clock.now();
  const until = validUntil ? new Date(validUntil) : new Date(from.getTime() + DAY_MS);
  if (until.getTime() <= from.getTime()) throw badRequest('valid_until: must be after valid_from');
  if (until.getTime() > oneYearAfter(from).getTime()) throw badRequest('valid_until: must be at most one year after valid_from');
  if (until.getTime() <= clock.now().getTime()) throw badRequest('valid_until: must be in the future');
  return { from, until };
}

/** One code in the caller's transaction, which holds the tenant's feed counter (so codes of a tenant are made one at a time). */
async function issueCode(
  trx: Executor,
  issuer: CodeIssuer,
  tenant: Tenant,
  input: NewCode,
  window: { from: Date; until: Date },
): Promise<AccessCode> {
  const seq = await nextChangeSeq(trx, tenant);
  // The code's site signs its pass: a kiosk of another site refuses it offline.
  const key = await passKeyOf(trx, issuer, tenant, input.place.siteId);
  const code = await unusedCode(trx, tenant, issuer.codePrefix);
  const now = issuer.clock.now();
  const codeId = newId('code', now);
  const row: AccessCodeRow = {
    code_id: codeId,
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    code,
    visitor_name: input.visitor_name,
    visitor_phone: input.visitor_phone,
    visitor_email: input.visitor_email ?? null,
    purpose: input.purpose ?? null,
    entry_point: input.entry_point ?? null,
    host_user_id: input.host_user_id ?? null,
    status: 'active',
    valid_from: window.from.toISOString(),
    valid_until: window.until.toISOString(),
    max_uses: input.max_uses,
    use_count: 0,
    qr_payload: signPass(issuer.secretBox, key, {
      code,
      codeId,
      validFrom: window.from.getTime(),
      validUntil: window.until.getTime(),
      maxUses: input.max_uses,
    }),
    change_seq: seq,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    revoked_at: null,
    revoke_reason: null,
    erased_at: null,
    site_id: input.place.siteId,
    entry_point_id: input.place.entryPointId,
    host_phone: input.host_phone ?? null,
  };
  await insertAccessCode(trx, row);
  const accessCode = rowToAccessCode(row);
  await appendEvent(trx, issuer, { ...tenant, type: 'access_code.created', resourceId: codeId, data: accessCode });
  return accessCode;
}

/**
 * A `<PREFIX>-XXXX` no live code of the tenant holds. Safe without retrying on a unique
 * violation (which would abort a PostgreSQL transaction) because the caller holds the tenant's
 * feed counter lock: no other transaction can make a code for this tenant meanwhile.
 */
async function unusedCode(trx: Executor, tenant: Tenant, prefix: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    let suffix = '';
    for (let i = 0; i < 4; i++) suffix += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${prefix}-${suffix}`;
    const clash = await findAccessCodeByCode(trx, tenant, code);
    if (!clash || clash.status !== 'active') return code;
  }
  throw new Error(`no free access code found for prefix ${prefix}: too many live codes`);
}

export async function createAccessCode(
  db: Executor,
  issuer: CodeIssuer,
  tenant: Tenant,
  input: CreateAccessCodeRequest,
): Promise<AccessCode> {
  const window = validityWindow(issuer.clock, input.valid_from, input.valid_until);
  const place = await placeOfCode(db, tenant, input);
  return inTransaction(db, (trx) => issueCode(trx, issuer, tenant, { ...input, place }, window));
}

/** All or nothing: the schema already refused a bad visitor naming `visitors[i].field`. */
export async function createAccessCodesInBulk(
  db: Executor,
  issuer: CodeIssuer,
  tenant: Tenant,
  input: BulkCreateAccessCodesRequest,
): Promise<AccessCode[]> {
  const window = validityWindow(issuer.clock, input.valid_from, input.valid_until);
  // The batch's site, and each visitor's entry point where one is named (it must be of that site when the batch names one).
  const site = await placeOfCode(db, tenant, { site_id: input.site_id });
  const places: Place[] = [];
  for (const [i, visitor] of input.visitors.entries()) {
    const named = visitor.entry_point_id === undefined ? undefined : { site_id: input.site_id, entry_point_id: visitor.entry_point_id };
    places.push(named ? await placeOfCode(db, tenant, named, `visitors[${i}]`) : site);
  }
  return inTransaction(db, async (trx) => {
    const codes: AccessCode[] = [];
    for (const [i, visitor] of input.visitors.entries()) {
      codes.push(await issueCode(trx, issuer, tenant, { ...visitor, purpose: input.purpose, max_uses: visitor.max_uses ?? 1, place: places[i]! }, window));
    }
    return codes;
  });
}

export async function getAccessCode(db: Executor, tenant: Tenant, codeId: string): Promise<AccessCode> {
  const row = await findAccessCode(db, tenant, codeId);
  if (!row) throw notFound('Access code');
  return rowToAccessCode(row);
}

export interface CodeListQuery extends PageRequest {
  site_id?: string;
  status?: string;
  visitor_phone?: string;
  search?: string;
  from_date?: string;
  to_date?: string;
}

export async function listAccessCodes(db: Executor, tenant: Tenant, query: CodeListQuery): Promise<Page<AccessCode>> {
  const filter = {
    siteId: query.site_id,
    status: query.status,
    visitorPhone: query.visitor_phone,
    search: query.search,
    createdFrom: utcInstant(query.from_date),
    createdBefore: utcInstant(query.to_date),
  };
  const [paged, total] =
    filter.search ? await searchAccessCodeRows(db, tenant, filter, query) : await Promise.all([listAccessCodeRows(db, tenant, filter, query), countAccessCodes(db, tenant, filter)]);
  return toPage(paged.rows.map(rowToAccessCode), total, paged, query.limit);
}

export async function accessCodeStats(db: Executor, tenant: Tenant, window: { from_date?: string; to_date?: string }) {
  return codeStats(db, tenant, utcInstant(window.from_date), utcInstant(window.to_date));
}

/** Revokes an active code; a code that is not active is a 409 naming its status. */
export async function revokeAccessCode(
  db: Executor,
  deps: EventDeps,
  tenant: Tenant,
  codeId: string,
  reason: string | undefined,
): Promise<AccessCode> {
  return inTransaction(db, async (trx) => {
    const row = await findAccessCode(trx, tenant, codeId);
    if (!row) throw notFound('Access code');
    const at = deps.clock.now().toISOString();
    const revoked =
      row.status === 'active' &&
      (await changeCodeStatus(trx, codeId, 'active', { status: 'revoked', revoked_at: at, revoke_reason: reason ?? null, updated_at: at }));
    if (!revoked) throw conflict(`Access code is already ${(await findAccessCode(trx, tenant, codeId))!.status}`);
    const code = rowToAccessCode((await findAccessCode(trx, tenant, codeId))!);
    await appendEvent(trx, deps, { ...tenant, type: 'access_code.revoked', resourceId: codeId, data: code });
    await numberAtOnce.numberChange(trx, tenant, codeId);
    return code;
  });
}

/**
 * Revokes up to 100 active codes, all or nothing: a code of another organization or
 * environment, or none at all, is a 404 naming it; a code that is not active a 409 naming it
 * and its status. Each is revoked as a single revoke does it (its event and feed change), in
 * one transaction, in id order so two overlapping bulk revokes wait for each other rather than
 * deadlock. A code named twice is revoked once.
 */
export async function revokeAccessCodesInBulk(
  db: Executor,
  deps: EventDeps,
  tenant: Tenant,
  codeIds: readonly string[],
  reason: string | undefined,
): Promise<AccessCode[]> {
  const ids = [...new Set(codeIds)];
  return inTransaction(db, async (trx) => {
    const statuses = new Map((await statusesOfCodes(trx, tenant, ids)).map((row) => [row.code_id, row.status]));
    const missing = ids.filter((id) => !statuses.has(id));
    if (missing.length) throw new ApiError(404, `Access codes not found: ${missing.join(', ')}`);
    const inactive = ids.filter((id) => statuses.get(id) !== 'active');
    if (inactive.length) throw conflict(`Access codes not active, none revoked: ${inactive.map((id) => `${id} (${statuses.get(id)})`).join(', ')}`);
    const revoked = new Map<string, AccessCode>();
    for (const id of [...ids].sort()) revoked.set(id, await revokeAccessCode(trx, deps, tenant, id, reason));
    return ids.map((id) => revoked.get(id)!);
  });
}

/** Why a code does not admit at `at`, in the contract's order; undefined when it does. */
export function refusalReason(row: AccessCodeRow, at: Date): ValidationReason | undefined {
  if (row.status === 'revoked') return 'Code has been revoked';
  if (Number(row.use_count) >= Number(row.max_uses)) return 'Maximum uses reached';
  if (at.toISOString() < row.valid_from) return 'Code not yet active';
  if (at.toISOString() >= row.valid_until) return 'Code has expired';
  return undefined;
}

export interface Validation {
  code: string;
  validated_by?: string;
  entry_point?: string;
  /** The gate's site and registered entry point, when the request names them (issue #34). */
  site_id?: string;
  entry_point_id?: string;
  scanned_at?: string;
  /** When the holder already has an open visit at the site: `hold` (409, nothing consumed) or `admit` (recorded as the guard's override). */
  already_inside?: AlreadyInsideChoice;
}

/**
 * Why a code does not admit at the place a validation names; undefined when it does. Only what
 * the validation names is checked: a code made before sites admits at every site, a validation
 * naming no entry point (or only a free-text one) is never refused for it.
 */
export function placeRefusal(row: Pick<AccessCodeRow, 'site_id' | 'entry_point_id'>, at: Place | undefined): ValidationReason | undefined {
  if (!at) return undefined;
  if (row.site_id && row.site_id !== at.siteId) return 'Code is for another site';
  if (row.entry_point_id && at.entryPointId && row.entry_point_id !== at.entryPointId) return 'Code is for another entry point';
  return undefined;
}

/**
 * Decides a typed code or a signed pass. A valid one consumes a use and checks the visitor in
 * (both with their events) in one transaction; validity is judged when it was scanned, so an
 * offline kiosk's replay is decided as it would have been then.
 */
async function validateAccessCode(
  db: Executor,
  { clock, verifyPass, webhookQueue, hostTexts }: PassReading & EventDeps & { hostTexts?: HostTexts },
  tenant: Tenant,
  input: Validation,
  numbering: FeedNumbering,
  keyed: KeyedValidation | undefined,
): Promise<ValidationAnswer> {
  const at = happenedAt(clock, input.scanned_at, 'scanned_at');
  const found = await codeNamedBy(db, { clock, verifyPass }, tenant, input.code);
  return admitCode(db, { clock, webhookQueue, hostTexts }, tenant, input, found, at, numbering, keyed);
}

/** A host texted when their visitor checks in (server/messages/), queued in the check-in's transaction. */
export type HostTexts = (trx: Executor, tenant: Tenant, arrival: Arrival) => Promise<void>;

/**
 * A validation sent to its single route with an Idempotency-Key: the key is claimed, the answer
 * stored and the request's audit entry written in the validation's own transaction, which a
 * tenant's validations share on PostgreSQL (keyed or not), rather than in a transaction of the
 * request's own that would hold a connection while it waits on the tenant's feed counter.
 */
export interface KeyedValidation {
  key: KeyClaim;
  /** The request's audit entry (server/audit/middleware.ts, `auditHookOf`). */
  audit(trx: Executor, resourceId: string | null): Promise<void>;
}

/** A keyed validation's answer: its result, or the answer its key already had (committed by another host meanwhile), to replay. */
export type ValidationAnswer = ValidationResult | { replayed: Extract<Claim, { answered: true }> };

/** The validation once the code is looked up: refused, or a use consumed and the check-in recorded in one transaction. */
async function admitCode(
  db: Executor,
  deps: Pick<PassReading, 'clock'> & EventDeps & { hostTexts?: HostTexts },
  tenant: Tenant,
  input: Validation,
  found: AccessCodeRow | undefined,
  at: Date,
  numbering: FeedNumbering,
  keyed: KeyedValidation | undefined,
): Promise<ValidationAnswer> {
  const place = await placeNamedIn(db, tenant, input);
  // A gate key limited to sites that names no place is at one of its sites: another site's code is refused there too.
  const early = !found
    ? 'Code not found'
    : (refusalReason(found, at) ?? placeRefusal(found, place) ?? (reachesSite(tenant.sites, found.site_id, 'everywhere') ? undefined : 'Code is for another site'));
  // A refusal writes nothing, unless its key's answer is to be kept.
  if (early && !keyed) return { valid: false, reason: early };
  const admission: Admission =
    early || !found
      ? { tenant, keyed, refused: { valid: false, reason: early ?? 'Code not found' } }
      : { deps, tenant, keyed, input, found, at, siteId: place?.siteId ?? found.site_id ?? (await defaultSiteFor(db, tenant, { orFirst: true })) };
  // A tenant's validations share transactions on PostgreSQL (one feed counter lock and one
  // flush for those that arrive together: server/db/serial-batches.ts); a batch's own numbering
  // (the kiosk's replay) is its caller's transaction.
  const admitted = numbering === numberAtOnce ? await admitTogether(db, admission) : await inTransaction(db, (trx) => admitOnce(trx, admission, numbering));
  if ('hold' in admitted) throw alreadyInside(admitted.hold);
  if ('keyRefused' in admitted) throw admitted.keyRefused;
  return admitted;
}

/** What a validation's transaction answers: its result, the holder's open visit when the caller asked to hold (a 409 to the caller), or its key's. */
type Admitted = ValidationResult | { hold: AccessLogRow } | { replayed: Extract<Claim, { answered: true }> } | { keyRefused: ApiError };

/** A validation looked up: allowed so far (what its transaction needs), or refused with a key whose answer is to be stored. */
type Admission = { tenant: Tenant; keyed: KeyedValidation | undefined } & (
  | { deps: Pick<PassReading, 'clock'> & EventDeps & { hostTexts?: HostTexts }; input: Validation; found: AccessCodeRow; at: Date; siteId: string }
  | { refused: ValidationResult }
);

/** Validations one at a time per tenant and host on PostgreSQL, each transaction carrying those that arrived meanwhile. */
const admitTogether = serialBatches<Admission, Admitted>({
  key: ({ tenant }) => `${tenant.organizationId}\u0000${tenant.environment}`,
  alone: (db, admission) => inTransaction(db, (trx) => admitOnce(trx, admission, numberAtOnce)),
  async together(trx, admissions) {
    // A batch locks several codes: like the kiosks' replayed batches, it waits until no other
    // batch of the tenant runs (two at once could each hold a code the other wants), and it locks
    // them in the order of their ids, as a bulk revocation's one statement does. The tenant's
    // counter is taken last, once, for every code the batch changed.
    const tenant = admissions[0]!.tenant;
    await waitForOtherBatches(trx, tenant);
    const idOf = (i: number) => {
      const admission = admissions[i]!;
      return 'found' in admission ? admission.found.code_id : '';
    };
    const order = admissions.map((_, i) => i).sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : a - b));
    const results: Admitted[] = new Array(admissions.length);
    await numberedAtEnd(trx, tenant, async (operation) => {
      for (const i of order) {
        const op = operation();
        results[i] = await admitOnce(trx, admissions[i]!, op.numbering);
        op.keep();
      }
    });
    return results;
  },
});

/**
 * One validation in `trx`: its key claimed first (an answered key answers its stored answer; one
 * in flight or sent with another body is refused, and the others of a shared transaction go on),
 * then the admission, then its answer stored with its audit entry, or its key given back when it
 * was held (a 409, which keeps no record).
 */
async function admitOnce(trx: Executor, admission: Admission, numbering: FeedNumbering): Promise<Admitted> {
  const { keyed } = admission;
  if (keyed) {
    try {
      const claim = await keyed.key.claim(trx);
      if (claim.answered) return { replayed: claim };
    } catch (err) {
      // Thrown before it wrote anything: the shared transaction is whole.
      if (err instanceof ApiError) return { keyRefused: err };
      throw err;
    }
  }
  const admitted = 'refused' in admission ? admission.refused : await admitIn(trx, admission, numbering);
  if (!keyed) return admitted;
  if ('hold' in admitted) {
    await keyed.key.release(trx);
    return admitted;
  }
  await keyed.key.record(trx, 200, admitted);
  // The same entry the request's own transaction held (an answer naming no resource of its own).
  await keyed.audit(trx, null);
  return admitted;
}

/** The use consumed and the check-in recorded, in `trx`; the code numbered on the feed by `numbering`. */
async function admitIn(
  trx: Executor,
  { deps: { clock, webhookQueue, hostTexts }, tenant, input, found, at, siteId }: Extract<Admission, { found: AccessCodeRow }>,
  numbering: FeedNumbering,
): Promise<ValidationResult | { hold: AccessLogRow }> {
  // Decided before a use is spent: the guard, not the code, says whether the holder comes in twice.
  // Answered, not thrown: in a batch of the tenant's validations the others go on.
  if (input.already_inside === 'hold') {
    const open = await openVisitOfCode(trx, tenant, found.code_id, siteId, at);
    if (open) return { hold: open };
  }
  // The use is consumed if the code, as it is now, still has one and is not revoked (the row
  // stays locked until we commit); its validity window cannot have changed since it was read
  // above (it is fixed at creation).
  const consumed = await consumeUse(trx, found.code_id, clock.now().toISOString());
  if (!consumed) {
    // Revoked or used up since the read above (by another validation, host or process).
    const current = await findAccessCode(trx, tenant, found.code_id);
    return { valid: false, reason: (current && refusalReason(current, at)) ?? 'Maximum uses reached' };
  }
  const code = rowToAccessCode(consumed);
  const log = await recordCheckIn(
    trx,
    { clock, webhookQueue },
    tenant,
    {
      codeId: code.code_id,
      method: 'code',
      visitorName: code.visitor_name,
      visitorPhone: code.visitor_phone,
      entryPoint: input.entry_point ?? code.entry_point,
      siteId,
      hostUserId: code.host_user_id,
      recordedBy: input.validated_by,
      checkedInAt: at,
      alreadyInsideOverride: input.already_inside === 'admit',
    },
    [{ ...tenant, type: 'access_code.used', resourceId: code.code_id, data: code }],
  );
  if (hostTexts && consumed.host_phone) {
    await hostTexts(trx, tenant, {
      logId: log.log_id,
      siteId,
      entryPoint: log.entry_point,
      visitorName: code.visitor_name,
      hostName: code.host_user_id,
      hostPhone: consumed.host_phone,
      checkedInAt: log.checked_in_at,
    });
  }
  await numbering.numberChange(trx, tenant, code.code_id);
  return {
    valid: true,
    code_id: code.code_id,
    visitor: { name: code.visitor_name, phone: code.visitor_phone },
    purpose: code.purpose,
    host_user_id: code.host_user_id,
    uses_remaining: code.uses_remaining,
    valid_until: code.valid_until,
    log_id: log.log_id,
  };
}

/** A held validation: the holder is inside. 409 with the visit, so the gate can say since when and where. */
function alreadyInside(open: AccessLogRow): ApiError {
  const openVisit: OpenVisit = { log_id: open.log_id, checked_in_at: open.checked_in_at, entry_point: open.entry_point, visitor_name: open.visitor_name };
  const where = open.entry_point ? ` (${open.entry_point})` : '';
  return new ApiError(409, `The holder of this code is already inside since ${open.checked_in_at}${where}; nothing was consumed. Send already_inside: admit to let them in anyway`, {}, undefined, {
    open_visit: openVisit,
  });
}

/** Four characters are guessable: more than this many unknown codes a minute from one key is a 429. */
export const UNKNOWN_CODES_PER_MINUTE = 30;
/** How long a typed code waits for a guess slot held by a check still under way. */
const TYPED_CODE_SLOT_WAIT_MS = 2000;

/** What reading a presented pass takes: the time, and the app's verifier (it keeps the tenants' public keys). */
export interface PassReading {
  clock: Clock;
  verifyPass: PassVerifier;
}

export interface GuessGuard extends PassReading, EventDeps {
  hostTexts?: HostTexts;
  rateLimitStore: RateLimitStore;
  /** The guard counts per API key. */
  keyId: string;
}

/**
 * validateAccessCode behind the guard that slows the guessing of typed codes: past
 * UNKNOWN_CODES_PER_MINUTE `Code not found` answers in a sliding minute, a key's typed codes are
 * a 429. A pass whose signature verifies was issued by us, so it is never refused by the guard
 * (nor counted when its code is gone). The single route and the kiosk's batch replay both
 * validate through here, so a batch is no way around it.
 */
export async function validateAccessCodeGuarded(db: Executor, guard: GuessGuard, tenant: Tenant, input: Validation, numbering: FeedNumbering = numberAtOnce): Promise<ValidationResult> {
  const answer = await guardedValidation(db, guard, tenant, input, numbering, undefined);
  // Only a keyed validation can find its key answered.
  if ('replayed' in answer) throw new Error('a validation without a key was answered by a key');
  return answer;
}

/** The single route's validation: `validateAccessCodeGuarded`, and with an Idempotency-Key its key claimed in the validation's own transaction. */
export function validateAccessCodeOnce(db: Executor, guard: GuessGuard, tenant: Tenant, input: Validation, keyed: KeyedValidation | undefined): Promise<ValidationAnswer> {
  return guardedValidation(db, guard, tenant, input, numberAtOnce, keyed);
}

async function guardedValidation(
  db: Executor,
  guard: GuessGuard,
  tenant: Tenant,
  input: Validation,
  numbering: FeedNumbering,
  keyed: KeyedValidation | undefined,
): Promise<ValidationAnswer> {
  if (await isGenuinePass(db, guard, tenant, input.code)) return validateAccessCode(db, guard, tenant, input, numbering, keyed);
  const at = happenedAt(guard.clock, input.scanned_at, 'scanned_at');
  // A typed code is a guess: it takes its slot before it is looked up, and gives it back unless
  // it was unknown, so a burst of guesses is looked up at most UNKNOWN_CODES_PER_MINUTE times.
  const ticket = await takeGuess(
    guard.rateLimitStore,
    [{ bucket: `unknown-code:${guard.keyId}`, limit: UNKNOWN_CODES_PER_MINUTE }],
    guard.clock.now().getTime(),
    60_000,
    (retryAfter) => new ApiError(429, `Too many unknown codes from this key; retry in ${retryAfter} s`, { 'Retry-After': String(retryAfter) }),
    // Valid codes give their slots back within milliseconds: a rush of them waits for a slot, not a 429.
    { waitMs: TYPED_CODE_SLOT_WAIT_MS },
  );
  // The guess is the lookup: its slot is held while the code is looked up, kept when none is
  // found, and given back as soon as one is, before the use is consumed and the check-in written.
  const found = await ticket.settle(
    () => codeNamedBy(db, guard, tenant, input.code),
    (outcome) => 'value' in outcome && outcome.value === undefined,
  );
  return admitCode(db, guard, tenant, input, found, at, numbering, keyed);
}

/**
 * True when the guard presented a pass whose signature this tenant's key verifies: a forged or
 * guessed code cannot be, so the unknown-code guard leaves it alone.
 */
export async function isGenuinePass(db: Executor, { clock, verifyPass }: PassReading, tenant: Tenant, presented: string): Promise<boolean> {
  const text = presented.trim();
  if (!looksLikePass(text)) return false;
  return verifyPass(text, await publicPassKeys(db, tenant, clock.now())) !== undefined;
}

/** The code a guard presented: a signed pass (verified against this tenant's key) or a typed code. */
async function codeNamedBy(db: Executor, { clock, verifyPass }: PassReading, gate: Tenant, presented: string): Promise<AccessCodeRow | undefined> {
  // Looked up in the whole tenant: a gate limited to sites refuses another site's code by name ('Code is for another site').
  const tenant = { ...gate, sites: null };
  const text = presented.trim();
  if (looksLikePass(text)) {
    const claims = verifyPass(text, await publicPassKeys(db, tenant, clock.now()));
    if (!claims) return undefined;
    const row = await findAccessCode(db, tenant, claims.codeId);
    return row && row.code === claims.code ? row : undefined;
  }
  return findAccessCodeByCode(db, tenant, normalizeCode(text));
}

export async function accessCodeFeed(db: Executor, tenant: Tenant, cursor: number, limit: number) {
  const rows = await codesChangedAfter(db, tenant, cursor, limit + 1);
  const page = rows.slice(0, limit);
  return {
    codes: page.map(rowToAccessCode),
    next_cursor: page.length ? page.at(-1)!.change_seq : cursor,
    has_more: rows.length > limit,
  };
}

/**
 * Marks active codes past `valid_until` as `expired`, each once (the status change is a
 * compare-and-set, so two hosts sweeping together expire a code once), with its event.
 */
export async function expireDueAccessCodes(db: Executor, deps: EventDeps, batch = 500): Promise<number> {
  const due = await activeCodesDue(db, deps.clock.now().toISOString(), batch);
  let expired = 0;
  for (const candidate of due) {
    const tenant = { organizationId: candidate.organization_id, environment: candidate.environment };
    await inTransaction(db, async (trx) => {
      const at = deps.clock.now().toISOString();
      if (!(await changeCodeStatus(trx, candidate.code_id, 'active', { status: 'expired', updated_at: at }))) return;
      const code = rowToAccessCode((await findAccessCode(trx, tenant, candidate.code_id))!);
      await appendEvent(trx, deps, { ...tenant, type: 'access_code.expired', resourceId: code.code_id, data: code });
      await numberAtOnce.numberChange(trx, tenant, code.code_id);
      expired++;
    });
  }
  return expired;
}

/**
 * Retention for codes: the visitor's name, phone and email on final codes (used, expired,
 * revoked) of the organization last changed before `cutoff` are erased, in the row and in the
 * event log's copies. The erasure gets a change number, so it reaches kiosks through the feed.
 */
export async function eraseVisitorDataOfFinalCodes(db: Executor, organizationId: string, cutoff: string, at: string, batch: number): Promise<number> {
  let erased = 0;
  for (const code of await finalCodesToErase(db, organizationId, cutoff, batch)) {
    await inTransaction(db, async (trx) => {
      await eraseCodeVisitorData(trx, code.code_id, at);
      await scrubVisitorDataFromEvents(trx, code.code_id);
      await numberAtOnce.numberChange(trx, { organizationId, environment: code.environment }, code.code_id);
    });
    erased++;
  }
  return erased;
}

/** The codes' tallies (server/db/tallies.ts), folded in the background. */
export { CODE_TALLY } from './store.ts';

/** Whether codes are bound to a gate, so removing it retires it instead (server/sites/gates.ts, `removeEntryPoint`). */
export { anyCodeBoundTo as codesBoundToGate } from './store.ts';
