import type { StaffMember, StaffRole } from '../../shared/schemas/staff.ts';
import type { Clock } from '../clock.ts';
import type { Db, Executor, ServiceAuditRow, StaffRow, StaffSessionRow } from '../db/schema.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { personByEmail } from '../people/service.ts';
import { checkNewPassword, decoyHash, hashPassword, newToken, newTotpSecret, passwordMatches, tokenHash, totpStep, totpUri } from '../people/credentials.ts';
import { SESSION_MAX_MS } from '../people/session.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { DAY_MS } from '../../shared/time.ts';
import * as store from './store.ts';

/** A staff invitation works once, for 7 days, as a partner's does. */
const INVITATION_MS = 7 * DAY_MS;

export interface StaffDeps {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  publicUrl: string;
}

/** Who did a staff action, as the service audit log and the partner's timeline name them. */
export interface StaffActor {
  staffId: string;
  name: string | null;
  email: string;
  role: StaffRole;
}

/** "Tsaro control (Kemi)": the service and the controller's first name (CONTRACT.md), what a partner reads. */
export function controlName(actor: Pick<StaffActor, 'name' | 'email'>): string {
  const first = actor.name?.trim().split(/\s+/)[0] || actor.email.split('@')[0]!;
  return `Tsaro control (${first})`;
}

export const staffActorOf = (row: StaffRow): StaffActor => ({ staffId: row.staff_id, name: row.name, email: row.email, role: row.role as StaffRole });

export function rowToStaff(row: StaffRow): StaffMember {
  return { staff_id: row.staff_id, email: row.email, name: row.name, role: row.role as StaffRole, totp_enabled: row.totp_enabled === 1, created_at: row.created_at };
}

export const staffInviteUrl = (publicUrl: string, token: string) => `${publicUrl}/console/staff/join/${token}`;

/**
 * The service audit log's one writer: every staff action, every opening of a subject's details,
 * and the operator's staff and roster commands. Written in the action's own transaction.
 */
export async function recordStaffAction(
  db: Executor,
  clock: Clock,
  /** `system`: what the service did itself (an alert raised by the alerts job, a responder's panic). */
  actor: StaffActor | 'operator' | 'system',
  entry: { action: string; subjectType?: string; subjectId?: string; organizationId?: string; detail?: Record<string, unknown> },
): Promise<void> {
  const row: ServiceAuditRow = {
    entry_id: newId('saud', clock.now()),
    staff_id: typeof actor === 'string' ? null : actor.staffId,
    actor: typeof actor === 'string' ? actor : `${actor.name ?? actor.email} (${actor.role})`,
    action: entry.action,
    subject_type: entry.subjectType ?? null,
    subject_id: entry.subjectId ?? null,
    organization_id: entry.organizationId ?? null,
    detail: entry.detail ? JSON.stringify(entry.detail) : null,
    at: clock.now().toISOString(),
  };
  await store.insertServiceAudit(db, row);
}

export async function serviceAuditLog(db: Executor, filter: { subjectId?: string; limit: number }) {
  return (await store.listServiceAudit(db, filter)).map((row) => ({ ...row, detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null }));
}

/**
 * The host's CLI invites staff (`tsaro staff invite`): an email that is a partner's member is
 * refused, saying why. For someone already staff the link is a reset (a lost password or phone):
 * used, it replaces their password, their authenticator and their role, and ends their sessions.
 */
export async function inviteStaff(deps: Omit<StaffDeps, 'secretBox'>, input: { email: string; role: StaffRole }): Promise<{ invite_url: string }> {
  const email = input.email.toLowerCase();
  if (await personByEmail(deps.db, email)) {
    throw conflict(`${email} is a member of a partner organization: Tsaro's staff are separate accounts, so use another address for staff work`);
  }
  const token = newToken();
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await store.insertStaffInvitation(trx, {
      invitation_id: newId('sinv', now),
      email,
      role: input.role,
      token_hash: tokenHash(token),
      invited_by: 'operator',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_MS).toISOString(),
      used_at: null,
      revoked_at: null,
    });
    const existing = await store.findStaffByEmail(trx, email);
    await recordStaffAction(trx, deps.clock, 'operator', { action: existing ? 'resetStaff' : 'inviteStaff', subjectType: 'staff', subjectId: existing?.staff_id, detail: { email, role: input.role } });
  });
  return { invite_url: staffInviteUrl(deps.publicUrl, token) };
}

const invalidLink = () => notFound('Staff invitation (the link was used, withdrawn, or is more than 7 days old)');

export async function staffInvitationByToken(deps: Pick<StaffDeps, 'db' | 'clock'>, token: string) {
  const row = await store.findStaffInvitation(deps.db, tokenHash(token));
  if (!row || row.used_at || row.revoked_at || Date.parse(row.expires_at) <= deps.clock.now().getTime()) throw invalidLink();
  return { email: row.email, role: row.role as StaffRole, expires_at: row.expires_at };
}

export interface SessionMeta {
  ip: string | undefined;
  userAgent: string | undefined;
}

async function startStaffSession(db: Executor, clock: Clock, staff: StaffRow, meta: SessionMeta): Promise<string> {
  const token = newToken();
  const now = clock.now();
  const row: StaffSessionRow = {
    session_id: newId('sses', now),
    token_hash: tokenHash(token),
    staff_id: staff.staff_id,
    // Never `active` here: only the second step makes a staff session one that may act.
    stage: staff.totp_enabled === 1 ? 'totp' : 'enrol_totp',
    second_step_at: null,
    ip: meta.ip ?? null,
    user_agent: meta.userAgent?.slice(0, 300) ?? null,
    created_at: now.toISOString(),
    last_active_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_MAX_MS).toISOString(),
    ended_at: null,
  };
  await store.insertStaffSession(db, row);
  await store.updateStaff(db, staff.staff_id, { last_active_at: row.created_at });
  return token;
}

/** Joining: a password, then (the session's stage) enrolling an authenticator, always. */
export async function acceptStaffInvitation(deps: StaffDeps, token: string, input: { password: string; name?: string }, meta: SessionMeta): Promise<string> {
  const invited = await staffInvitationByToken(deps, token);
  checkNewPassword(input.password, 'password');
  if (await personByEmail(deps.db, invited.email)) throw conflict(`${invited.email} is a member of a partner organization: staff accounts are separate`);
  const passwordHash = await hashPassword(input.password);
  return deps.db.transaction().execute(async (trx) => {
    const invitation = await store.findStaffInvitation(trx, tokenHash(token));
    const at = deps.clock.now().toISOString();
    if (!invitation || !(await store.useStaffInvitation(trx, invitation.invitation_id, at))) throw invalidLink();
    const existing = await store.findStaffByEmail(trx, invitation.email);
    if (existing) {
      // A reset: a new password and role, no authenticator until one is enrolled again, every session ended.
      const reset: StaffRow = { ...existing, role: invitation.role, password_hash: passwordHash, totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, updated_at: at, name: input.name ?? existing.name };
      await store.updateStaff(trx, existing.staff_id, { role: reset.role, password_hash: reset.password_hash, totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, updated_at: at, name: reset.name });
      await store.endStaffSessions(trx, existing.staff_id, at);
      await recordStaffAction(trx, deps.clock, staffActorOf(reset), { action: 'resetByLink', subjectType: 'staff', subjectId: existing.staff_id });
      return startStaffSession(trx, deps.clock, reset, meta);
    }
    const staff: StaffRow = {
      staff_id: newId('stf', deps.clock.now()),
      email: invitation.email,
      name: input.name ?? null,
      role: invitation.role,
      password_hash: passwordHash,
      totp_secret: null,
      totp_pending_secret: null,
      totp_enabled: 0,
      totp_last_step: null,
      created_at: at,
      updated_at: at,
      last_active_at: null,
    };
    await store.insertStaff(trx, staff);
    await recordStaffAction(trx, deps.clock, staffActorOf(staff), { action: 'joinStaff', subjectType: 'staff', subjectId: staff.staff_id });
    return startStaffSession(trx, deps.clock, staff, meta);
  });
}

export class WrongStaffCredentials extends ApiError {
  constructor() {
    super(401, 'Email or password is wrong');
  }
}

/** Email and password: a session whose next stage is always the second step. A wrong email costs an argon2 hash too. */
export async function staffSignIn(deps: StaffDeps, email: string, password: string, meta: SessionMeta): Promise<string> {
  const staff = await store.findStaffByEmail(deps.db, email.toLowerCase());
  const ok = await passwordMatches(staff?.password_hash ?? (await decoyHash()), password);
  if (!staff || !staff.password_hash || !ok) throw new WrongStaffCredentials();
  return startStaffSession(deps.db, deps.clock, staff, meta);
}

export interface LiveStaffSession {
  token: string;
  session: StaffSessionRow;
  staff: StaffRow;
}

/** The second step passed: signed in, under a new token (what was issued before it stops working). */
async function promote(deps: StaffDeps, live: LiveStaffSession): Promise<string> {
  const token = newToken();
  const at = deps.clock.now().toISOString();
  await store.updateStaffSession(deps.db, live.session.session_id, { stage: 'active', token_hash: tokenHash(token), second_step_at: at });
  await recordStaffAction(deps.db, deps.clock, staffActorOf(live.staff), { action: 'signIn', subjectType: 'staff', subjectId: live.staff.staff_id });
  return token;
}

export async function staffSecondStep(deps: StaffDeps, live: LiveStaffSession, code: string): Promise<string> {
  if (live.session.second_step_at) throw conflict('This session is signed in already');
  if (live.staff.totp_enabled !== 1) throw conflict('Set up an authenticator first: POST /v1/staff/totp/enrolment');
  const secret = live.staff.totp_secret && deps.secretBox.open(live.staff.totp_secret);
  const step = secret ? await totpStep(secret, code, deps.clock.now().getTime()) : undefined;
  if (step === undefined || !(await store.takeStaffTotpStep(deps.db, live.staff.staff_id, step))) throw new ApiError(401, 'That code is wrong or was used already: wait for the next one');
  return promote(deps, live);
}

export async function startStaffTotpEnrolment(deps: StaffDeps, live: LiveStaffSession) {
  if (live.staff.totp_enabled === 1 && !live.session.second_step_at) throw conflict('Enter a code from your authenticator first (POST /v1/staff/sign-in/totp)');
  const pending = live.staff.totp_pending_secret;
  const secret = pending ? deps.secretBox.open(pending) : newTotpSecret();
  if (!pending) await store.updateStaff(deps.db, live.staff.staff_id, { totp_pending_secret: deps.secretBox.seal(secret), updated_at: deps.clock.now().toISOString() });
  return { secret, otpauth_uri: totpUri(secret, live.staff.email, 'operations') };
}

export async function confirmStaffTotp(deps: StaffDeps, live: LiveStaffSession, code: string): Promise<string> {
  if (live.staff.totp_enabled === 1 && !live.session.second_step_at) throw conflict('Enter a code from your authenticator first (POST /v1/staff/sign-in/totp)');
  const pending = live.staff.totp_pending_secret;
  if (!pending) throw conflict('Start the enrolment first: POST /v1/staff/totp/enrolment');
  const step = await totpStep(deps.secretBox.open(pending), code, deps.clock.now().getTime());
  if (step === undefined) throw new ApiError(400, "code: wrong; check the phone's clock and try the next code");
  await store.updateStaff(deps.db, live.staff.staff_id, { totp_secret: pending, totp_pending_secret: null, totp_enabled: 1, totp_last_step: step, updated_at: deps.clock.now().toISOString() });
  return live.session.second_step_at ? live.token : promote(deps, live);
}

export async function endStaffSession(deps: Pick<StaffDeps, 'db' | 'clock'>, live: LiveStaffSession): Promise<void> {
  const at = deps.clock.now().toISOString();
  await store.updateStaffSession(deps.db, live.session.session_id, { ended_at: at });
  await recordStaffAction(deps.db, deps.clock, staffActorOf(live.staff), { action: 'signOut', subjectType: 'staff', subjectId: live.staff.staff_id });
}

