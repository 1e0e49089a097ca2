import { parseSiteIds } from '../db/tenant.ts';
import type { Invitation, Person, Role } from '../../shared/schemas/console.ts';
import { ROLES, twoStepRequired } from '../../shared/schemas/console.ts';
import { changeTwoStepRoles, twoStepRolesOf } from '../organizations/service.ts';
import type { Page } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import type { ConsoleSessionRow, Db, Executor, InvitationRow, PersonRow } from '../db/schema.ts';
import { ApiError, badRequest, conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import {
  checkNewPassword,
  decoyHash,
  hashPassword,
  newRecoveryCode,
  newToken,
  newTotpSecret,
  passwordMatches,
  recoveryCodeHash,
  tokenHash,
  totpStep,
  totpUri,
} from './credentials.ts';
import { rowToPerson, SESSION_MAX_MS, type LiveSession } from './session.ts';
import * as store from './store.ts';
import { isStaffEmail, STAFF_EMAIL_REFUSED } from '../staff/accounts.ts';
import { DAY_MS } from '../../shared/time.ts';

/** An invitation link works once, for 7 days (CONTRACT.md). */
export const INVITATION_MS = 7 * DAY_MS;
export const RECOVERY_CODE_COUNT = 10;

/** What making an invitation needs (the CLI has no sealing key to hand on PostgreSQL, and needs none). */
export interface InviteDeps {
  db: Db;
  clock: Clock;
  /** PUBLIC_URL, for invitation links. */
  publicUrl: string;
}

export interface PeopleDeps extends InviteDeps {
  /** Seals TOTP secrets. */
  secretBox: SecretBox;
}

/** Who made a change: a person of the organization, or the operator on the host (the CLI). */
export type Inviter = { type: 'person'; personId: string; role: Role } | { type: 'operator' };

export interface SessionMeta {
  ip: string | undefined;
  userAgent: string | undefined;
}

export const inviteUrl = (publicUrl: string, token: string) => `${publicUrl}/console/join/${token}`;

function rowToInvitation(row: InvitationRow & { organization_name: string }): Invitation {
  return {
    invitation_id: row.invitation_id,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    kind: row.kind as Invitation['kind'],
    site_ids: parseSiteIds(row.site_ids),
    organization_name: row.organization_name,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

/** An owner reaches every site: a role limited to sites is any other (issue #34). */
function assertSitesFitRole(role: Role, siteIds: readonly string[] | null | undefined): void {
  if (role === 'owner' && siteIds) throw badRequest('site_ids: an owner reaches every site; limit an admin, operator, developer or viewer instead');
}

const MANAGERS: readonly Role[] = ['owner', 'admin'];

/** Owners and admins manage people, and an admin everyone but owners: adding, changing or removing one is the owners' own. */
const mayManage = (managerRole: Role, role: Role): boolean => MANAGERS.includes(managerRole) && (role !== 'owner' || managerRole === 'owner');

function assertMayManage(inviter: Inviter, role: Role, what: string): void {
  if (inviter.type === 'person' && !mayManage(inviter.role, role)) {
    throw new ApiError(403, MANAGERS.includes(inviter.role) ? `Only an owner can ${what} an owner` : `Your role (${inviter.role}) may not ${what} people`);
  }
}

/**
 * Whether a link (a join or a reset) still fits what its maker and its person are now (issue
 * #46). A link is checked when it is made, and again when it is opened and when it is used,
 * inside the transaction that uses it; a membership change withdraws the links that stop fitting
 * (`withdrawLinksThatNoLongerFit`).
 * - Its maker, a person (the operator's CLI always may), is still an owner or admin of the
 *   organization, reaching every site, who may manage the link's role (only an owner an owner's).
 * - A reset link's person is still a member with the role and sites it was made for; made by a
 *   person, they belong to no other organization: a reset replaces the one password and
 *   authenticator they sign in to every organization with.
 */
async function linkFits(db: Executor, link: InvitationRow): Promise<boolean> {
  if (link.invited_by !== 'operator') {
    const maker = await store.findPerson(db, link.organization_id, link.invited_by);
    if (!maker || maker.site_ids || !mayManage(maker.role as Role, link.role as Role)) return false;
  }
  if (link.kind !== 'reset') return true;
  const person = link.person_id ? await store.findPerson(db, link.organization_id, link.person_id) : undefined;
  if (!person || person.role !== link.role || (person.site_ids ?? null) !== (link.site_ids ?? null)) return false;
  return link.invited_by === 'operator' || (await store.membershipsOf(db, person.person_id)).length === 1;
}

/** After a change to someone's memberships: the open links made by them or for them that no longer fit are withdrawn, in the change's transaction. */
async function withdrawLinksThatNoLongerFit(trx: Executor, person: { person_id: string; email: string }, at: string): Promise<void> {
  for (const link of await store.openLinksOf(trx, { personId: person.person_id, email: person.email }, at)) {
    if (!(await linkFits(trx, link))) await store.revokeInvitation(trx, link.organization_id, link.invitation_id, at);
  }
}

async function makeInvitation(
  deps: InviteDeps,
  input: { organizationId: string; email: string; role: Role; name?: string | null; kind: 'join' | 'reset'; personId?: string; inviter: Inviter; siteIds?: readonly string[] | null },
): Promise<{ invitation: Invitation; invite_url: string }> {
  const token = newToken();
  const now = deps.clock.now();
  const row: InvitationRow = {
    invitation_id: newId('inv', now),
    organization_id: input.organizationId,
    email: input.email,
    name: input.name ?? null,
    role: input.role,
    kind: input.kind,
    person_id: input.personId ?? null,
    token_hash: tokenHash(token),
    invited_by: input.inviter.type === 'person' ? input.inviter.personId : 'operator',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_MS).toISOString(),
    used_at: null,
    revoked_at: null,
    site_ids: input.siteIds ? JSON.stringify(input.siteIds) : null,
  };
  const organization = await deps.db.transaction().execute(async (trx) => {
    await store.revokeOpenInvitationsFor(trx, input.organizationId, input.email, row.created_at);
    await store.insertInvitation(trx, row);
    return trx.selectFrom('organizations').select('name').where('organization_id', '=', input.organizationId).executeTakeFirstOrThrow();
  });
  return { invitation: rowToInvitation({ ...row, organization_name: organization.name }), invite_url: inviteUrl(deps.publicUrl, token) };
}

/** A link for a new person (console, CLI, the demo at first start): single use, 7 days. */
export async function invitePerson(deps: InviteDeps, input: { organizationId: string; email: string; role: Role; name?: string | null; inviter: Inviter; siteIds?: readonly string[] | null }) {
  assertMayManage(input.inviter, input.role, 'invite');
  assertSitesFitRole(input.role, input.siteIds);
  // Tsaro's staff are accounts of their own (issue #47): never also a partner's member.
  if (await isStaffEmail(deps.db, input.email)) throw conflict(STAFF_EMAIL_REFUSED(input.email));
  const existing = await store.findPersonByEmail(deps.db, input.email);
  if (existing && (await store.findPerson(deps.db, input.organizationId, existing.person_id))) throw conflict(`${input.email} is already in this organization: issue a reset link instead`);
  // Someone of another organization is invited as anyone is, and joins with the sign-in they
  // have: the answer never tells this organization that the address is known elsewhere (the
  // link says so only to its holder).
  return makeInvitation(deps, { ...input, kind: 'join' });
}

/** A new link for someone who lost their password or phone: it replaces both, and ends their sessions when used. */
export async function resetPerson(deps: InviteDeps, organizationId: string, personId: string, inviter: Inviter) {
  const person = await store.findPerson(deps.db, organizationId, personId);
  if (!person) throw notFound('Person');
  assertMayManage(inviter, person.role as Role, 'reset');
  // A reset replaces the one password and phone the person signs in to every organization with:
  // one organization's admin does not take over someone who belongs to others too.
  if (inviter.type === 'person' && (await store.membershipsOf(deps.db, personId)).length > 1) {
    throw new ApiError(403, `${person.email} belongs to other organizations too: only they (Account, "Change password") or the operator's CLI can reset their sign-in`);
  }
  return makeInvitation(deps, { organizationId, email: person.email, role: person.role as Role, name: person.name, kind: 'reset', personId, inviter, siteIds: parseSiteIds(person.site_ids) });
}

/** The operator's reset from the host (`tsaro console invite` for someone already there): no inviter to check. */
export async function inviteOrReset(deps: InviteDeps, input: { organizationId: string; email: string; role: Role; name?: string | null; siteIds?: readonly string[] | null }) {
  const existing = await store.findPersonByEmail(deps.db, input.email);
  if (existing && (await store.findPerson(deps.db, input.organizationId, existing.person_id))) return resetPerson(deps, input.organizationId, existing.person_id, { type: 'operator' });
  return invitePerson(deps, { ...input, inviter: { type: 'operator' } });
}

const invalidLink = () => notFound('Invitation (the link was used, withdrawn, or is more than 7 days old)');

export async function invitationByToken(deps: PeopleDeps, token: string): Promise<Invitation> {
  const row = await store.findInvitationByToken(deps.db, tokenHash(token));
  if (!row || row.used_at || row.revoked_at || Date.parse(row.expires_at) <= deps.clock.now().getTime() || !(await linkFits(deps.db, row))) throw invalidLink();
  return rowToInvitation(row);
}

async function startSession(db: Db, clock: Clock, person: PersonRow, stage: string, meta: SessionMeta): Promise<{ token: string; row: ConsoleSessionRow }> {
  const token = newToken();
  const now = clock.now();
  const row: ConsoleSessionRow = {
    session_id: newId('ses', now),
    token_hash: tokenHash(token),
    person_id: person.person_id,
    stage,
    second_step_at: null,
    ip: meta.ip ?? null,
    user_agent: meta.userAgent?.slice(0, 300) ?? null,
    created_at: now.toISOString(),
    last_active_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_MAX_MS).toISOString(),
    ended_at: null,
  };
  await store.insertSession(db, row);
  await store.updatePerson(db, person.person_id, { last_active_at: row.created_at });
  return { token, row };
}

/** After the password: the code, enrolling one (the role needs it, by the organization's policy), or done. */
/** A second step is due if any organization the person belongs to requires one of their role there. */
async function stageAfterPassword(db: Executor, person: PersonRow): Promise<string> {
  if (person.totp_enabled === 1) return 'totp';
  for (const membership of await store.membershipsOf(db, person.person_id)) {
    if (twoStepRequired(membership.role as Role, await twoStepRolesOf(db, membership.organization_id))) return 'enrol_totp';
  }
  return 'active';
}

/** Joining (a new person) or a reset (new password, no phone yet, every session ended): a session starts. */
export async function acceptInvitation(deps: PeopleDeps, token: string, input: { password: string; name?: string }, meta: SessionMeta) {
  const invited = await invitationByToken(deps, token);
  if (await isStaffEmail(deps.db, invited.email)) throw conflict(STAFF_EMAIL_REFUSED(invited.email));
  // Someone with a sign-in already (a member of another organization) joins with it: their
  // password proves it is them, and nothing of their sign-in changes (issue #34).
  const signedUp = invited.kind === 'join' ? await store.findPersonByEmail(deps.db, invited.email) : undefined;
  let passwordHash = '';
  if (signedUp) {
    if (!signedUp.password_hash || !(await passwordMatches(signedUp.password_hash, input.password))) {
      throw new ApiError(401, `password: ${invited.email} signs in to Tsaro already; enter that password to join ${invited.organization_name}`);
    }
  } else {
    checkNewPassword(input.password, 'password');
    passwordHash = await hashPassword(input.password);
  }
  const joined = await deps.db.transaction().execute(async (trx) => {
    const invitation = await store.findInvitationByToken(trx, tokenHash(token));
    if (!invitation) throw invalidLink();
    // The person's row first (PostgreSQL): a reset, a join and a membership change of the same
    // person take turns on every host, so the link is checked against what they are when it is used.
    const personId = invitation.kind === 'reset' ? invitation.person_id : signedUp?.person_id;
    if (personId) await store.lockPerson(trx, personId);
    const at = deps.clock.now().toISOString();
    if (!(await linkFits(trx, invitation)) || !(await store.useInvitation(trx, invitation.invitation_id, at))) throw invalidLink();
    let person: PersonRow;
    if (invitation.kind === 'reset' && invitation.person_id) {
      const found = await store.findPerson(trx, invitation.organization_id, invitation.person_id);
      if (!found) throw invalidLink();
      const changes = { password_hash: passwordHash, totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, updated_at: at };
      person = { ...found, ...changes };
      await store.updatePerson(trx, person.person_id, changes);
      await store.replaceRecoveryCodes(trx, person.person_id, []);
      await store.endSessions(trx, { personId: person.person_id }, at);
    } else if (signedUp) {
      // The password was checked before this transaction: changed since (a reset on another host), it proves nothing.
      if ((await store.findPersonByEmail(trx, invitation.email))?.password_hash !== signedUp.password_hash) throw conflict(`${invitation.email}'s password changed meanwhile: open the link again`);
      if (await store.findPerson(trx, invitation.organization_id, signedUp.person_id)) throw conflict(`${invitation.email} is in ${invited.organization_name} already: sign in`);
      const membership = { organization_id: invitation.organization_id, person_id: signedUp.person_id, role: invitation.role, site_ids: invitation.site_ids ?? null, created_at: at, updated_at: at };
      await store.insertMembership(trx, membership);
      // In a second organization now: another organization's reset link for them stops fitting.
      await withdrawLinksThatNoLongerFit(trx, signedUp, at);
      person = { ...signedUp, ...membership };
    } else {
      if (await store.findPersonByEmail(trx, invitation.email)) throw conflict(`${invitation.email} has joined already: sign in`);
      person = {
        person_id: newId('per', deps.clock.now()),
        organization_id: invitation.organization_id,
        email: invitation.email,
        name: input.name ?? invitation.name,
        role: invitation.role,
        site_ids: invitation.site_ids ?? null,
        password_hash: passwordHash,
        totp_secret: null,
        totp_pending_secret: null,
        totp_enabled: 0,
        totp_last_step: null,
        created_at: at,
        updated_at: at,
        last_active_at: null,
      };
      await store.insertPerson(trx, person);
    }
    return { ...(await startSession(trx as unknown as Db, deps.clock, person, await stageAfterPassword(trx, person), meta)), organizationId: invitation.organization_id };
  });
  return joined;
}

export class WrongCredentials extends ApiError {
  constructor() {
    super(401, 'Email or password is wrong');
  }
}

/** Email and password: a session at its next stage. A wrong email costs an argon2 hash, as a wrong password does. */
export async function signIn(deps: PeopleDeps, email: string, password: string, meta: SessionMeta) {
  const person = await store.findPersonByEmail(deps.db, email);
  const ok = await passwordMatches(person?.password_hash ?? (await decoyHash()), password);
  if (!person || !person.password_hash || !ok) throw new WrongCredentials();
  return startSession(deps.db, deps.clock, person, await stageAfterPassword(deps.db, person), meta);
}

/**
 * The session passed the second step: signed in wherever its roles are, with a new token, so
 * what was issued before the second step stops working.
 */
async function promote(deps: PeopleDeps, live: LiveSession): Promise<{ token: string }> {
  const token = newToken();
  await store.updateSession(deps.db, live.session.session_id, { stage: 'active', token_hash: tokenHash(token), second_step_at: deps.clock.now().toISOString() });
  return { token };
}

/** A session that never passed the second step, of someone with an authenticator: it proves the authenticator before it may replace it. */
const mustProveAuthenticator = (live: LiveSession): boolean => live.person.totp_enabled === 1 && !live.session.second_step_at;

export async function secondFactor(deps: PeopleDeps, live: LiveSession, input: { code?: string; recovery_code?: string }) {
  // A code is due at sign-in, where the organization worked in asks for one, or taken at any time from a session that never gave one.
  if (!mustProveAuthenticator(live)) throw conflict('This session is not waiting for a code');
  const wrong = () => new ApiError(401, input.code ? 'That code is wrong or was used already: wait for the next one' : 'That recovery code is wrong or was used already');
  if (input.code) {
    const secret = live.person.totp_secret && deps.secretBox.open(live.person.totp_secret);
    const step = secret ? await totpStep(secret, input.code, deps.clock.now().getTime()) : undefined;
    if (step === undefined || !(await store.takeTotpStep(deps.db, live.person.person_id, step))) throw wrong();
  } else if (!(await store.useRecoveryCode(deps.db, live.person.person_id, recoveryCodeHash(input.recovery_code!), deps.clock.now().toISOString()))) {
    throw wrong();
  }
  return promote(deps, live);
}

const PROVE_FIRST = 'Enter a code from your authenticator first (POST /console/sign-in/totp): a session that never passed the second step does not replace it';

/** A secret to enrol (first time, or a new phone): kept sealed, pending, until a code from it is confirmed. */
export async function startTotpEnrolment(deps: PeopleDeps, live: LiveSession, input: { replace?: boolean } = {}) {
  if (mustProveAuthenticator(live)) throw conflict(PROVE_FIRST);
  // The secret waiting to be confirmed survives a reload: the phone that scanned it still works.
  const pending = live.person.totp_pending_secret;
  if (pending && !input.replace) return totpEnrolmentOf(deps.secretBox.open(pending), live);
  const secret = newTotpSecret();
  await store.updatePerson(deps.db, live.person.person_id, { totp_pending_secret: deps.secretBox.seal(secret), updated_at: deps.clock.now().toISOString() });
  return totpEnrolmentOf(secret, live);
}

const totpEnrolmentOf = (secret: string, live: LiveSession) => ({ secret, otpauth_uri: totpUri(secret, live.person.email, live.organization.name) });

export async function confirmTotpEnrolment(deps: PeopleDeps, live: LiveSession, code: string) {
  if (mustProveAuthenticator(live)) throw conflict(PROVE_FIRST);
  const pending = live.person.totp_pending_secret;
  if (!pending) throw conflict('Start the enrolment first: POST /console/totp/enrolment');
  const step = await totpStep(deps.secretBox.open(pending), code, deps.clock.now().getTime());
  if (step === undefined) throw new ApiError(400, 'code: wrong; check the phone\'s clock and try the next code');
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await deps.db.transaction().execute(async (trx) => {
    await store.updatePerson(trx, live.person.person_id, {
      totp_secret: pending,
      totp_pending_secret: null,
      totp_enabled: 1,
      totp_last_step: step,
      updated_at: deps.clock.now().toISOString(),
    });
    await store.replaceRecoveryCodes(trx, live.person.person_id, codes.map(recoveryCodeHash));
  });
  // Confirming an authenticator is a second step passed: a session that had not passed one is promoted.
  const promoted = live.session.second_step_at ? { token: live.token } : await promote(deps, live);
  return { ...promoted, recovery_codes: codes };
}

/** The person an email names, if any (the audit log of a failed sign-in). */
export const personByEmail = (db: Executor, email: string) => store.findPersonByEmail(db, email);

export const WRONG_CURRENT_PASSWORD = 'current_password: wrong';

export async function changePassword(deps: PeopleDeps, live: LiveSession, input: { current_password: string; new_password: string }) {
  if (!live.person.password_hash || !(await passwordMatches(live.person.password_hash, input.current_password))) {
    throw new ApiError(400, WRONG_CURRENT_PASSWORD);
  }
  checkNewPassword(input.new_password, 'new_password');
  const passwordHash = await hashPassword(input.new_password);
  const at = deps.clock.now().toISOString();
  await store.updatePerson(deps.db, live.person.person_id, { password_hash: passwordHash, updated_at: at });
  // Whoever knew the old password is signed out everywhere else.
  await store.endSessions(deps.db, { personId: live.person.person_id, exceptSessionId: live.session.session_id }, at);
}

export async function listOrganizationPeople(db: Db, organizationId: string, query: PageRequest & { role?: Role }): Promise<Page<Person>> {
  const paged = await store.listPeople(db, organizationId, { role: query.role }, query);
  return toPage(paged.rows.map(rowToPerson), paged.total, paged, query.limit);
}

export async function listInvitations(deps: PeopleDeps, organizationId: string, query: PageRequest): Promise<Page<Invitation>> {
  const paged = await store.listPendingInvitations(deps.db, organizationId, deps.clock.now().toISOString(), query);
  return toPage(paged.rows.map(rowToInvitation), paged.total, paged, query.limit);
}

export async function withdrawInvitation(deps: PeopleDeps, organizationId: string, invitationId: string): Promise<void> {
  if (!(await store.revokeInvitation(deps.db, organizationId, invitationId, deps.clock.now().toISOString()))) throw notFound('Invitation');
}

/**
 * At least one owner, always: a change that would take the organization from one or more owners
 * to none is refused. Called inside the change's transaction after lockOrganizationPeople, so two
 * owners demoting or removing each other at once, on one host or two, cannot both pass.
 */
async function assertAnotherOwnerRemains(trx: Executor, person: PersonRow): Promise<void> {
  if (person.role === 'owner' && (await store.countOwners(trx, person.organization_id)) <= 1) {
    throw conflict('This is the only owner: make someone else owner first');
  }
}

/**
 * A person's change, in one transaction with the organization's people locked: the person as
 * they are now (404 when gone), the rules checked against that, then `change`.
 */
async function changePersonLocked<T>(deps: PeopleDeps, organizationId: string, personId: string, change: (trx: Executor, person: PersonRow) => Promise<T>): Promise<T> {
  return deps.db.transaction().execute(async (trx) => {
    await store.lockOrganizationPeople(trx, organizationId);
    await store.lockPerson(trx, personId);
    const person = await store.findPerson(trx, organizationId, personId);
    if (!person) throw notFound('Person');
    return change(trx, person);
  });
}

/**
 * A new role (or sites). The links that stop fitting are withdrawn with it: a reset link is bound
 * to the role and sites the person had when it was made, so an admin's old reset link for a viewer
 * never signs anyone in as an owner; and links the person made that their new role could not make.
 */
export async function changeRole(deps: PeopleDeps, organizationId: string, personId: string, role: Role, inviter: Inviter, siteIds?: readonly string[] | null): Promise<Person> {
  return changePersonLocked(deps, organizationId, personId, async (trx, person) => {
    assertMayManage(inviter, person.role as Role, 'change');
    assertMayManage(inviter, role, 'make');
    assertSitesFitRole(role, siteIds);
    if (role !== 'owner') await assertAnotherOwnerRemains(trx, person);
    const at = deps.clock.now().toISOString();
    // Left out: as they are, except that an owner reaches every site.
    const sites = role === 'owner' ? null : siteIds === undefined ? (person.site_ids ?? null) : siteIds && JSON.stringify(siteIds);
    await store.changeRole(trx, organizationId, personId, role, at, sites);
    await withdrawLinksThatNoLongerFit(trx, person, at);
    // Promoted to a role that needs a second step they have not set up: the sessions that never
    // passed one end, and the next sign-in enrols it.
    if (twoStepRequired(role, await twoStepRolesOf(trx, organizationId)) && person.totp_enabled !== 1) await store.endSessions(trx, { personId }, at);
    return rowToPerson({ ...person, role, site_ids: sites });
  });
}

/** Removes a person: their sessions (when it was their last organization), their open links and those they made here go with them, so every host refuses the next request. */
export async function removePerson(deps: PeopleDeps, organizationId: string, personId: string, inviter: Inviter): Promise<void> {
  await changePersonLocked(deps, organizationId, personId, async (trx, person) => {
    assertMayManage(inviter, person.role as Role, 'remove');
    await assertAnotherOwnerRemains(trx, person);
    await store.removeMember(trx, organizationId, personId);
    await withdrawLinksThatNoLongerFit(trx, person, deps.clock.now().toISOString());
  });
}

/** An owner signs someone out everywhere (a lost laptop): their sessions end at once on every host. */
export async function signOutPerson(deps: PeopleDeps, organizationId: string, personId: string): Promise<{ ended: number }> {
  const person = await store.findPerson(deps.db, organizationId, personId);
  if (!person) throw notFound('Person');
  return { ended: await store.endSessions(deps.db, { personId }, deps.clock.now().toISOString()) };
}

export async function listOwnSessions(deps: PeopleDeps & { idleMs: number }, live: LiveSession, query: PageRequest) {
  const now = deps.clock.now();
  const paged = await store.listLiveSessions(
    deps.db,
    live.person.person_id,
    { now: now.toISOString(), idleAfter: new Date(now.getTime() - deps.idleMs).toISOString() },
    query,
  );
  return toPage(
    paged.rows.map((row) => ({
      session_id: row.session_id,
      user_agent: row.user_agent,
      ip: row.ip,
      created_at: row.created_at,
      last_active_at: row.last_active_at,
      current: row.session_id === live.session.session_id,
    })),
    paged.total,
    paged,
    query.limit,
  );
}

export async function endOwnSession(deps: PeopleDeps, live: LiveSession, sessionId: string): Promise<void> {
  if (!(await store.endSessions(deps.db, { personId: live.person.person_id, sessionId }, deps.clock.now().toISOString()))) throw notFound('Session');
}

export async function endSession(deps: PeopleDeps, live: LiveSession): Promise<void> {
  await store.endSessions(deps.db, { personId: live.person.person_id, sessionId: live.session.session_id }, deps.clock.now().toISOString());
}

/** Every role whose people must sign in with a second step in this organization. */
export async function twoStepPolicy(db: Executor, organizationId: string): Promise<{ required_for: Role[] }> {
  const optional = await twoStepRolesOf(db, organizationId);
  return { required_for: ROLES.filter((role) => twoStepRequired(role, optional)) };
}

/** Owners and admins set which of developer, operator and viewer must use a second step too. */
export async function changeTwoStepPolicy(deps: PeopleDeps, organizationId: string, roles: readonly Role[]): Promise<{ required_for: Role[] }> {
  await changeTwoStepRoles(deps.db, deps.clock, organizationId, roles);
  return twoStepPolicy(deps.db, organizationId);
}
