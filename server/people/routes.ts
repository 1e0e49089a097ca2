import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  AcceptInvitationRequest,
  ChangePasswordRequest,
  ChangeRoleRequest,
  ConfirmedTotp,
  ConfirmTotpRequest,
  ConsoleSessionPage,
  CreatedInvitation,
  Invitation,
  InvitationPage,
  InviteRequest,
  ListPeopleQuery,
  ListQuery,
  Person,
  PersonPage,
  SecondFactorRequest,
  SessionEnvelope,
  SignInRequest,
  TwoStepPolicy,
  ChangeTwoStepPolicyRequest,
  StartTotpEnrolmentRequest,
  TotpEnrolment,
  type Role,
} from '../../shared/schemas/console.ts';
import { Empty } from '../../shared/schemas/common.ts';
import { authOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import { ApiError } from '../http/errors.ts';
import { siteLimitFor } from '../sites/service.ts';
import type { RouteDeps } from '../route-deps.ts';
import { takeGuess } from '../rate-limit/guesses.ts';
import { auditPersonEvent } from './audit-person.ts';
import { deviceCookieFor, setDeviceCookie, trustedDevice } from './device-cookie.ts';
import { sessionOf } from './middleware.ts';
import * as people from './service.ts';
import { WRONG_CURRENT_PASSWORD } from './service.ts';
import { ORGANIZATION_HEADER, assertConsoleWrite, clearSessionCookie, idleMs, isConsoleOrigin, readSession, sessionView, setSessionCookie, type SessionSettings } from './session.ts';

const route = routeFor<RouteDeps>();
const tags = ['Console'];
const MANAGERS: Role[] = ['owner', 'admin'];
const TokenParams = z.object({ token: z.string().regex(/^[\w-]{43}$/, 'not an invitation token') });
const PersonParams = z.object({ personId: z.string() });
const SessionParams = z.object({ sessionId: z.string() });
const InvitationParams = z.object({ invitationId: z.string() });

export const settingsOf = (deps: RouteDeps): SessionSettings => ({ idleTimeoutMin: deps.config.CONSOLE_IDLE_TIMEOUT_MIN, publicUrl: deps.config.PUBLIC_URL });
const peopleDeps = (deps: RouteDeps): people.PeopleDeps => ({ db: deps.db, clock: deps.clock, secretBox: deps.secretBox, publicUrl: deps.config.PUBLIC_URL });
const metaOf = (req: Request): people.SessionMeta => ({ ip: req.ip, userAgent: req.get('user-agent') });
const inviterOf = (req: Request): people.Inviter => {
  const person = authOf(req).person!;
  return { type: 'person', personId: person.personId, role: person.role };
};

/** Sign-in guesses are counted per account and per address in the rate-limit store (Redis with several hosts), before they are checked; a right one is given back. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;
const FAILURES_PER_ACCOUNT = 10;
const FAILURES_PER_ADDRESS = 100;
/** Wrong current passwords a signed-in person may give in the window (a stolen session guessing). */
const PASSWORD_CHANGE_GUESSES = 5;
/** Each failure in the window adds this much before the answer, up to 2 s. */
const SLOWDOWN_MS = 200;

async function signInLimited(deps: RouteDeps, req: Request, email: string, attempt: () => Promise<void>): Promise<void> {
  // A browser this person fully signed in from before counts its guesses alone: strangers'
  // failures, which fill the account's and the address's buckets, never lock it out.
  const device = trustedDevice(req, deps.secretBox, email);
  const ticket = await takeGuess(
    deps.rateLimitStore,
    device
      ? [{ bucket: `signin:device:${device}`, limit: FAILURES_PER_ACCOUNT }]
      : [
          { bucket: `signin:email:${email.toLowerCase()}`, limit: FAILURES_PER_ACCOUNT },
          { bucket: `signin:ip:${req.ip ?? 'unknown'}`, limit: FAILURES_PER_ADDRESS },
        ],
    deps.clock.now().getTime(),
    SIGN_IN_WINDOW_MS,
    (retryAfter) =>
      new ApiError(429, `Too many failed sign-ins: try again in ${Math.ceil(retryAfter / 60)} min, or ask an owner for a reset link`, { 'Retry-After': String(retryAfter) }),
  );
  await ticket.settle(
    attempt,
    (outcome) => 'error' in outcome && outcome.error instanceof ApiError && outcome.error.status === 401,
    async () => {
      // A wrong guess keeps its slots, and waits longer the more there were. The audit log counts
      // them without a row each: the first of a window, and the one that fills it.
      if (ticket.count === 1 || ticket.count === FAILURES_PER_ACCOUNT) {
        const person = await people.personByEmail(deps.db, email);
        if (person) await auditPersonEvent(deps, req, person, ticket.count === 1 ? 'signInFailed' : `signInFailed${FAILURES_PER_ACCOUNT}Times`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, ticket.count * SLOWDOWN_MS)));
    },
  );
}

/** Sign-in and joining set a cookie for this origin: a request from another origin (login CSRF) is refused. */
function assertOwnOrigin(req: Request, settings: SessionSettings): void {
  const origin = req.get('origin');
  if (origin !== undefined && !isConsoleOrigin(req, origin, settings)) throw new ApiError(403, 'Sign-in must come from the console itself (Origin)');
}

/** The session a sign-in step works on (any stage), with the write rules; 401 when there is none. */
async function pendingSession(req: Request, deps: RouteDeps) {
  const settings = settingsOf(deps);
  const live = await readSession(req, { db: deps.db, clock: deps.clock, settings });
  if (!live) throw new ApiError(401, 'Your console session has ended: sign in again');
  assertConsoleWrite(req, live.token, settings);
  return live;
}

/** Sets the session's cookie and answers it; `action` goes to the person's audit log. */
async function answerSession(deps: RouteDeps, req: Request, res: Response, token: string, action: string, status = 200, extra: object = {}) {
  const settings = settingsOf(deps);
  setSessionCookie(res, token, settings);
  req.headers.cookie = `tsaro_console=${token}`;
  const live = (await readSession(req, { db: deps.db, clock: deps.clock, settings }))!;
  await auditPersonEvent(deps, req, live.person, action);
  // Fully signed in: this browser is now one the person has signed in from (device-cookie.ts).
  if (live.session.stage === 'active') setDeviceCookie(res, deviceCookieFor(deps.secretBox, live.person.email), settings);
  res.status(status).json({ session: sessionView(live, settings), ...extra });
}

export const peopleRouteList = [
  route({
    method: 'get',
    path: '/console/invitations/:token',
    access: 'public',
    params: TokenParams,
    operationId: 'getInvitation',
    tags,
    summary: 'What an invitation link is for',
    description:
      'The link a person was given (`tsaro console invite`, the console, or the demo at first start). 404 once used, withdrawn, or 7 days old, and once it no longer fits: its maker is no longer an owner or admin who may make it, or (a reset) its person\'s role or sites changed or, for a link made in the console, they belong to another organization too.',
    responses: {
      ...ok(
        200,
        'The invitation',
        z.object({
          invitation: Invitation,
          signs_in_already: z.boolean().meta({ description: 'The address signs in to Tsaro already (another organization): the holder joins with that password. Told only to the link\'s holder' }),
        }),
      ),
      ...errors(404),
    },
    async handler({ params }, _req, res, deps) {
      const invitation = await people.invitationByToken(peopleDeps(deps), params.token);
      const signsIn = invitation.kind === 'join' && (await people.personByEmail(deps.db, invitation.email)) !== undefined;
      res.json({ invitation, signs_in_already: signsIn });
    },
  }),
  route({
    method: 'post',
    path: '/console/invitations/:token/accept',
    access: 'public',
    params: TokenParams,
    body: AcceptInvitationRequest,
    operationId: 'acceptInvitation',
    tags,
    summary: 'Join (or reset) with a password',
    description:
      'At least 12 characters and not a common password. Starts a session (cookie); owners and admins enrol a second factor next (`stage: enrol_totp`). A reset link replaces the password and the phone and ends every other session. Someone who signs in to Tsaro already (a member of another organization) joins with their own password (401 if wrong, counted as a sign-in guess), and keeps their sign-in and second step. The link is checked again as it is used, against what its maker and its person are then (404 as for a used link, see `getInvitation`); joining another organization withdraws the reset links other organizations made for the person.',
    responses: { ...ok(201, 'Joined', SessionEnvelope), ...errors(404, 409) },
    async handler({ params, body }, req, res, deps) {
      assertOwnOrigin(req, settingsOf(deps));
      // Someone who signs in already joins with their password: its guesses are counted as a sign-in's.
      const { email } = await people.invitationByToken(peopleDeps(deps), params.token);
      let token = '';
      let organizationId = '';
      await signInLimited(deps, req, email, async () => {
        ({ token, organizationId } = await people.acceptInvitation(peopleDeps(deps), params.token, body, metaOf(req)));
      });
      // The session answers in the organization just joined (a person may belong to several).
      req.headers[ORGANIZATION_HEADER] = organizationId;
      await answerSession(deps, req, res, token, 'acceptInvitation', 201);
    },
  }),
  route({
    method: 'post',
    path: '/console/sign-in',
    access: 'public',
    body: SignInRequest,
    operationId: 'signIn',
    tags,
    summary: 'Sign in with email and password',
    description: `Then \`stage\` says what is next: a code (\`totp\`), enrolling one (\`enrol_totp\`), or nothing (\`active\`). Guesses are counted before they are checked, slowed, and limited: ${FAILURES_PER_ACCOUNT} wrong per account and ${FAILURES_PER_ADDRESS} per address in 15 minutes, across hosts (429 with Retry-After); a browser the person fully signed in from before (the \`tsaro_device\` cookie) is counted alone, ${FAILURES_PER_ACCOUNT} per device, so strangers' failures never lock it out.`,
    responses: { ...ok(200, 'Signed in (maybe a step to go)', SessionEnvelope), ...errors(401, 429) },
    async handler({ body }, req, res, deps) {
      assertOwnOrigin(req, settingsOf(deps));
      let token = '';
      await signInLimited(deps, req, body.email, async () => {
        token = (await people.signIn(peopleDeps(deps), body.email, body.password, metaOf(req))).token;
      });
      await answerSession(deps, req, res, token, 'signIn');
    },
  }),
  route({
    method: 'post',
    path: '/console/sign-in/totp',
    access: 'public',
    body: SecondFactorRequest,
    operationId: 'signInSecondFactor',
    tags,
    summary: 'The second factor: a code from the app, or a recovery code',
    description:
      'A code is accepted once. A recovery code is used up; enrol a new phone afterwards from the account page. Also where a session signed in without the second step works in an organization that asks the person\'s role there for it (`stage: totp` in that organization): the code signs the session in for every organization.',
    responses: { ...ok(200, 'Signed in', SessionEnvelope), ...errors(401, 409, 429) },
    async handler({ body }, req, res, deps) {
      const live = await pendingSession(req, deps);
      let token = '';
      await signInLimited(deps, req, live.person.email, async () => {
        token = (await people.secondFactor(peopleDeps(deps), live, body)).token;
      });
      await answerSession(deps, req, res, token, 'signInSecondFactor');
    },
  }),
  route({
    method: 'post',
    path: '/console/totp/enrolment',
    access: 'public',
    body: StartTotpEnrolmentRequest,
    operationId: 'startTotpEnrolment',
    tags,
    summary: 'The authenticator secret to enrol',
    description:
      'Show `otpauth_uri` as a QR code and `secret` as text. Nothing changes until a code from it is confirmed. Asked again before then, it gives the same secret (a reload keeps what the phone scanned) unless `replace` is true. Someone with an authenticator replaces it only from a session that passed the second step (409 otherwise).',
    responses: { ...ok(200, 'The secret', TotpEnrolment), ...errors(401, 409) },
    async handler({ body }, req, res, deps) {
      res.json(await people.startTotpEnrolment(peopleDeps(deps), await pendingSession(req, deps), body));
    },
  }),
  route({
    method: 'post',
    path: '/console/totp/enrolment/confirm',
    access: 'public',
    body: ConfirmTotpRequest,
    operationId: 'confirmTotpEnrolment',
    tags,
    summary: 'Confirm the authenticator with a code; get ten recovery codes',
    description: 'The recovery codes are shown once; any earlier ones stop working.',
    responses: { ...ok(200, 'Enrolled', ConfirmedTotp), ...errors(400, 401, 409) },
    async handler({ body }, req, res, deps) {
      const { token, recovery_codes } = await people.confirmTotpEnrolment(peopleDeps(deps), await pendingSession(req, deps), body.code);
      await answerSession(deps, req, res, token, 'confirmTotpEnrolment', 200, { recovery_codes });
    },
  }),
  route({
    method: 'get',
    path: '/console/session',
    access: 'public',
    operationId: 'getConsoleSession',
    tags,
    summary: 'The session of this browser, with its CSRF token',
    description:
      'In the organization `Tsaro-Organization` names (else the one joined first), with its `stage` there: where a route answered 401 because that organization asks for a second step this session has not passed, this says which (`totp` or `enrol_totp`), so the console can ask for it.',
    responses: { ...ok(200, 'The session', SessionEnvelope), ...errors(401) },
    async handler(_input, req, res, deps) {
      const settings = settingsOf(deps);
      const live = await readSession(req, { db: deps.db, clock: deps.clock, settings });
      if (!live) throw new ApiError(401, 'Not signed in');
      res.json({ session: sessionView(live, settings) });
    },
  }),
  route({
    method: 'post',
    path: '/console/sign-out',
    access: 'public',
    body: Empty,
    operationId: 'signOut',
    tags,
    summary: 'End this session',
    responses: { ...ok(200, 'Signed out', Empty), ...errors(401) },
    async handler(_input, req, res, deps) {
      const live = await pendingSession(req, deps);
      await people.endSession(peopleDeps(deps), live);
      await auditPersonEvent(deps, req, live.person, 'signOut');
      clearSessionCookie(res, settingsOf(deps));
      res.json({});
    },
  }),
  route({
    method: 'get',
    path: '/console/sessions',
    access: 'person',
    query: ListQuery,
    operationId: 'listConsoleSessions',
    tags,
    summary: 'Your sessions: device, address, last active',
    responses: { ...ok(200, 'One page', ConsoleSessionPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await people.listOwnSessions({ ...peopleDeps(deps), idleMs: idleMs(settingsOf(deps)) }, sessionOf(req), query));
    },
  }),
  route({
    method: 'delete',
    path: '/console/sessions/:sessionId',
    personal: true,
    access: 'person',
    params: SessionParams,
    operationId: 'endConsoleSession',
    tags,
    summary: 'Sign out one of your sessions',
    responses: { ...ok(200, 'Ended', Empty), ...errors(404) },
    async handler({ params }, req, res, deps) {
      await people.endOwnSession(peopleDeps(deps), sessionOf(req), params.sessionId);
      res.json({});
    },
  }),
  route({
    method: 'post',
    path: '/console/password',
    personal: true,
    access: 'person',
    body: ChangePasswordRequest,
    operationId: 'changePassword',
    tags,
    summary: 'Change your password',
    description: `Your other sessions end. A wrong current password counts as a guess: ${PASSWORD_CHANGE_GUESSES} per person in 15 minutes, then 429, so a stolen session cannot find the password by trying.`,
    responses: { ...ok(200, 'Changed', Empty), ...errors(400, 429) },
    async handler({ body }, req, res, deps) {
      const live = sessionOf(req);
      const ticket = await takeGuess(
        deps.rateLimitStore,
        [{ bucket: `password-change:${live.person.person_id}`, limit: PASSWORD_CHANGE_GUESSES }],
        deps.clock.now().getTime(),
        SIGN_IN_WINDOW_MS,
        (retryAfter) => new ApiError(429, `Too many wrong current passwords: try again in ${Math.ceil(retryAfter / 60)} min`, { 'Retry-After': String(retryAfter) }),
      );
      await ticket.settle(
        () => people.changePassword(peopleDeps(deps), live, body),
        (outcome) => 'error' in outcome && outcome.error instanceof ApiError && outcome.error.message === WRONG_CURRENT_PASSWORD,
      );
      res.json({});
    },
  }),
  route({
    method: 'get',
    path: '/console/two-step',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    operationId: 'getTwoStepPolicy',
    tags,
    summary: 'Which roles must sign in with a second step',
    description: 'Owner and admin always; of developer, operator and viewer, those the organization chose (operator by default).',
    responses: { ...ok(200, 'The policy', TwoStepPolicy), ...errors() },
    async handler(_input, req, res, deps) {
      res.json(await people.twoStepPolicy(deps.db, authOf(req).organization.organization_id));
    },
  }),
  route({
    method: 'put',
    path: '/console/two-step',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    body: ChangeTwoStepPolicyRequest,
    operationId: 'changeTwoStepPolicy',
    tags,
    summary: 'Choose which roles must sign in with a second step',
    description:
      'At once: a session of a role now required that never passed a second step answers `stage: totp` (or `enrol_totp`, not enrolled) in this organization, and 401 on its routes here until it does.',
    responses: { ...ok(200, 'The policy now', TwoStepPolicy), ...errors(400) },
    async handler({ body }, req, res, deps) {
      res.json(await people.changeTwoStepPolicy(peopleDeps(deps), authOf(req).organization.organization_id, body.roles));
    },
  }),
  route({
    method: 'get',
    path: '/console/people',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    query: ListPeopleQuery,
    operationId: 'listPeople',
    tags,
    summary: "The organization's people",
    responses: { ...ok(200, 'One page', PersonPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await people.listOrganizationPeople(deps.db, authOf(req).organization.organization_id, query));
    },
  }),
  route({
    method: 'get',
    path: '/console/invitations',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    query: ListQuery,
    operationId: 'listInvitations',
    tags,
    summary: 'Invitations not yet used',
    responses: { ...ok(200, 'One page', InvitationPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await people.listInvitations(peopleDeps(deps), authOf(req).organization.organization_id, query));
    },
  }),
  route({
    method: 'post',
    path: '/console/invitations',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    body: InviteRequest,
    operationId: 'invitePerson',
    tags,
    summary: 'Invite someone with a role',
    description: 'Answers the link once: give it to the person (no mail server is assumed). Only an owner invites an owner.',
    responses: { ...ok(201, 'Invited', CreatedInvitation), ...errors(403, 409) },
    async handler({ body }, req, res, deps) {
      const organizationId = authOf(req).organization.organization_id;
      const siteIds = body.site_ids && (await siteLimitFor(deps.db, { organizationId }, body.site_ids));
      const made = await people.invitePerson(peopleDeps(deps), { organizationId, ...body, inviter: inviterOf(req), siteIds });
      res.status(201).json(made);
    },
  }),
  route({
    method: 'post',
    path: '/console/invitations/:invitationId/withdraw',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    params: InvitationParams,
    body: Empty,
    operationId: 'withdrawInvitation',
    tags,
    summary: 'Withdraw an invitation',
    responses: { ...ok(200, 'Withdrawn', Empty), ...errors(404) },
    async handler({ params }, req, res, deps) {
      await people.withdrawInvitation(peopleDeps(deps), authOf(req).organization.organization_id, params.invitationId);
      res.json({});
    },
  }),
  route({
    method: 'patch',
    path: '/console/people/:personId',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    params: PersonParams,
    body: ChangeRoleRequest,
    operationId: 'changeRole',
    tags,
    summary: "Change someone's role",
    description: 'Only an owner makes, changes or removes an owner; the last owner stays one.',
    responses: { ...ok(200, 'Changed', z.object({ person: Person })), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      const organizationId = authOf(req).organization.organization_id;
      const siteIds = body.site_ids && (await siteLimitFor(deps.db, { organizationId }, body.site_ids));
      res.json({ person: await people.changeRole(peopleDeps(deps), organizationId, params.personId, body.role, inviterOf(req), siteIds) });
    },
  }),
  route({
    method: 'delete',
    path: '/console/people/:personId',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    params: PersonParams,
    operationId: 'removePerson',
    tags,
    summary: 'Remove someone',
    description: 'Their sessions end at once, on every host.',
    responses: { ...ok(200, 'Removed', Empty), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      await people.removePerson(peopleDeps(deps), authOf(req).organization.organization_id, params.personId, inviterOf(req));
      res.json({});
    },
  }),
  route({
    method: 'post',
    path: '/console/people/:personId/sign-out',
    access: 'person',
    guardOptions: { roles: ['owner'], everySite: true },
    params: PersonParams,
    body: Empty,
    operationId: 'signOutPerson',
    tags,
    summary: "End all of someone's sessions",
    description: 'Owners only (a lost laptop or phone): every session of the person ends at once, on every host; they sign in again.',
    responses: { ...ok(200, 'Ended', z.object({ ended: z.int() })), ...errors(403, 404) },
    async handler({ params }, req, res, deps) {
      res.json(await people.signOutPerson(peopleDeps(deps), authOf(req).organization.organization_id, params.personId));
    },
  }),
  route({
    method: 'post',
    path: '/console/people/:personId/reset',
    access: 'person',
    guardOptions: { roles: MANAGERS, everySite: true },
    params: PersonParams,
    body: Empty,
    operationId: 'resetPerson',
    tags,
    summary: 'A new link to reset a password or a lost phone',
    description: 'When used, it replaces the password and the authenticator, and ends their sessions.',
    responses: { ...ok(201, 'The link', CreatedInvitation), ...errors(403, 404) },
    async handler({ params }, req, res, deps) {
      res.status(201).json(await people.resetPerson(peopleDeps(deps), authOf(req).organization.organization_id, params.personId, inviterOf(req)));
    },
  }),
];

export const peopleRoutes = (deps: RouteDeps) => routerOf(peopleRouteList, deps, deps);
