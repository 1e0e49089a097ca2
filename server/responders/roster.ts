import type { ResponderProfileChange, RosterResponder, Standing } from '../../shared/schemas/staff.ts';
import type { Clock } from '../clock.ts';
import type { Executor, ResponderRow } from '../db/schema.ts';
import { conflict, notFound } from '../http/errors.ts';
import { withdrawOpenOffersOf } from '../dispatch/responder-actions.ts';
import { hashSecret, randomBase62 } from '../auth/secrets.ts';
import { rowToResponder } from './responder.ts';
import { findResponderById, listRosterRows, suspendIfVerified, updateResponderRow, verifiedWithLicenceBefore } from './store.ts';

/**
 * The roster (issue #47): a responder's profile and standing. Only `verified` responders are
 * offered incidents (the dispatch search filters on it). `add` from the host's CLI makes a
 * verified responder; one added by a network admin in the console has applied, and waits.
 */
export function rowToRosterResponder(row: ResponderRow): RosterResponder {
  return {
    ...rowToResponder(row),
    standing: (row.standing ?? 'verified') as Standing,
    standing_reason: row.standing_reason ?? null,
    standing_changed_by: row.standing_by ?? null,
    standing_changed_at: row.standing_at ?? null,
    skills: JSON.parse(row.skills ?? '[]') as string[],
    vehicle: row.vehicle ?? null,
    vehicle_plate: row.vehicle_plate ?? null,
    base: row.base ?? null,
    licence_number: row.licence_number ?? null,
    licence_expires: row.licence_expires ?? null,
  };
}

/** Who changed a standing: a staff id, or the operator's CLI. */
export type StandingChanger = { staffId: string } | 'operator';
const changerId = (by: StandingChanger) => (by === 'operator' ? 'operator' : by.staffId);

export type StandingVerb = 'verify' | 'suspend' | 'resume' | 'retire';

/** Each verb: the standings it may start from, and where it leads. */
const STANDING_MOVES: Record<StandingVerb, { from: readonly Standing[]; to: Standing }> = {
  verify: { from: ['applied'], to: 'verified' },
  suspend: { from: ['applied', 'verified'], to: 'suspended' },
  resume: { from: ['suspended'], to: 'verified' },
  retire: { from: ['applied', 'verified', 'suspended'], to: 'retired' },
};

async function roster(db: Executor, responderId: string): Promise<ResponderRow> {
  const row = await findResponderById(db, responderId);
  if (!row) throw notFound('Responder');
  return row;
}

/**
 * Moves a responder's standing; the same move again (a retry) answers it as it is. Suspending or
 * retiring withdraws the offers open to them, and retiring also ends their app's sign-in.
 */
export async function changeStanding(db: Executor, clock: Clock, responderId: string, verb: StandingVerb, by: StandingChanger, reason?: string): Promise<RosterResponder> {
  const row = await roster(db, responderId);
  const move = STANDING_MOVES[verb];
  const standing = (row.standing ?? 'verified') as Standing;
  if (standing === move.to && verb !== 'suspend') return rowToRosterResponder(row);
  if (!move.from.includes(standing)) throw conflict(`Responder is ${standing}: cannot ${verb}`);
  const at = clock.now().toISOString();
  const changes: Partial<ResponderRow> = { standing: move.to, standing_reason: reason ?? null, standing_by: changerId(by), standing_at: at, updated_at: at };
  if (move.to === 'retired') Object.assign(changes, { status: 'deactivated', available: 0 });
  await updateResponderRow(db, responderId, changes);
  if (move.to === 'suspended' || move.to === 'retired') await withdrawOpenOffersOf(db, responderId, at);
  return rowToRosterResponder((await findResponderById(db, responderId))!);
}

export async function updateProfile(db: Executor, clock: Clock, responderId: string, change: ResponderProfileChange): Promise<RosterResponder> {
  await roster(db, responderId);
  const { skills, ...rest } = change;
  const changes: Partial<ResponderRow> = { ...rest, updated_at: clock.now().toISOString() };
  if (skills) changes.skills = JSON.stringify([...new Set(skills)]);
  await updateResponderRow(db, responderId, changes);
  return rowToRosterResponder((await findResponderById(db, responderId))!);
}

export async function listRoster(db: Executor, filter: { standing?: Standing; environment?: string }): Promise<RosterResponder[]> {
  return (await listRosterRows(db, filter)).map(rowToRosterResponder);
}

export async function rosterResponder(db: Executor, responderId: string): Promise<RosterResponder> {
  return rowToRosterResponder(await roster(db, responderId));
}

/**
 * A licence that has expired suspends its holder (issue #47), once per responder across hosts
 * (a compare-and-set on the standing), with the reason and "system" as who: run by the sweeps.
 * Expiry is a date: a licence expiring on D is good through D (UTC).
 */
export async function suspendExpiredLicences(db: Executor, clock: Clock): Promise<number> {
  const now = clock.now();
  const today = now.toISOString().slice(0, 10);
  let suspended = 0;
  for (const row of await verifiedWithLicenceBefore(db, today)) {
    const at = now.toISOString();
    const changed = await suspendIfVerified(db, row.responder_id, { standing: 'suspended', standing_reason: `Licence expired on ${row.licence_expires}`, standing_by: 'system', standing_at: at, updated_at: at });
    if (!changed) continue;
    await withdrawOpenOffersOf(db, row.responder_id, at);
    suspended++;
  }
  return suspended;
}

/**
 * The app's sign-in, issued anew (a new phone, a lost one): a new token, shown once; the old one
 * stops working at once (the app on the old phone signs out on its next call). Revoking issues
 * one and gives it to nobody. A retired responder gets none.
 */
export async function reissueSignIn(db: Executor, clock: Clock, responderId: string, give: boolean): Promise<{ responder: RosterResponder; token: string | null }> {
  const row = await roster(db, responderId);
  if (row.standing === 'retired' || row.status !== 'active') throw conflict('Responder is retired: no sign-in');
  const token = `rtk_${randomBase62(40)}`;
  await updateResponderRow(db, responderId, { token_hash: hashSecret(token), token_hint: give ? `rtk_…${token.slice(-4)}` : 'revoked', ...(!give && { available: 0 }), updated_at: clock.now().toISOString() });
  return { responder: rowToRosterResponder((await findResponderById(db, responderId))!), token: give ? token : null };
}
