import { UpdateVisitorPolicies, VisitorPolicies } from '../../shared/schemas/access.ts';
import { SCOPES } from '../../shared/schemas/api-keys.ts';
import { OrganizationEnvelope, UpdateOrganizationRequest, type Organization as OrganizationView } from '../../shared/schemas/organization.ts';
import { authOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import type { Organization } from './organization.ts';
import { changeOrganization, currentOrganization } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Organization'];

/** The organization as answered: who it is, what its codes begin with, its plan. */
const organizationView = (organization: Organization): OrganizationView => ({
  organization_id: organization.organization_id,
  name: organization.name,
  code_prefix: organization.code_prefix,
  plan: organization.plan,
  subscription_status: organization.subscription_status,
  created_at: organization.created_at,
  updated_at: organization.updated_at,
});

/** The organization itself (its name and code prefix, issue #48) and the `admin` scope's settings: the visitor policies. */
export const organizationRouteList = [
  route({
    method: 'get',
    path: '/organization',
    // Any key or person of the organization: its name is on every pass a gate or an app prints.
    access: 'access_codes:read',
    guardOptions: { anyScopeOf: SCOPES.filter((scope) => scope !== 'access_codes:read') },
    operationId: 'getOrganization',
    tags,
    summary: 'The organization: its name, code prefix and plan',
    responses: { ...ok(200, 'The organization', OrganizationEnvelope), ...errors() },
    async handler(_input, req, res, deps) {
      // The stored row, as the visitor policies read it: a read after a rename shows the rename.
      res.json({ organization: organizationView((await currentOrganization(deps.db, authOf(req).organization.organization_id))!) });
    },
  }),
  route({
    method: 'patch',
    path: '/organization',
    access: 'admin',
    // In the console, the owners': the name is on every pass, and the prefix starts every new code.
    guardOptions: { roles: ['owner'], everySite: true },
    idempotent: true,
    body: UpdateOrganizationRequest,
    operationId: 'updateOrganization',
    tags,
    summary: "Rename the organization, or change what new codes begin with",
    description:
      '`name` is shown on every visitor pass from then on. `code_prefix` (2 to 6 letters, unique among organizations: 409 naming it when taken) begins every new code; codes already issued keep theirs and stay valid.',
    responses: { ...ok(200, 'The organization', OrganizationEnvelope), ...errors(409) },
    async handler({ body, db }, req, res, deps) {
      // The key cache keeps the organization (its prefix starts new codes): bypassed on this host until the answer is sent, and emptied after.
      res.on('close', deps.keyCache.hold());
      const organization = await changeOrganization(db, deps.clock, authOf(req).organization.organization_id, { name: body.name, codePrefix: body.code_prefix });
      res.json({ organization: organizationView(organization!) });
    },
  }),
  route({
    method: 'get',
    path: '/visitor-policies',
    access: 'admin',
    guardOptions: { everySite: true },
    operationId: 'getVisitorPolicies',
    tags,
    summary: "The organization's visitor policies",
    responses: { ...ok(200, 'Policies', VisitorPolicies), ...errors() },
    async handler(_input, req, res, deps) {
      // The stored row, not the key cache's copy: on PostgreSQL that copy is refreshed by a NOTIFY
      // that can arrive after a PATCH's answer, and a read after a write must show the write.
      const organization = await currentOrganization(deps.db, authOf(req).organization.organization_id);
      res.json({ auto_checkout_hours: organization!.auto_checkout_hours, retention_days: organization!.retention_days });
    },
  }),
  route({
    method: 'patch',
    path: '/visitor-policies',
    access: 'admin',
    // In the console, policies are the owners' and admins' (a developer holds `admin` for keys and webhooks).
    guardOptions: { roles: ['owner', 'admin'], everySite: true },
    idempotent: true,
    body: UpdateVisitorPolicies,
    operationId: 'updateVisitorPolicies',
    tags,
    summary: 'Set auto-checkout and retention',
    description:
      '`auto_checkout_hours`: anyone still checked in after N hours is checked out at arrival + N h (`auto_checked_out: true`). `retention_days`: visitor names and phones of visits closed, and of final codes, more than N days ago are erased; counts stay. `null` turns a policy off.',
    responses: { ...ok(200, 'Policies', VisitorPolicies), ...errors() },
    async handler({ body, db }, req, res, deps) {
      const organization = await changeOrganization(db, deps.clock, authOf(req).organization.organization_id, {
        autoCheckoutHours: body.auto_checkout_hours,
        retentionDays: body.retention_days,
      });
      res.json({ auto_checkout_hours: organization!.auto_checkout_hours, retention_days: organization!.retention_days });
    },
  }),
];

export const organizationRoutes = (deps: RouteDeps) => routerOf(organizationRouteList, deps, deps);
