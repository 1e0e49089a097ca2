import type { Request, Response } from 'express';
import { z } from 'zod';
import { Empty } from '../../shared/schemas/common.ts';
import { TotpEnrolment } from '../../shared/schemas/console.ts';
import { ServiceAuditEntry, ServiceAuditQuery, StaffCodeRequest, StaffInvitation, StaffJoinRequest, StaffSessionEnvelope, StaffSignInRequest } from '../../shared/schemas/staff.ts';
import { routeFor } from '../http/define-route.ts';
import { ApiError } from '../http/errors.ts';
import { errors, ok } from '../http/responses.ts';
import { isConsoleOrigin, setSessionCookie, clearSessionCookie, type SessionSettings } from '../people/session.ts';
import { takeGuess } from '../rate-limit/guesses.ts';
import type { RouteDeps } from '../route-deps.ts';
import * as staff from './service.ts';
import { pendingStaffSession, readStaffSession, staffSessionView } from './session.ts';

const route = routeFor<RouteDeps>();
const tags = ['Staff'];
const TokenParams = z.object({ token: z.string().regex(/^[\w-]{43}$/, 'not an invitation token') });

const settingsOf = (deps: RouteDeps): SessionSettings => ({ idleTimeoutMin: deps.config.CONSOLE_IDLE_TIMEOUT_MIN, publicUrl: deps.config.PUBLIC_URL });
const staffDeps = (deps: RouteDeps): staff.StaffDeps => ({ db: deps.db, clock: deps.clock, secretBox: deps.secretBox, publicUrl: deps.config.PUBLIC_URL });
const sessionDeps = (deps: RouteDeps) => ({ db: deps.db, clock: deps.clock, settings: settingsOf(deps) });
const metaOf = (req: Request): staff.SessionMeta => ({ ip: req.ip, userAgent: req.get('user-agent') });

/** Wrong passwords and codes per account and per address in 15 minutes, across hosts (the rate-limit store). */
const WINDOW_MS = 15 * 60_000;
const PER_ACCOUNT = 10;
const PER_ADDRESS = 100;

async function guessLimited<T>(deps: RouteDeps, req: Request, email: string, attempt: () => Promise<T>): Promise<T> {
  const ticket = await takeGuess(
    deps.rateLimitStore,
    [
      { bucket: `staff-signin:email:${email.toLowerCase()}`, limit: PER_ACCOUNT },
      { bucket: `staff-signin:ip:${req.ip ?? 'unknown'}`, limit: PER_ADDRESS },
    ],
    deps.clock.now().getTime(),
    WINDOW_MS,
    (retryAfter) => new ApiError(429, `Too many failed sign-ins: try again in ${Math.ceil(retryAfter / 60)} min`, { 'Retry-After': String(retryAfter) }),
  );
  return ticket.settle(attempt, (outcome) => 'error' in outcome && outcome.error instanceof ApiError && outcome.error.status === 401);
}

function assertOwnOrigin(req: Request, settings: SessionSettings): void {
  const origin = req.get('origin');
  if (origin !== undefined && !isConsoleOrigin(req, origin, settings)) throw new ApiError(403, 'Sign-in must come from the console itself (Origin)');
}

async function answerSession(deps: RouteDeps, req: Request, res: Response, token: string, status = 200) {
  const settings = settingsOf(deps);
  setSessionCookie(res, token, settings);
  req.headers.cookie = `tsaro_console=${token}`;
  const live = (await readStaffSession(req, sessionDeps(deps)))!;
  res.status(status).json({ session: staffSessionView(live, settings) });
}

/** Joining and signing in: a password, then always the second step. */
export const staffAuthRouteList = [
  route({
    method: 'get',
    path: '/invitations/:token',
    access: 'public',
    params: TokenParams,
    operationId: 'getStaffInvitation',
    tags,
    summary: 'What a staff invitation link is for',
    description: 'The link `tsaro staff invite` printed. 404 once used, withdrawn, or 7 days old.',
    responses: { ...ok(200, 'The invitation', z.object({ invitation: StaffInvitation })), ...errors(404) },
    async handler({ params }, _req, res, deps) {
      res.json({ invitation: await staff.staffInvitationByToken(deps, params.token) });
    },
  }),
  route({
    method: 'post',
    path: '/invitations/:token/accept',
    access: 'public',
    params: TokenParams,
    body: StaffJoinRequest,
    operationId: 'acceptStaffInvitation',
    tags,
    summary: 'Join the staff with a password',
    description: 'At least 12 characters and not a common password. Starts a session at `stage: enrol_totp`: nothing is reachable until an authenticator is enrolled. An email that is a partner\'s member is refused (409).',
    responses: { ...ok(201, 'Joined; the second step is next', StaffSessionEnvelope), ...errors(404, 409) },
    async handler({ params, body }, req, res, deps) {
      assertOwnOrigin(req, settingsOf(deps));
      const token = await staff.acceptStaffInvitation(staffDeps(deps), params.token, body, metaOf(req));
      await answerSession(deps, req, res, token, 201);
    },
  }),
  route({
    method: 'post',
    path: '/sign-in',
    access: 'public',
    body: StaffSignInRequest,
    operationId: 'staffSignIn',
    tags,
    summary: 'Sign in with email and password',
    description: `Always followed by the second step (\`stage: totp\`, or \`enrol_totp\` for someone who never enrolled): a staff session is never signed in by a password alone. ${PER_ACCOUNT} wrong per account and ${PER_ADDRESS} per address in 15 minutes, then 429.`,
    responses: { ...ok(200, 'The password was right; the second step is next', StaffSessionEnvelope), ...errors(401, 429) },
    async handler({ body }, req, res, deps) {
      assertOwnOrigin(req, settingsOf(deps));
      const token = await guessLimited(deps, req, body.email, () => staff.staffSignIn(staffDeps(deps), body.email, body.password, metaOf(req)));
      await answerSession(deps, req, res, token);
    },
  }),
  route({
    method: 'post',
    path: '/sign-in/totp',
    access: 'public',
    body: StaffCodeRequest,
    operationId: 'staffSignInSecondStep',
    tags,
    summary: 'The second step: a code from the authenticator',
    description: 'A code is accepted once. A lost phone: the operator invites the person again from the host.',
    responses: { ...ok(200, 'Signed in', StaffSessionEnvelope), ...errors(401, 409, 429) },
    async handler({ body }, req, res, deps) {
      const live = await pendingStaffSession(req, sessionDeps(deps));
      const token = await guessLimited(deps, req, live.staff.email, () => staff.staffSecondStep(staffDeps(deps), live, body.code));
      await answerSession(deps, req, res, token);
    },
  }),
  route({
    method: 'post',
    path: '/totp/enrolment',
    access: 'public',
    body: Empty,
    operationId: 'startStaffTotpEnrolment',
    tags,
    summary: 'The authenticator secret to enrol',
    description: 'Show `otpauth_uri` as a QR code. Asked again before it is confirmed, it gives the same secret.',
    responses: { ...ok(200, 'The secret', TotpEnrolment), ...errors(401, 409) },
    async handler(_input, req, res, deps) {
      res.json(await staff.startStaffTotpEnrolment(staffDeps(deps), await pendingStaffSession(req, sessionDeps(deps))));
    },
  }),
  route({
    method: 'post',
    path: '/totp/enrolment/confirm',
    access: 'public',
    body: StaffCodeRequest,
    operationId: 'confirmStaffTotpEnrolment',
    tags,
    summary: 'Confirm the authenticator with a code: the session is signed in',
    responses: { ...ok(200, 'Signed in', StaffSessionEnvelope), ...errors(400, 401, 409) },
    async handler({ body }, req, res, deps) {
      const token = await staff.confirmStaffTotp(staffDeps(deps), await pendingStaffSession(req, sessionDeps(deps)), body.code);
      await answerSession(deps, req, res, token);
    },
  }),
  route({
    method: 'get',
    path: '/session',
    access: 'public',
    operationId: 'getStaffSession',
    tags,
    summary: 'The staff session of this browser, its stage and CSRF token',
    responses: { ...ok(200, 'The session', StaffSessionEnvelope), ...errors(401) },
    async handler(_input, req, res, deps) {
      const live = await readStaffSession(req, sessionDeps(deps));
      if (!live) throw new ApiError(401, 'Not signed in as staff');
      res.json({ session: staffSessionView(live, settingsOf(deps)) });
    },
  }),
  route({
    method: 'post',
    path: '/sign-out',
    access: 'public',
    body: Empty,
    operationId: 'staffSignOut',
    tags,
    summary: 'End this session',
    responses: { ...ok(200, 'Signed out', Empty), ...errors(401) },
    async handler(_input, req, res, deps) {
      await staff.endStaffSession(deps, await pendingStaffSession(req, sessionDeps(deps)));
      clearSessionCookie(res, settingsOf(deps));
      res.json({});
    },
  }),
  route({
    method: 'get',
    path: '/audit-log',
    access: 'staff',
    guardOptions: { staffRoles: ['supervisor', 'network_admin'] },
    query: ServiceAuditQuery,
    operationId: 'listServiceAudit',
    tags,
    summary: 'The service audit log: every staff action, newest first',
    description: 'Every change a staff member made, every opening of an incident\'s details, and the operator\'s staff and roster commands.',
    responses: { ...ok(200, 'Entries', z.object({ entries: z.array(ServiceAuditEntry) })), ...errors(403) },
    async handler({ query }, _req, res, deps) {
      res.json({ entries: await staff.serviceAuditLog(deps.db, { subjectId: query.subject_id, limit: query.limit }) });
    },
  }),
];
