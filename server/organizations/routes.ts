import { Router } from 'express';
import { UpdateVisitorPolicies } from '../../shared/schemas/access.ts';
import { authOf } from '../auth/context.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb } from '../idempotency/middleware.ts';
import { changeOrganization } from './service.ts';

/** The `admin` scope's organization settings: the visitor policies. */
export function organizationRoutes(deps: RouteDeps): Router {
  const router = Router();

  router.get('/visitor-policies', deps.guard('admin'), (req, res) => {
    const { auto_checkout_hours, retention_days } = authOf(req).organization;
    res.json({ auto_checkout_hours, retention_days });
  });

  router.patch('/visitor-policies', deps.guard('admin'), deps.idempotent, async (req, res) => {
    const body = parseInput(UpdateVisitorPolicies, req.body, 'body');
    const organization = await changeOrganization(requestDb(req, deps.db), deps.clock, authOf(req).organization.organization_id, {
      autoCheckoutHours: body.auto_checkout_hours,
      retentionDays: body.retention_days,
    });
    res.json({ auto_checkout_hours: organization!.auto_checkout_hours, retention_days: organization!.retention_days });
  });

  return router;
}
