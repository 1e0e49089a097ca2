import { parseSiteIds } from '../db/tenant.ts';
import type { Request, Response } from 'express';
import { twoStepRequired, type ConsoleSession, type Person, type Role } from '../../shared/schemas/console.ts';
import type { Clock } from '../clock.ts';
import type { ConsoleSessionRow, Db, OrganizationRow, PersonRow } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { twoStepRolesIn } from '../organizations/organization.ts';
import { csrfTokenOf, tokenHash } from './credentials.ts';
import { findLiveSession, updateSession, type SessionWithPerson } from './store.ts';
import { DAY_MS } from '../../shared/time.ts';

export const SESSION_COOKIE = 'tsaro_console';
/** The console's choice of organization for a person in several; absent, the one they joined first. */
export const ORGANIZATION_HEADER = 'tsaro-organization';
/** A session ends 7 days after sign-in, however active (CONTRACT.md). */
export const SESSION_MAX_MS = 7 * DAY_MS;
/** last_active_at is written at most this often per session: a write per request would make every read a write. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionSettings {
  /** CONSOLE_IDLE_TIMEOUT_MIN. */
  idleTimeoutMin: number;
  /** PUBLIC_URL: its origin is the console's; `Secure` on the cookie when it is https. */
  publicUrl: string;
}

export type SessionStage = ConsoleSession['stage'];

export interface LiveSession extends SessionWithPerson {
  token: string;
  /** The session's stage in the request's organization (`stageIn`): what the person may do here. */
  stage: SessionStage;
}

/**
 * A session's stage in one organization (issue #46). The second step belongs to the session: it
 * passed one (`second_step_at`) or never did. A session that never did is signed in only where
 * the person's role may skip it (owner and admin never may; other roles by that organization's
 * policy); elsewhere a code is due, or, without an authenticator, enrolling one. What the
 * password step left due (`totp`, `enrol_totp`) is due in every organization.
 */
export function stageIn(session: Pick<ConsoleSessionRow, 'stage' | 'second_step_at'>, person: Pick<PersonRow, 'role' | 'totp_enabled'>, organization: Pick<OrganizationRow, 'two_step_roles'>): SessionStage {
  if (session.second_step_at) return 'active';
  if (session.stage === 'totp') return 'totp';
  if (session.stage === 'active' && !twoStepRequired(person.role as Role, twoStepRolesIn(organization))) return 'active';
  return person.totp_enabled === 1 ? 'totp' : 'enrol_totp';
}

/** Why a session may not act in the request's organization yet: the step its stage names, and, where it is this organization's own, whose rule it is. */
function stepDue(live: LiveSession): string {
  const step = live.stage === 'totp' ? 'enter a code from your authenticator app (POST /console/sign-in/totp)' : 'set up an authenticator app (POST /console/totp/enrolment)';
  if (live.session.stage !== 'active') return `Finish signing in: ${step}`;
  return `${live.organization.name} asks for the second step of its ${live.person.role}s, and this session has not passed it: ${step}`;
}

export function cookieToken(req: Request): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const token = value.join('=');
      return /^[\w-]{43}$/.test(token) ? token : undefined;
    }
  }
  return undefined;
}

export const hasSessionCookie = (req: Request): boolean => cookieToken(req) !== undefined;

export function setSessionCookie(res: Response, token: string, settings: SessionSettings): void {
  const secure = settings.publicUrl.startsWith('https:') ? '; Secure' : '';
  res.append('Set-Cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MAX_MS / 1000}${secure}`);
}

export function clearSessionCookie(res: Response, settings: SessionSettings): void {
  const secure = settings.publicUrl.startsWith('https:') ? '; Secure' : '';
  res.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);
}

export const idleMs = (settings: SessionSettings) => settings.idleTimeoutMin * 60_000;

/**
 * The request's console session, read from the database on every request so an ended session
 * or a removed person is refused at once on every host; undefined when there is none, or it
 * has run out (absolute or idle), in which case it is ended. `activity: false` checks without
 * counting as the person's activity (an open event stream's heartbeat must not keep a session
 * left unattended from its idle timeout).
 */
export async function readSession(req: Request, deps: { db: Db; clock: Clock; settings: SessionSettings }, activity = true): Promise<LiveSession | undefined> {
  const token = cookieToken(req);
  if (!token) return undefined;
  // The organization the console works in (several per person, issue #34), as Tsaro-Environment picks the environment.
  const organizationId = req.get(ORGANIZATION_HEADER) || undefined;
  const found = await findLiveSession(deps.db, tokenHash(token), organizationId);
  if (found === 'not a member') throw new ApiError(404, `Organization not found: you are not a member of ${organizationId}`);
  if (!found) return undefined;
  const now = deps.clock.now();
  const nowMs = now.getTime();
  if (Date.parse(found.session.expires_at) <= nowMs || Date.parse(found.session.last_active_at) + idleMs(deps.settings) <= nowMs) {
    await updateSession(deps.db, found.session.session_id, { ended_at: now.toISOString() });
    return undefined;
  }
  if (activity && nowMs - Date.parse(found.session.last_active_at) >= TOUCH_EVERY_MS) {
    found.session.last_active_at = now.toISOString();
    await updateSession(deps.db, found.session.session_id, { last_active_at: found.session.last_active_at });
  }
  return { ...found, token, stage: stageIn(found.session, found.person, found.organization) };
}

/**
 * A state-changing request authenticated by the cookie must come from the console's own origin
 * (Origin, or Sec-Fetch-Site where a browser sends no Origin) and carry the session's CSRF token.
 * A bearer key never needs either: a browser does not send it on its own.
 */
export function assertConsoleWrite(req: Request, token: string, settings: SessionSettings): void {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
  const origin = req.get('origin');
  const sameOrigin = origin !== undefined ? isConsoleOrigin(req, origin, settings) : req.get('sec-fetch-site') === 'same-origin';
  if (!sameOrigin) throw new ApiError(403, 'A console request that changes something must come from the console itself (Origin)');
  if (req.get('x-csrf-token') !== csrfTokenOf(token)) throw new ApiError(403, 'Missing or wrong X-CSRF-Token: reload the console');
}

/** The console's own origin: PUBLIC_URL's, or the one the request was addressed to. */
export function isConsoleOrigin(req: Request, origin: string, settings: SessionSettings): boolean {
  return origin === new URL(settings.publicUrl).origin || origin === `${req.protocol}://${req.get('host') ?? ''}`;
}

/**
 * A session signed in for the request's organization (the second step passed where its role there
 * asks for it) with the write rules, or a 401: what every person's request needs. A 401 for a
 * step due says which; `GET /console/session` with the same organization answers its stage.
 */
export async function signedInSession(req: Request, deps: { db: Db; clock: Clock; settings: SessionSettings }, activity = true): Promise<LiveSession> {
  const live = await readSession(req, deps, activity);
  if (!live) throw new ApiError(401, 'Your console session has ended: sign in again');
  if (live.stage !== 'active') throw new ApiError(401, stepDue(live));
  assertConsoleWrite(req, live.token, deps.settings);
  return live;
}

export function rowToPerson(row: PersonRow): Person {
  return {
    person_id: row.person_id,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    site_ids: parseSiteIds(row.site_ids),
    totp_enabled: row.totp_enabled === 1,
    created_at: row.created_at,
    last_active_at: row.last_active_at,
  };
}

export function sessionView(live: LiveSession, settings: SessionSettings): ConsoleSession {
  const { session, person, organization, memberships } = live;
  return {
    stage: live.stage,
    person: rowToPerson(person),
    organizations: memberships.map((membership) => ({
      organization_id: membership.organization_id,
      name: membership.name,
      role: membership.role as Role,
      site_ids: parseSiteIds(membership.site_ids),
    })),
    organization: {
      organization_id: organization.organization_id,
      name: organization.name,
      plan: organization.plan,
      subscription_status: organization.subscription_status,
    },
    csrf_token: csrfTokenOf(live.token),
    expires_at: session.expires_at,
    idle_expires_at: new Date(Math.min(Date.parse(session.last_active_at) + idleMs(settings), Date.parse(session.expires_at))).toISOString(),
  };
}
