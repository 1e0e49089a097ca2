import type { Request } from 'express';
import { CoverageEnvelope, CoverageQuery, type DispatchCoverage } from '../../shared/schemas/dispatch.ts';
import type { Guard } from '../http/define-route.ts';
import { tenantOf } from '../auth/context.ts';
import type { Executor } from '../db/schema.ts';
import { errors, ok } from '../http/responses.ts';
import { ApiError } from '../http/errors.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { DEFAULT_FIX_MAX_AGE_S, chooseNearestResponders, distanceKm, freshFix, type Point } from './nearest.ts';
import { SIMULATED_RESPONDERS } from './simulated-network.ts';
import { availableRespondersNear } from './store.ts';

const route = routeFor<RouteDeps>();

/**
 * Whether an SOS at `point` would reach anyone now: live, the responders the first dispatch round
 * would offer it to (the engine's own search, so the answer cannot disagree with dispatch);
 * sandbox, the simulated network, which plays out every incident wherever it is.
 */
export async function dispatchCoverage(
  db: Executor,
  input: { environment: 'live' | 'sandbox'; point: Point; radiusKm: number; at: Date; fixMaxAgeS?: number },
): Promise<DispatchCoverage> {
  const { environment, point, radiusKm } = input;
  const simulated = environment === 'sandbox';
  const distances = simulated
    ? SIMULATED_RESPONDERS.map((responder) => distanceKm(point, responder))
    : chooseNearestResponders(
        (await availableRespondersNear(db, environment, point, radiusKm))
          // As dispatch: a stale fix counts for nobody.
          .filter((row) => freshFix(row.location_at, input.at.getTime(), input.fixMaxAgeS ?? DEFAULT_FIX_MAX_AGE_S))
          .map((row) => ({
          responderId: row.responder_id,
          latitude: Number(row.latitude),
          longitude: Number(row.longitude),
        })),
        point,
        radiusKm,
        Number.POSITIVE_INFINITY,
      ).map((choice) => choice.distanceKm);
  const nearest = distances.length ? Math.min(...distances) : null;
  return {
    environment,
    latitude: point.latitude,
    longitude: point.longitude,
    covered: simulated || distances.length > 0,
    simulated,
    responders_within_radius: distances.length,
    nearest_responder_km: nearest === null ? null : Math.round(nearest),
    dispatch_radius_km: radiusKm,
    checked_at: input.at.toISOString(),
  };
}

/**
 * The route's guard: `incidents:read` or `incidents:write`. A gate whose key may send an SOS may
 * ask whether anyone would answer it, and a partner's dashboard that only reads may too. The
 * guard's own order (401 → 402 → 403 → 429) holds: a key without `incidents:read` is tried for
 * `incidents:write` before the 403, and the rate limit counts the request once.
 */
function readOrWrite(guard: Guard): Guard {
  return (_scope, options) => {
    const read = guard('incidents:read', options);
    const write = guard('incidents:write', options);
    return async (req: Request, res, next) => {
      try {
        await read(req, res, next);
        return;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 403) throw error;
        if (!req.auth?.scopes.has('incidents:write')) throw new ApiError(403, 'This API key lacks the incidents:read scope (or incidents:write)', error.headers);
      }
      await write(req, res, next);
    };
  };
}

export const dispatchCoverageRouteList = [
  route({
    method: 'get',
    path: '/dispatch/coverage',
    access: 'incidents:read',
    query: CoverageQuery,
    operationId: 'getDispatchCoverage',
    tags: ['Incidents'],
    summary: 'Whether responders cover a place now',
    description:
      '`incidents:write` is accepted too, so a gate that can send an SOS can learn beforehand whether anyone would answer it. Live: the count of on-duty responders (available, located by a fix at most DISPATCH_FIX_MAX_AGE_S old, default 5 minutes, not busy with another incident) within the dispatch radius of the point, the ones an SOS there would be offered to first, and the distance to the nearest rounded to the kilometre. Responders are the service\'s own network, shared by every organization of the environment; the answer names none of them. Sandbox: the simulated network covers everywhere, and the answer says so (`simulated: true`, `covered: true`).',
    responses: { ...ok(200, 'Coverage at the point, now', CoverageEnvelope), ...errors() },
    async handler({ query }, req, res, deps) {
      const coverage = await dispatchCoverage(deps.db, {
        environment: tenantOf(req).environment,
        point: { latitude: query.latitude, longitude: query.longitude },
        radiusKm: deps.config.DISPATCH_RADIUS_KM,
        at: deps.clock.now(),
        fixMaxAgeS: deps.config.DISPATCH_FIX_MAX_AGE_S,
      });
      res.json({ coverage });
    },
  }),
];

export const dispatchCoverageRoutes = (deps: RouteDeps) => routerOf(dispatchCoverageRouteList, deps, { guard: readOrWrite(deps.guard) });
