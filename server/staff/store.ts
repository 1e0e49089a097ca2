import type { Executor, ServiceAuditRow, StaffInvitationRow, StaffRow, StaffSessionRow } from '../db/schema.ts';

/** The service's staff, their invitations and sessions, and the service audit log: this store owns those tables. */

export function findStaffByEmail(db: Executor, email: string): Promise<StaffRow | undefined> {
  return db.selectFrom('staff').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findStaff(db: Executor, staffId: string): Promise<StaffRow | undefined> {
  return db.selectFrom('staff').selectAll().where('staff_id', '=', staffId).executeTakeFirst();
}

export async function insertStaff(db: Executor, row: StaffRow): Promise<void> {
  await db.insertInto('staff').values(row).execute();
}

export async function updateStaff(db: Executor, staffId: string, changes: Partial<Omit<StaffRow, 'staff_id'>>): Promise<void> {
  await db.updateTable('staff').set(changes).where('staff_id', '=', staffId).execute();
}

/** A TOTP step is taken once: false when this step (or a later one) was already used. */
export async function takeStaffTotpStep(db: Executor, staffId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('staff')
    .set({ totp_last_step: step })
    .where('staff_id', '=', staffId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertStaffInvitation(db: Executor, row: StaffInvitationRow): Promise<void> {
  await db.updateTable('staff_invitations').set({ revoked_at: row.created_at }).where('email', '=', row.email).where('used_at', 'is', null).where('revoked_at', 'is', null).execute();
  await db.insertInto('staff_invitations').values(row).execute();
}

export function findStaffInvitation(db: Executor, tokenHash: string): Promise<StaffInvitationRow | undefined> {
  return db.selectFrom('staff_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the invitation used; false when it was used or withdrawn meanwhile (two tabs, two hosts). */
export async function useStaffInvitation(db: Executor, invitationId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('staff_invitations')
    .set({ used_at: at })
    .where('invitation_id', '=', invitationId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertStaffSession(db: Executor, row: StaffSessionRow): Promise<void> {
  await db.insertInto('staff_sessions').values(row).execute();
}

export async function findLiveStaffSession(db: Executor, tokenHash: string): Promise<{ session: StaffSessionRow; staff: StaffRow } | undefined> {
  const session = await db.selectFrom('staff_sessions').selectAll().where('token_hash', '=', tokenHash).where('ended_at', 'is', null).executeTakeFirst();
  if (!session) return undefined;
  const staff = await findStaff(db, session.staff_id);
  return staff && { session, staff };
}

export async function updateStaffSession(db: Executor, sessionId: string, changes: Partial<Omit<StaffSessionRow, 'session_id'>>): Promise<void> {
  await db.updateTable('staff_sessions').set(changes).where('session_id', '=', sessionId).execute();
}

export async function insertServiceAudit(db: Executor, row: ServiceAuditRow): Promise<void> {
  await db.insertInto('service_audit_log').values(row).execute();
}

/** Newest first. */
export function listServiceAudit(db: Executor, filter: { subjectId?: string; limit: number }): Promise<ServiceAuditRow[]> {
  let query = db.selectFrom('service_audit_log').selectAll().orderBy('at', 'desc').orderBy('entry_id', 'desc').limit(filter.limit);
  if (filter.subjectId) query = query.where('subject_id', '=', filter.subjectId);
  return query.execute();
}

/** Ends every open session of a staff member (a reset): every host refuses them at the next request. */
export async function endStaffSessions(db: Executor, staffId: string, at: string): Promise<void> {
  await db.updateTable('staff_sessions').set({ ended_at: at }).where('staff_id', '=', staffId).where('ended_at', 'is', null).execute();
}
