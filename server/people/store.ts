import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import { isPostgres, type ConsoleSessionRow, type Executor, type InvitationRow, type MembershipRow, type OrganizationRow, type PersonRow, type PersonTableRow } from '../db/schema.ts';

/**
 * The console's people, their memberships, invitations, recovery codes and sessions: this store
 * owns those tables. A person is read with one membership (organization, role and sites); a
 * person may belong to several organizations (migration 0034), each a membership of its own.
 */

const members = (db: Executor) =>
  db
    .selectFrom('people')
    .innerJoin('memberships', 'memberships.person_id', 'people.person_id')
    .selectAll('people')
    .select(['memberships.organization_id', 'memberships.role', 'memberships.site_ids']);

/** A new person and their membership. */
export async function insertPerson(db: Executor, row: PersonRow): Promise<void> {
  const { organization_id, role, site_ids, ...person } = row;
  await db.insertInto('people').values(person).execute();
  await db.insertInto('memberships').values({ organization_id, person_id: row.person_id, role, site_ids: site_ids ?? null, created_at: row.created_at, updated_at: row.updated_at }).execute();
}

/** A person by email, with their first membership (the organization they joined first). */
export async function findPersonByEmail(db: Executor, email: string): Promise<PersonRow | undefined> {
  return members(db).where('people.email', '=', email).orderBy('memberships.created_at').orderBy('memberships.organization_id').executeTakeFirst();
}

/** A person's organizations, in the order they joined them, with their role and sites in each. */
export interface Membership {
  organization_id: string;
  name: string;
  role: string;
  site_ids: string | null;
}

export async function membershipsOf(db: Executor, personId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.organization_id', 'memberships.organization_id')
    .select(['memberships.organization_id', 'organizations.name', 'memberships.role', 'memberships.site_ids'])
    .where('memberships.person_id', '=', personId)
    .orderBy('memberships.created_at')
    .orderBy('memberships.organization_id')
    .execute();
  return rows.map((row) => ({ ...row, site_ids: row.site_ids ?? null }));
}

/** Someone who has a sign-in already joins another organization: a membership of its own. */
export async function insertMembership(db: Executor, row: MembershipRow): Promise<void> {
  await db.insertInto('memberships').values(row).execute();
}

export async function findPerson(db: Executor, organizationId: string, personId: string): Promise<PersonRow | undefined> {
  return members(db).where('memberships.organization_id', '=', organizationId).where('people.person_id', '=', personId).executeTakeFirst();
}

/** Changes to who the person is; their role is `changeRole`. */
export async function updatePerson(db: Executor, personId: string, changes: Partial<Omit<PersonTableRow, 'person_id'>>): Promise<void> {
  await db.updateTable('people').set(changes).where('person_id', '=', personId).execute();
}

export async function changeRole(db: Executor, organizationId: string, personId: string, role: string, at: string, siteIds: string | null): Promise<void> {
  await db.updateTable('memberships').set({ role, site_ids: siteIds, updated_at: at }).where('organization_id', '=', organizationId).where('person_id', '=', personId).execute();
}

/** A TOTP step is taken once: false when this step (or a later one) was already used. */
export async function takeTotpStep(db: Executor, personId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('people')
    .set({ totp_last_step: step })
    .where('person_id', '=', personId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends a membership; a person left with none is deleted, with their sessions and recovery codes. */
export async function removeMember(db: Executor, organizationId: string, personId: string): Promise<void> {
  await db.deleteFrom('memberships').where('organization_id', '=', organizationId).where('person_id', '=', personId).execute();
  const elsewhere = await db.selectFrom('memberships').select('organization_id').where('person_id', '=', personId).executeTakeFirst();
  if (elsewhere) return;
  await db.deleteFrom('recovery_codes').where('person_id', '=', personId).execute();
  await db.deleteFrom('console_sessions').where('person_id', '=', personId).execute();
  await db.deleteFrom('people').where('person_id', '=', personId).execute();
}

/** Newest first. */
const PEOPLE_ORDER: ListOrder = { name: 'people', kind: 'keyset', column: 'people.created_at', id: 'people.person_id', direction: 'desc' };

export async function listPeople(db: Executor, organizationId: string, filter: { role?: string }, page: PageRequest) {
  let base = db.selectFrom('people').innerJoin('memberships', 'memberships.person_id', 'people.person_id').where('memberships.organization_id', '=', organizationId);
  if (filter.role) base = base.where('memberships.role', '=', filter.role);
  return pageAndCount(base.selectAll('people').select(['memberships.organization_id', 'memberships.role', 'memberships.site_ids']), PEOPLE_ORDER, page);
}

/**
 * Serializes changes to an organization's people (roles, removals) across hosts: on PostgreSQL a
 * row lock on the organization, held to the end of the transaction; SQLite has one writer, and a
 * transaction holds it from its first statement.
 */
export async function lockOrganizationPeople(trx: Executor, organizationId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom('organizations').select('organization_id').where('organization_id', '=', organizationId).forUpdate().execute();
}

/**
 * Serializes what changes one person's standing (a membership change, a reset, joining another
 * organization) across hosts: on PostgreSQL a row lock on the person, taken after any lock on an
 * organization; SQLite's single writer does it already.
 */
export async function lockPerson(trx: Executor, personId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom('people').select('person_id').where('person_id', '=', personId).forUpdate().execute();
}

export async function countOwners(db: Executor, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('people', 'people.person_id', 'memberships.person_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('memberships.organization_id', '=', organizationId)
    .where('memberships.role', '=', 'owner')
    .where('people.password_hash', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertInvitation(db: Executor, row: InvitationRow): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

export async function findInvitationByToken(db: Executor, hash: string): Promise<(InvitationRow & { organization_name: string }) | undefined> {
  return db
    .selectFrom('invitations')
    .innerJoin('organizations', 'organizations.organization_id', 'invitations.organization_id')
    .selectAll('invitations')
    .select('organizations.name as organization_name')
    .where('token_hash', '=', hash)
    .executeTakeFirst();
}

/** Marks an invitation used, once: false when another request used it first. */
export async function useInvitation(db: Executor, invitationId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ used_at: at })
    .where('invitation_id', '=', invitationId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Newest first; the cursor seeks the (tenant, created_at) index. */
const INVITATIONS_ORDER: ListOrder = { name: 'invitations', kind: 'keyset', column: 'invitations.created_at', id: 'invitations.invitation_id', direction: 'desc' };

/** Pending invitations of an organization (not used, not revoked, not expired at `now`). */
export async function listPendingInvitations(
  db: Executor,
  organizationId: string,
  now: string,
  page: PageRequest,
) {
  const base = db
    .selectFrom('invitations')
    .innerJoin('organizations', 'organizations.organization_id', 'invitations.organization_id')
    .where('invitations.organization_id', '=', organizationId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  return pageAndCount(base.selectAll('invitations').select('organizations.name as organization_name'), INVITATIONS_ORDER, page);
}

export async function revokeInvitation(db: Executor, organizationId: string, invitationId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('invitation_id', '=', invitationId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Open links (not used, withdrawn or expired at `now`) made by a person, for them, or to their email, in any organization. */
export async function openLinksOf(db: Executor, person: { personId: string; email: string }, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where((eb) => eb.or([eb('person_id', '=', person.personId), eb('invited_by', '=', person.personId), eb('email', '=', person.email)]))
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** Earlier unused links for the same person or email stop working when a new one is made. */
export async function revokeOpenInvitationsFor(db: Executor, organizationId: string, email: string, at: string): Promise<void> {
  await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function replaceRecoveryCodes(db: Executor, personId: string, hashes: string[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('person_id', '=', personId).execute();
  if (hashes.length) await db.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ person_id: personId, code_hash, used_at: null }))).execute();
}

/** Uses a recovery code once: false when unknown or used. */
export async function useRecoveryCode(db: Executor, personId: string, hash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('person_id', '=', personId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertSession(db: Executor, row: ConsoleSessionRow): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

export interface SessionWithPerson {
  session: ConsoleSessionRow;
  /** The person as a member of the request's organization. */
  person: PersonRow;
  organization: OrganizationRow;
  /** Every organization the person belongs to (the console's switcher). */
  memberships: Membership[];
}

/**
 * A session by its token's hash, with its person in the request's organization (`organizationId`,
 * the console's `Tsaro-Organization`; else the one they joined first), read on every request: a
 * person removed or a session ended on any host is refused on the next request everywhere.
 * `not a member`: the session is live, but the person is not a member of that organization.
 */
export async function findLiveSession(db: Executor, hash: string, organizationId?: string): Promise<SessionWithPerson | 'not a member' | undefined> {
  const session = await db.selectFrom('console_sessions').selectAll().where('token_hash', '=', hash).where('ended_at', 'is', null).executeTakeFirst();
  if (!session) return undefined;
  const memberships = await membershipsOf(db, session.person_id);
  if (!memberships.length) return undefined;
  const chosen = organizationId === undefined ? memberships[0]! : memberships.find((membership) => membership.organization_id === organizationId);
  if (!chosen) return 'not a member';
  const person = await members(db).where('people.person_id', '=', session.person_id).where('memberships.organization_id', '=', chosen.organization_id).executeTakeFirst();
  if (!person) return undefined;
  const organization = await db.selectFrom('organizations').selectAll().where('organization_id', '=', chosen.organization_id).executeTakeFirstOrThrow();
  return { session, person, organization, memberships };
}

export async function updateSession(db: Executor, sessionId: string, changes: Partial<ConsoleSessionRow>): Promise<void> {
  await db.updateTable('console_sessions').set(changes).where('session_id', '=', sessionId).execute();
}

export async function endSessions(db: Executor, filter: { personId: string; sessionId?: string; exceptSessionId?: string }, at: string): Promise<number> {
  let query = db.updateTable('console_sessions').set({ ended_at: at }).where('person_id', '=', filter.personId).where('ended_at', 'is', null);
  if (filter.sessionId) query = query.where('session_id', '=', filter.sessionId);
  if (filter.exceptSessionId) query = query.where('session_id', '<>', filter.exceptSessionId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function listLiveSessions(
  db: Executor,
  personId: string,
  since: { idleAfter: string; now: string },
  page: PageRequest,
) {
  const base = db
    .selectFrom('console_sessions')
    .where('person_id', '=', personId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', since.now)
    .where('last_active_at', '>', since.idleAfter);
  return pageAndCount(base.selectAll(), SESSIONS_ORDER, page);
}

/** A person's sessions, last used first. */
const SESSIONS_ORDER: ListOrder = { name: 'sessions', kind: 'keyset', column: 'last_active_at', id: 'session_id', direction: 'desc' };
