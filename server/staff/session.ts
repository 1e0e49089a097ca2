import type { Request, RequestHandler } from 'express';
import type { StaffRole } from '../../shared/schemas/staff.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { GuardOptions } from '../http/define-route.ts';
import { csrfTokenOf, tokenHash } from '../people/credentials.ts';
import { assertConsoleWrite, cookieToken, idleMs, type SessionSettings } from '../people/session.ts';
import { rowToStaff, staffActorOf, type LiveStaffSession, type StaffActor } from './service.ts';
import { findLiveStaffSession, updateStaffSession } from './store.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The staff session of a `staff` route. */
      staffSession?: LiveStaffSession;
    }
  }
}

const TOUCH_EVERY_MS = 60_000;

export interface StaffSessionDeps {
  db: Db;
  clock: Clock;
  settings: SessionSettings;
}

/**
 * The request's staff session: the console's cookie (one cookie per browser, whichever realm
 * signed it in), looked up among staff sessions only, so a partner's session is never a staff
 * one nor the reverse. Idle and absolute limits as a partner's; read from the database on every
 * request, so an ended session is refused at once on every host.
 */
export async function readStaffSession(req: Request, deps: StaffSessionDeps): Promise<LiveStaffSession | undefined> {
  const token = cookieToken(req);
  if (!token) return undefined;
  const found = await findLiveStaffSession(deps.db, tokenHash(token));
  if (!found) return undefined;
  const nowMs = deps.clock.now().getTime();
  if (Date.parse(found.session.expires_at) <= nowMs || Date.parse(found.session.last_active_at) + idleMs(deps.settings) <= nowMs) {
    await updateStaffSession(deps.db, found.session.session_id, { ended_at: new Date(nowMs).toISOString() });
    return undefined;
  }
  if (nowMs - Date.parse(found.session.last_active_at) >= TOUCH_EVERY_MS) {
    found.session.last_active_at = new Date(nowMs).toISOString();
    await updateStaffSession(deps.db, found.session.session_id, { last_active_at: found.session.last_active_at });
  }
  return { ...found, token };
}

/**
 * Whether the staff session behind `token` still stands (not ended, expired or idle past its
 * limit), without counting as activity: an open live stream asks this, and never keeps an
 * unattended console signed in.
 */
export async function staffSessionStands(deps: StaffSessionDeps, token: string, sessionId: string): Promise<boolean> {
  const found = await findLiveStaffSession(deps.db, tokenHash(token));
  if (!found || found.session.session_id !== sessionId) return false;
  const nowMs = deps.clock.now().getTime();
  return Date.parse(found.session.expires_at) > nowMs && Date.parse(found.session.last_active_at) + idleMs(deps.settings) > nowMs;
}

/** A session at any stage with the write rules (Origin, CSRF): the sign-in steps work on it. */
export async function pendingStaffSession(req: Request, deps: StaffSessionDeps): Promise<LiveStaffSession> {
  const live = await readStaffSession(req, deps);
  if (!live) throw new ApiError(401, 'Your staff session has ended: sign in again');
  assertConsoleWrite(req, live.token, deps.settings);
  return live;
}

export type StaffStage = 'totp' | 'enrol_totp' | 'active';

/** Signed in only after the second step, whatever the row says: a staff session never skips it. */
export const stageOf = (live: LiveStaffSession): StaffStage => (live.session.second_step_at ? 'active' : live.staff.totp_enabled === 1 ? 'totp' : 'enrol_totp');

export function staffSessionView(live: LiveStaffSession, settings: SessionSettings) {
  return {
    stage: stageOf(live),
    staff: rowToStaff(live.staff),
    csrf_token: csrfTokenOf(live.token),
    expires_at: live.session.expires_at,
    idle_expires_at: new Date(Math.min(Date.parse(live.session.last_active_at) + idleMs(settings), Date.parse(live.session.expires_at))).toISOString(),
  };
}

/**
 * A `staff` route's access: a staff session past its second step (401 otherwise, saying which
 * step is due), the console's write rules, and the route's staff roles (403).
 */
export function staffAccess(deps: StaffSessionDeps) {
  return (options: GuardOptions | undefined): RequestHandler =>
    async (req, _res, next) => {
      const live = await readStaffSession(req, deps);
      if (!live) throw new ApiError(401, 'Staff only: sign in to the operations console (POST /v1/staff/sign-in)');
      const stage = stageOf(live);
      if (stage !== 'active') {
        throw new ApiError(401, stage === 'totp' ? 'Finish signing in: enter a code from your authenticator (POST /v1/staff/sign-in/totp)' : 'Finish signing in: set up an authenticator (POST /v1/staff/totp/enrolment)');
      }
      assertConsoleWrite(req, live.token, deps.settings);
      const role = live.staff.role as StaffRole;
      if (options?.staffRoles && !options.staffRoles.includes(role)) throw new ApiError(403, `Your staff role (${role}) may not do this`);
      req.staffSession = live;
      next();
    };
}

export function staffOf(req: Request): StaffActor {
  if (!req.staffSession) throw new Error('route is not behind staffAccess()');
  return staffActorOf(req.staffSession.staff);
}
