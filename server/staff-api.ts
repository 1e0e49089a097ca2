import { Router } from 'express';
import { createDocument } from 'zod-openapi';
import { pathsOf, routerOf } from './http/define-route.ts';
import { dutyRouteList } from './operations/duty-routes.ts';
import { liveRouteList } from './operations/live-routes.ts';
import { operationsRouteList } from './operations/routes.ts';
import { rosterRouteList } from './operations/roster-routes.ts';
import { reportRouteList } from './operations/report-routes.ts';
import { controlRouteList } from './operations/control-routes.ts';
import type { RouteDeps } from './route-deps.ts';
import { staffAuthRouteList } from './staff/routes.ts';
import { staffAccess } from './staff/session.ts';

export const STAFF_API_BASE = '/v1/staff';

/** Every route of the operations centre, once: the router and the staff OpenAPI document both come from this list. */
export const staffRouteList = [...staffAuthRouteList, ...rosterRouteList, ...operationsRouteList, ...dutyRouteList, ...controlRouteList, ...reportRouteList, ...liveRouteList];

/** The staff API's own document, as the responder API has its own: neither is a partner integration. */
export function buildStaffOpenApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tsaro operations centre API',
      version: 'v1',
      description:
        "For the service's own staff (controllers, supervisors, network admins), never partners: the console's operations view calls it with the console's cookie, and the Origin and CSRF rules of the console. A staff session is signed in only after its second step, always. No partner key or partner session reaches a route here (401), and no staff session reaches a partner's (401). Staff are invited from the host (`npx tsaro staff invite --email E --role controller`).",
      license: { name: 'Proprietary', identifier: 'LicenseRef-Tsaro-Proprietary' },
    },
    servers: [{ url: STAFF_API_BASE }],
    security: [{ staffSession: [] }],
    components: { securitySchemes: { staffSession: { type: 'apiKey', in: 'cookie', name: 'tsaro_console', description: 'The console cookie of a staff session past its second step; changes also carry X-CSRF-Token' } } },
    paths: pathsOf(staffRouteList),
  });
}

/** /v1/staff: its document (no session needed) and its routes. */
export function staffRoutes(deps: RouteDeps): Router {
  const router = Router();
  const document = JSON.stringify(buildStaffOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  const settings = { idleTimeoutMin: deps.config.CONSOLE_IDLE_TIMEOUT_MIN, publicUrl: deps.config.PUBLIC_URL };
  router.use(routerOf(staffRouteList, deps, { db: deps.db, staff: staffAccess({ db: deps.db, clock: deps.clock, settings }) }));
  return router;
}
