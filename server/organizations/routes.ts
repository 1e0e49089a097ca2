import { UpdateVisitorPolicies, VisitorPolicies } from '../../shared/schemas/access.ts';
import { authOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { changeOrganization, currentOrganization } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Organization'];

/** The `admin` scope's organization settings: the visitor policies. */
export const organizationRouteList = [
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
