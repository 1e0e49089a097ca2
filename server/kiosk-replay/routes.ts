import { MAX_REPLAY_OPS, ReplayRequest, ReplayResponse } from '../../shared/schemas/kiosk-replay.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { replayOperations } from './service.ts';

const route = routeFor<RouteDeps>();

/** A kiosk's queued operations in one request (docs/kiosk.md, "Exactly once"). */
export const kioskReplayRouteList = [
  route({
    method: 'post',
    path: '/kiosk/replay',
    access: 'access_codes:write',
    idempotent: true,
    body: ReplayRequest,
    operationId: 'replayKioskOperations',
    tags: ['Gate kiosk'],
    summary: 'Replay queued gate operations in one request',
    description: [
      `Each \`validate\` and \`heartbeat\` operation also needs \`access_codes:validate\` (a 403 item otherwise). Up to ${MAX_REPLAY_OPS}`,
      'validations, walk-ins, checkouts and heartbeats, applied in order in one transaction, each in a savepoint of its own and answered exactly as its',
      'single route would (`POST /access-codes/validate`, `POST /access-logs`, `PATCH /access-logs/{log_id}/checkout`, `PUT /kiosks/{kiosk_id}/heartbeat`), status and body,',
      "under its own `idempotency_key`: the same record as the single route's, so a batch sent again replays every item, and a single",
      "request with an item's key replays its answer, to a caller who reaches every site its maker did (409 otherwise). A refused item (404 another",
      "organization's log or another site's kiosk, 409 already checked out, 400 a replay too old) undoes only itself; the rest still apply. A checkout may name the visit by `log_of`: the key of the walk-in or",
      'validation that opened it, earlier in the batch or before; 424 when that operation has checked nobody in. A malformed batch is a',
      "400 naming the item's field (`ops[3].body.code`) and applies nothing. The batch counts as one request against the rate limit; each",
      'validation of a typed code still counts against the unknown-code guard (a 429 item). Servers without this route answer 404:',
      'send the operations one at a time.',
    ].join(' '),
    responses: { ...ok(200, 'One result per operation, in order', ReplayResponse), ...errors(413) },
    async handler({ body }, req, res, deps) {
      // Fingerprints compare the body as sent, before the schema trims it: as the single routes do.
      const rawBodies = (req.body as { ops: Array<{ body?: unknown }> }).ops.map((op) => op.body);
      const caller = { tenant: tenantOf(req), keyId: authOf(req).keyId, scopes: authOf(req).scopes };
      const replay = (trx: Parameters<typeof replayOperations>[0]) => replayOperations(trx, deps, caller, body.ops, rawBodies);
      const results = req.tx ? await replay(req.tx) : await deps.db.transaction().execute(replay);
      res.json({ results });
    },
  }),
];

export const kioskReplayRoutes = (deps: RouteDeps) => routerOf(kioskReplayRouteList, deps, deps);
