import type { Executor, ResponderRow } from '../db/schema.ts';

/** The responders table: the only SQL of the responders feature. */

export async function insertResponder(db: Executor, row: ResponderRow): Promise<void> {
  await db.insertInto('responders').values(row).execute();
}

export function findResponderById(db: Executor, responderId: string): Promise<ResponderRow | undefined> {
  return db.selectFrom('responders').selectAll().where('responder_id', '=', responderId).executeTakeFirst();
}

export function findResponderByTokenHash(db: Executor, tokenHash: string): Promise<ResponderRow | undefined> {
  return db.selectFrom('responders').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function listResponderRows(db: Executor, environment?: string): Promise<ResponderRow[]> {
  let query = db.selectFrom('responders').selectAll().orderBy('created_at').orderBy('responder_id');
  if (environment) query = query.where('environment', '=', environment);
  return query.execute();
}

export async function markResponderDeactivated(db: Executor, responderId: string, at: string): Promise<void> {
  // Deactivating is retiring (CONTRACT.md): the standing says so too.
  await db.updateTable('responders').set({ status: 'deactivated', available: 0, standing: 'retired', standing_by: 'operator', standing_at: at, updated_at: at }).where('responder_id', '=', responderId).execute();
}

export async function recordAvailability(
  db: Executor,
  responderId: string,
  report: { available: boolean; latitude: number; longitude: number },
  at: string,
): Promise<void> {
  // Out of service (server/duty/), the heartbeat does not make them available; going on or off duty starts `duty_since`.
  const wanted = report.available ? 1 : 0;
  await db
    .updateTable('responders')
    .set((eb) => {
      const effective = eb.case().when('out_of_service_reason', 'is', null).then(wanted).else(0).end();
      return {
        available: effective,
        duty_since: eb.case().when('available', '=', effective).then(eb.ref('duty_since')).else(at).end(),
        latitude: report.latitude,
        longitude: report.longitude,
        location_at: at,
        updated_at: at,
      };
    })
    .where('responder_id', '=', responderId)
    .execute();
}

export async function updateResponderRow(db: Executor, responderId: string, changes: Partial<Omit<ResponderRow, 'responder_id'>>): Promise<void> {
  await db.updateTable('responders').set(changes).where('responder_id', '=', responderId).execute();
}

export function listRosterRows(db: Executor, filter: { standing?: string; environment?: string }): Promise<ResponderRow[]> {
  let query = db.selectFrom('responders').selectAll().orderBy('created_at').orderBy('responder_id');
  if (filter.environment) query = query.where('environment', '=', filter.environment);
  if (filter.standing) query = query.where('standing', '=', filter.standing);
  return query.execute();
}

/** Verified responders whose licence expired before `date` (YYYY-MM-DD). */
export function verifiedWithLicenceBefore(db: Executor, date: string): Promise<ResponderRow[]> {
  return db.selectFrom('responders').selectAll().where('standing', '=', 'verified').where('licence_expires', '<', date).execute();
}

/** Changes a verified responder's standing; false when it is no longer verified (another host got there first). */
export async function suspendIfVerified(db: Executor, responderId: string, changes: Partial<Omit<ResponderRow, 'responder_id'>>): Promise<boolean> {
  const result = await db.updateTable('responders').set(changes).where('responder_id', '=', responderId).where('standing', '=', 'verified').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether each of these responders is still active, and with which token (the offer bell's check). */
export function signInsOf(db: Executor, responderIds: readonly string[]): Promise<Array<Pick<ResponderRow, 'responder_id' | 'status' | 'token_hash'>>> {
  if (!responderIds.length) return Promise.resolve([]);
  return db.selectFrom('responders').select(['responder_id', 'status', 'token_hash']).where('responder_id', 'in', responderIds).execute();
}
