import { AuditPage, ListAuditQuery } from '../../shared/schemas/console.ts';
import { authOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { auditLog } from './service.ts';

const route = routeFor<RouteDeps>();

/** The audit log: with a key, the `admin` scope; in the console, owners and admins. */
export const auditRouteList = [
  route({
    method: 'get',
    lane: 'reads',
    path: '/audit-log',
    access: 'admin',
    guardOptions: { roles: ['owner', 'admin'], everySite: true },
    query: ListAuditQuery,
    operationId: 'listAuditLog',
    tags: ['Audit log'],
    summary: 'Every change made by people or with keys, newest first',
    description:
      "Both environments: each entry says which. `actor` is the person or key that made the change (or `operator`, the CLI on the host); `ip` is the client's address, behind a balancer as TRUST_PROXY allows. In the console: owners and admins.",
    responses: { ...ok(200, 'One page', AuditPage), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(
        await auditLog(
          db,
          {
            organizationId: authOf(req).organization.organization_id,
            actorType: query.actor_type,
            actorId: query.actor_id,
            action: query.action,
            resourceId: query.resource_id,
            from: query.from_date,
            to: query.to_date,
          },
          query,
        ),
      );
    },
  }),
];

export const auditRoutes = (deps: RouteDeps) => routerOf(auditRouteList, deps, deps);
