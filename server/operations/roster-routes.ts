import { z } from 'zod';
import { Empty } from '../../shared/schemas/common.ts';
import { NewRosterResponder, ResponderProfileChange, RosterQuery, RosterResponder, RosterResponderEnvelope, SuspendRequest, type StaffRole } from '../../shared/schemas/staff.ts';
import { routeFor } from '../http/define-route.ts';
import { errors, ok } from '../http/responses.ts';
import type { RouteDeps } from '../route-deps.ts';
import { Duty } from '../../shared/schemas/duty.ts';
import { withDuty } from '../duty/service.ts';
import { addResponder } from '../responders/service.ts';
import { changeStanding, listRoster, reissueSignIn, rosterResponder, updateProfile, type StandingVerb } from '../responders/roster.ts';
import { signInUrl } from '../responders/sign-in.ts';
import { recordStaffAction } from '../staff/service.ts';
import { staffOf } from '../staff/session.ts';

const route = routeFor<RouteDeps>();
const tags = ['Roster'];
const ResponderParams = z.object({ responderId: z.string() });
/** The network's admins keep the roster; a supervisor may also suspend and resume on a bad night. */
const ADMINS: readonly StaffRole[] = ['network_admin'];
const SUSPENDERS: readonly StaffRole[] = ['network_admin', 'supervisor'];

function standingRoute(verb: StandingVerb, roles: readonly StaffRole[], summary: string, description: string) {
  return route({
    method: 'post',
    path: `/responders/:responderId/${verb}`,
    access: 'staff',
    guardOptions: { staffRoles: roles },
    params: ResponderParams,
    body: verb === 'suspend' ? SuspendRequest : Empty,
    operationId: `${verb}Responder`,
    tags,
    summary,
    description,
    responses: { ...ok(200, 'The responder now', RosterResponderEnvelope), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      const actor = staffOf(req);
      const reason = (body as { reason?: string }).reason;
      const responder = await changeStanding(deps.db, deps.clock, params.responderId, verb, { staffId: actor.staffId }, reason);
      await recordStaffAction(deps.db, deps.clock, actor, { action: `${verb}Responder`, subjectType: 'responder', subjectId: params.responderId, ...(reason && { detail: { reason } }) });
      res.json({ responder });
    },
  });
}

export const rosterRouteList = [
  route({
    method: 'get',
    path: '/responders',
    access: 'staff',
    query: RosterQuery,
    operationId: 'listRoster',
    tags,
    summary: 'The responder network: profiles, standing, and each one\'s duty status with its age',
    responses: { ...ok(200, 'Every responder', z.object({ responders: z.array(RosterResponder.extend(Duty.shape).meta({ id: 'RosterEntry' })) })), ...errors() },
    async handler({ query }, _req, res, deps) {
      res.json({ responders: await withDuty(deps.db, await listRoster(deps.db, query)) });
    },
  }),
  route({
    method: 'post',
    path: '/responders',
    access: 'staff',
    guardOptions: { staffRoles: ADMINS },
    body: NewRosterResponder,
    operationId: 'addApplicant',
    tags,
    summary: 'Add a live responder who applied (offered nothing until verified)',
    description: 'Answers the app\'s token once, and its sign-in link (show it as a QR code).',
    responses: { ...ok(201, 'Added', RosterResponderEnvelope.extend({ token: z.string(), sign_in_url: z.string() })), ...errors(403) },
    async handler({ body }, req, res, deps) {
      const actor = staffOf(req);
      const { name, phone, latitude, longitude, skills, ...profile } = body;
      const at = deps.clock.now().toISOString();
      const created = await addResponder(deps.db, deps.clock, { name, phone, latitude, longitude, environment: 'live' }, {
        ...profile,
        skills: JSON.stringify(skills ?? []),
        standing: 'applied',
        standing_by: actor.staffId,
        standing_at: at,
      });
      await recordStaffAction(deps.db, deps.clock, actor, { action: 'addApplicant', subjectType: 'responder', subjectId: created.responder.responder_id });
      res.status(201).json({ responder: await rosterResponder(deps.db, created.responder.responder_id), token: created.token, sign_in_url: signInUrl(deps.config.PUBLIC_URL, created.token) });
    },
  }),
  route({
    method: 'patch',
    path: '/responders/:responderId',
    access: 'staff',
    guardOptions: { staffRoles: ADMINS },
    params: ResponderParams,
    body: ResponderProfileChange,
    operationId: 'updateResponder',
    tags,
    summary: "Change a responder's profile",
    responses: { ...ok(200, 'The responder now', RosterResponderEnvelope), ...errors(403, 404) },
    async handler({ params, body }, req, res, deps) {
      const responder = await updateProfile(deps.db, deps.clock, params.responderId, body);
      await recordStaffAction(deps.db, deps.clock, staffOf(req), { action: 'updateResponder', subjectType: 'responder', subjectId: params.responderId, detail: { fields: Object.keys(body) } });
      res.json({ responder });
    },
  }),
  route({
    method: 'post',
    path: '/responders/:responderId/sign-in',
    access: 'staff',
    guardOptions: { staffRoles: ADMINS },
    params: ResponderParams,
    body: Empty,
    operationId: 'issueResponderSignIn',
    tags,
    summary: "Issue the responder app's sign-in anew (a new phone)",
    description: 'A new token, shown once, and its sign-in link (show it as a QR code); the old token stops working at once and the old phone\'s app signs out.',
    responses: { ...ok(201, 'Issued', RosterResponderEnvelope.extend({ token: z.string(), sign_in_url: z.string() })), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      const issued = await reissueSignIn(deps.db, deps.clock, params.responderId, true);
      await recordStaffAction(deps.db, deps.clock, staffOf(req), { action: 'issueResponderSignIn', subjectType: 'responder', subjectId: params.responderId });
      res.status(201).json({ responder: issued.responder, token: issued.token!, sign_in_url: signInUrl(deps.config.PUBLIC_URL, issued.token!) });
    },
  }),
  route({
    method: 'delete',
    path: '/responders/:responderId/sign-in',
    access: 'staff',
    guardOptions: { staffRoles: SUSPENDERS },
    params: ResponderParams,
    operationId: 'revokeResponderSignIn',
    tags,
    summary: "Revoke the responder app's sign-in (a lost or stolen phone)",
    description: 'The token stops working at once; the responder is unavailable until signed in again with a newly issued link.',
    responses: { ...ok(200, 'Revoked', RosterResponderEnvelope), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      const revoked = await reissueSignIn(deps.db, deps.clock, params.responderId, false);
      await recordStaffAction(deps.db, deps.clock, staffOf(req), { action: 'revokeResponderSignIn', subjectType: 'responder', subjectId: params.responderId });
      res.json({ responder: revoked.responder });
    },
  }),
  standingRoute('verify', ADMINS, 'Verify an applicant: offered incidents from now on', 'applied → verified; verifying a verified responder answers it as it is.'),
  standingRoute('suspend', SUSPENDERS, 'Suspend a responder, saying why', 'applied or verified → suspended, with the reason; their open offers are withdrawn, and they are offered nothing until resumed.'),
  standingRoute('resume', SUSPENDERS, 'Resume a suspended responder', 'suspended → verified.'),
  standingRoute('retire', ADMINS, 'Retire a responder', 'Final: the app\'s token stops working and their open offers are withdrawn.'),
];
