import type { z } from 'zod';
import type { CurrentVisitor as CurrentVisitorSchema } from '../../../shared/schemas/access.ts';
import type { Visit } from '../../../shared/kiosk/calls.ts';
import type { KioskDb } from '../database.ts';
import { deleteSetting } from '../settings-store.ts';

export type CurrentVisitor = z.infer<typeof CurrentVisitorSchema>;

export interface VisitRow {
  visit_id: string;
  log_id: string | null;
  method: 'code' | 'walk_in';
  code_id: string | null;
  visitor_name: string | null;
  visitor_phone: string | null;
  host_user_id: string | null;
  entry_point: string | null;
  checked_in_at: string;
  checked_out_at: string | null;
  state: 'inside' | 'out' | 'turned_away';
  origin: 'kiosk' | 'server';
}

export function insertVisit(db: KioskDb, visit: VisitRow): void {
  db.prepare(`
    INSERT INTO visits (visit_id, log_id, method, code_id, visitor_name, visitor_phone, host_user_id, entry_point, checked_in_at, checked_out_at, state, origin)
    VALUES (@visit_id, @log_id, @method, @code_id, @visitor_name, @visitor_phone, @host_user_id, @entry_point, @checked_in_at, @checked_out_at, @state, @origin)`).run(visit);
}

export function visitById(db: KioskDb, visitId: string): VisitRow | undefined {
  return db.prepare('SELECT * FROM visits WHERE visit_id = ?').get(visitId) as VisitRow | undefined;
}

export function visitByLogId(db: KioskDb, logId: string): VisitRow | undefined {
  return db.prepare('SELECT * FROM visits WHERE log_id = ?').get(logId) as VisitRow | undefined;
}

export function setVisitLogId(db: KioskDb, visitId: string, logId: string): void {
  db.prepare('UPDATE visits SET log_id = ? WHERE visit_id = ?').run(logId, visitId);
}

export function markVisitOut(db: KioskDb, visitId: string, at: string): void {
  db.prepare(`UPDATE visits SET state = 'out', checked_out_at = ? WHERE visit_id = ?`).run(at, visitId);
}

export function markVisitTurnedAway(db: KioskDb, visitId: string): void {
  db.prepare(`UPDATE visits SET state = 'turned_away' WHERE visit_id = ?`).run(visitId);
}

/** A visit the server admitted that this gate turned away: recorded (or marked) turned away, with the server's log id. */
export function recordTurnedAwayVisit(db: KioskDb, visit: VisitRow): void {
  db.prepare(`
    INSERT INTO visits (visit_id, log_id, method, code_id, visitor_name, visitor_phone, host_user_id, entry_point, checked_in_at, state, origin)
    VALUES (@visit_id, @log_id, @method, @code_id, @visitor_name, @visitor_phone, @host_user_id, @entry_point, @checked_in_at, 'turned_away', @origin)
    ON CONFLICT (visit_id) DO UPDATE SET log_id = excluded.log_id, state = 'turned_away'`).run(visit);
  markVisitTurnedAway(db, visit.visit_id);
}

export function serverVisitorByLogId(db: KioskDb, logId: string): CurrentVisitor | undefined {
  return db.prepare('SELECT * FROM server_visitors WHERE log_id = ?').get(logId) as CurrentVisitor | undefined;
}

/**
 * The organization's current-visitor list, replaced whole. A visit checked in here, acknowledged
 * before the list was asked for and missing from it, left through another gate (or by the
 * auto-checkout policy): it is no longer inside.
 */
export function replaceServerVisitors(db: KioskDb, visitors: CurrentVisitor[], asOf: string, requestedAt: string): void {
  const insert = db.prepare(`
    INSERT INTO server_visitors (log_id, code_id, visitor_name, visitor_phone, entry_point, host_user_id, checked_in_at)
    VALUES (@log_id, @code_id, @visitor_name, @visitor_phone, @entry_point, @host_user_id, @checked_in_at)`);
  db.transaction(() => {
    db.prepare('DELETE FROM server_visitors').run();
    for (const visitor of visitors) {
      insert.run({
        log_id: visitor.log_id,
        code_id: visitor.code_id,
        visitor_name: visitor.visitor_name,
        visitor_phone: visitor.visitor_phone,
        entry_point: visitor.entry_point,
        host_user_id: visitor.host_user_id,
        checked_in_at: visitor.checked_in_at,
      });
    }
    db.prepare(`
      UPDATE visits SET state = 'out', checked_out_at = COALESCE(checked_out_at, @asOf)
      WHERE state = 'inside' AND log_id IS NOT NULL
        AND log_id NOT IN (SELECT log_id FROM server_visitors)
        AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.visit_id = visits.visit_id AND (o.state = 'pending' OR o.settled_at >= @requestedAt))`).run({
      asOf,
      requestedAt,
    });
    db.prepare(`INSERT INTO settings (key, value) VALUES ('visitors_as_of', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(asOf);
  })();
}

/** Another server's visitors are not ours. */
export function forgetServerVisitors(db: KioskDb): void {
  db.prepare('DELETE FROM server_visitors').run();
  deleteSetting(db, 'visitors_as_of');
}

function matches(search: string | undefined, ...fields: Array<string | null>): boolean {
  if (!search) return true;
  const needle = search.toLowerCase();
  return fields.some((field) => field?.toLowerCase().includes(needle));
}

/**
 * Who is inside, as this kiosk best knows: the organization's list as last fetched, minus the
 * visits checked out here since, plus the visits checked in here that the list does not show yet.
 * Longest on premises first, as the server orders it.
 */
export function visitorsOnPremises(db: KioskDb, search: string | undefined): Visit[] {
  const pendingVisits = new Set(
    (db.prepare(`SELECT DISTINCT visit_id FROM outbox WHERE state = 'pending' AND visit_id IS NOT NULL`).all() as Array<{ visit_id: string }>).map(
      (row) => row.visit_id,
    ),
  );
  // Inside, or in the organization's list (to hide those checked out here since it was fetched).
  const local = db
    .prepare(`SELECT * FROM visits WHERE state = 'inside' UNION SELECT v.* FROM visits v JOIN server_visitors s ON s.log_id = v.log_id`)
    .all() as VisitRow[];
  const byLogId = new Map(local.filter((visit) => visit.log_id).map((visit) => [visit.log_id!, visit]));
  const result: Visit[] = [];
  for (const visitor of db.prepare('SELECT * FROM server_visitors').all() as CurrentVisitor[]) {
    const mine = byLogId.get(visitor.log_id);
    if (mine && mine.state !== 'inside') continue;
    if (!matches(search, visitor.visitor_name, visitor.visitor_phone, visitor.host_user_id)) continue;
    result.push(
      mine
        ? toVisit(mine, pendingVisits.has(mine.visit_id))
        : {
            visitId: visitor.log_id,
            logId: visitor.log_id,
            method: visitor.code_id ? 'code' : 'walk_in',
            visitorName: visitor.visitor_name,
            visitorPhone: visitor.visitor_phone,
            hostUserId: visitor.host_user_id,
            entryPoint: visitor.entry_point,
            checkedInAt: visitor.checked_in_at,
            pendingSync: false,
          },
    );
    if (mine) byLogId.delete(visitor.log_id);
  }
  const listed = new Set(result.map((visit) => visit.visitId));
  for (const visit of local) {
    if (visit.state !== 'inside' || listed.has(visit.visit_id)) continue;
    // Checked in here and not (yet) in the list: it waits to sync, or was acknowledged after the list was fetched.
    if (!matches(search, visit.visitor_name, visit.visitor_phone, visit.host_user_id)) continue;
    result.push(toVisit(visit, pendingVisits.has(visit.visit_id)));
  }
  return result.sort((a, b) => a.checkedInAt.localeCompare(b.checkedInAt));
}

export function toVisit(row: VisitRow, pendingSync: boolean): Visit {
  return {
    visitId: row.visit_id,
    logId: row.log_id,
    method: row.method,
    visitorName: row.visitor_name,
    visitorPhone: row.visitor_phone,
    hostUserId: row.host_user_id,
    entryPoint: row.entry_point,
    checkedInAt: row.checked_in_at,
    pendingSync,
  };
}

/** Retention: visits that ended before the cut-off and have nothing left to send; answers how many. */
export function pruneEndedVisits(db: KioskDb, before: string): number {
  return db
    .prepare(`
      DELETE FROM visits WHERE state <> 'inside' AND COALESCE(checked_out_at, checked_in_at) < ?
        AND visit_id NOT IN (SELECT visit_id FROM outbox WHERE state = 'pending' AND visit_id IS NOT NULL)`)
    .run(before).changes;
}

/** The holder of a code inside, as this kiosk knows: since when and through which gate. */
export interface InsideAlready {
  since: string;
  entryPoint: string | null;
  visitorName: string | null;
}

/**
 * The earliest open visit of a code this kiosk knows of: one checked in here and not out, or one
 * in the server's list of who is inside (as last fetched) that was not checked out here since.
 */
export function openVisitOfCode(db: KioskDb, codeId: string): InsideAlready | undefined {
  const row = db
    .prepare(`
      SELECT checked_in_at AS since, entry_point, visitor_name FROM visits WHERE state = 'inside' AND code_id = @codeId
      UNION ALL
      SELECT s.checked_in_at, s.entry_point, s.visitor_name FROM server_visitors s
        WHERE s.code_id = @codeId AND NOT EXISTS (SELECT 1 FROM visits v WHERE v.log_id = s.log_id AND v.state <> 'inside')
      ORDER BY 1 LIMIT 1`)
    .get({ codeId }) as { since: string; entry_point: string | null; visitor_name: string | null } | undefined;
  return row ? { since: row.since, entryPoint: row.entry_point, visitorName: row.visitor_name } : undefined;
}
