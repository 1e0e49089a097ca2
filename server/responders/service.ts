import { NewResponderInput, type Offer, type Responder, type ResponderIncident } from '../../shared/schemas/responders.ts';
import { hashSecret, randomBase62 } from '../auth/secrets.ts';
import { offersOpenTo, pendingOffersOf, reportResponderLocation, responderAssignments } from '../dispatch/responder-actions.ts';
import type { Clock } from '../clock.ts';
import type { EventDeps } from '../events/service.ts';
import type { Executor, ResponderRow } from '../db/schema.ts';
import { describeIssue } from '../http/parse.ts';
import { newId } from '../ids.ts';
import { rowToResponder } from './responder.ts';
import { findResponderById, findResponderByTokenHash, insertResponder, listResponderRows, markResponderDeactivated, recordAvailability, signInsOf } from './store.ts';
import { DAY_MS } from '../../shared/time.ts';

/**
 * A bad field of a new responder. The message names it in the schema's words (`latitude: ...`)
 * and `field` says which, so the operator tool can name its own flag (`--lat`) instead.
 */
export class ResponderInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Adds a responder to the network, available at the given place; the token is shown once. */
export async function addResponder(
  db: Executor,
  clock: Clock,
  input: NewResponderInput,
  /** The roster's columns (a network admin's applicant: `standing: 'applied'` and a profile); default a verified responder. */
  roster: Partial<ResponderRow> = {},
): Promise<{ responder: Responder; token: string }> {
  const parsed = NewResponderInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? 'responder');
    throw new ResponderInputError(field, describeIssue(issue, 'responder', input));
  }
  const { name, phone, latitude, longitude, environment } = parsed.data;
  const token = `rtk_${randomBase62(40)}`;
  const at = clock.now().toISOString();
  const row: ResponderRow = {
    responder_id: newId('rsp', clock.now()),
    environment,
    name,
    phone,
    token_hash: hashSecret(token),
    token_hint: `rtk_…${token.slice(-4)}`,
    status: 'active',
    available: 1,
    latitude,
    longitude,
    location_at: at,
    duty_since: at,
    created_at: at,
    updated_at: at,
    ...roster,
  };
  await insertResponder(db, row);
  return { responder: rowToResponder(row), token };
}

export async function listResponders(db: Executor, environment?: string): Promise<Responder[]> {
  return (await listResponderRows(db, environment)).map(rowToResponder);
}

/** A deactivated responder is never offered an incident and its token stops working (the app signs out on its next call). */
export async function deactivateResponder(db: Executor, clock: Clock, responderId: string): Promise<Responder | undefined> {
  await markResponderDeactivated(db, responderId, clock.now().toISOString());
  const row = await findResponderById(db, responderId);
  return row && rowToResponder(row);
}

/** The heartbeat: availability and where the responder is now (and, with an incident in hand, its `incident.responder_location`). */
export async function reportAvailability(
  db: Executor,
  deps: EventDeps,
  responderId: string,
  report: { available: boolean; latitude: number; longitude: number },
): Promise<Responder> {
  await recordAvailability(db, responderId, report, deps.clock.now().toISOString());
  await reportResponderLocation(db, deps, responderId, report);
  return rowToResponder((await findResponderById(db, responderId))!);
}

/** The offers this responder may still answer (dispatch owns offers; see offersOpenTo). */
export async function openOffers(db: Executor, responderId: string): Promise<Offer[]> {
  return offersOpenTo(db, responderId);
}

/** The ids of this responder's pending offers, open to it or not (a long poll's bell is not rung again by these). */
export async function pendingOfferIds(db: Executor, responderId: string): Promise<string[]> {
  return (await pendingOffersOf(db, [responderId])).map((row) => row.offer_id);
}

/** The offer bell's one check for every waiting phone: their pending offers, and their sign-ins. */
export function offerBellCheck(db: Executor, responderIds: readonly string[]) {
  return Promise.all([pendingOffersOf(db, responderIds), signInsOf(db, responderIds)]);
}

/** The responder a token's hash belongs to, active or not: the responder API's authentication. */
export async function responderByTokenHash(db: Executor, tokenHash: string): Promise<ResponderRow | undefined> {
  return findResponderByTokenHash(db, tokenHash);
}

/** Incidents assigned to this responder that are open, and any closed in the last day (a cancellation reaches them here). */
export async function recentAssignments(db: Executor, clock: Clock, responderId: string): Promise<ResponderIncident[]> {
  const since = new Date(clock.now().getTime() - DAY_MS).toISOString();
  return responderAssignments(db, responderId, since);
}

/** A responder's row by id (the operations centre's manual offer checks its standing). */
export function responderById(db: Executor, responderId: string): Promise<ResponderRow | undefined> {
  return findResponderById(db, responderId);
}
