import { KIOSK_ID_PATTERN, KioskCertificateAnswer, KioskCertificateRequest, KioskEnvelope, KioskHeartbeatAnswer, KioskIdParams, KioskPage, ListKiosksQuery, RenameKioskRequest } from '../../shared/schemas/kiosks.ts';
import { tenantOf } from '../auth/context.ts';
import { badRequest } from '../http/errors.ts';
import { errors, ok } from '../http/responses.ts';
import { gateRoute, routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { certifyKiosk } from './identity.ts';
import { getKiosk, listKiosks, recordHeartbeat, renameKiosk, retire, type KioskTimes } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Gate kiosk'];
const timesOf = (deps: RouteDeps): KioskTimes => ({ clock: deps.clock, webhookQueue: deps.webhookQueue, offlineAfterS: deps.config.KIOSK_OFFLINE_AFTER_S });

/** Gate kiosks as their heartbeats describe them (docs/api.md, "Kiosks"). */
export const kioskRouteList = [
  route({
    ...gateRoute('heartbeat'),
    idempotent: true,
    params: KioskIdParams,
    // A report every 30 s per gate, not a change someone made: it would bury the audit log.
    audited: false,
    operationId: 'kioskHeartbeat',
    tags,
    summary: "A kiosk's heartbeat: its queue, last sync and clock",
    description: [
      'Sent by the kiosk every KIOSK_HEARTBEAT_S (default 30 s). The first heartbeat of a `kiosk_id` makes the kiosk; later ones update it (200 both).',
      'The server keeps its own receive time (`last_seen_at`) and the kiosk clock\'s skew against it. The first heartbeat after `kiosk.offline` raises `kiosk.online`.',
      'A retired kiosk stays retired: its heartbeat is recorded and raises no event. Kiosk ids are per organization and environment: the same id',
      'elsewhere is another kiosk, never this one; an id not in the kiosk format is a 400 naming `kioskId`. The kiosk sends each heartbeat under an',
      'Idempotency-Key of its own, so a retry is not recorded twice. Offline, a kiosk keeps only its latest heartbeat and sends it with its',
      'queue (`POST /kiosk/replay`, the same idempotency record); its skew is then not measured (null). Any clock is recorded, 1970 or 9999 included:',
      'a kiosk whose clock battery died still reports itself, its skew showing how far off it is. A kiosk standing at a site beyond a key limited to sites',
      'is a 404 to that key, as another organization\'s is: its heartbeat neither moves nor wakes it.',
    ].join(' '),
    responses: { ...ok(200, 'The kiosk as recorded, and its site', KioskHeartbeatAnswer), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      if (!KIOSK_ID_PATTERN.test(params.kioskId)) throw badRequest('kioskId must be kiosk_ followed by a ULID (26 characters), as the kiosk makes it at its first start');
      res.json(await recordHeartbeat(db, timesOf(deps), tenantOf(req), params.kioskId, body));
    },
  }),
  route({
    method: 'post',
    path: '/kiosks/:kioskId/certificate',
    // The kiosk's own key: the scope its heartbeat uses.
    access: 'access_codes:validate',
    idempotent: true,
    params: KioskIdParams,
    body: KioskCertificateRequest,
    operationId: 'certifyKiosk',
    tags,
    summary: "A kiosk's certificate for its peers at the site",
    description: [
      "The kiosk sends its own Ed25519 public key (its private key never leaves it) and a signature proving it holds it; the site's kiosk authority",
      '(a key pair of the site, made at its first use, separate from the pass-signing keys) signs a certificate binding the key to the kiosk, its site,',
      'organization and environment for 24 hours. The site\'s other kiosks check it with the authority\'s public key, without the server (docs/security.md,',
      '"Kiosk identities"). Kiosks renew with their heartbeat, so a retired kiosk, or one moved to another site, stops being trusted within a day.',
      'The kiosk must have sent a heartbeat (which places it at its site): an unknown kiosk, or one at a site beyond a key limited to sites, is a 404;',
      'a retired kiosk is a 409. Another public key than the one bound replaces it (a reinstalled kiosk); the audit log records each certificate.',
    ].join(' '),
    responses: { ...ok(200, 'The certificate, its claims, and the authority that checks it', KioskCertificateAnswer), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      if (!KIOSK_ID_PATTERN.test(params.kioskId)) throw badRequest('kioskId must be kiosk_ followed by a ULID (26 characters), as the kiosk makes it at its first start');
      res.json(await certifyKiosk(db, { clock: deps.clock, secretBox: deps.secretBox }, tenantOf(req), params.kioskId, body));
    },
  }),
  route({
    method: 'get',
    path: '/kiosks',
    access: 'logs:read',
    query: ListKiosksQuery,
    operationId: 'listKiosks',
    tags,
    summary: "List the organization's gate kiosks",
    description: '`status` is worked out now: `online` when heard from within KIOSK_OFFLINE_AFTER_S (default 120 s), else `offline`; `retired` once retired. Most recently installed first.',
    responses: { ...ok(200, 'One page', KioskPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listKiosks(deps.db, timesOf(deps), tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/kiosks/:kioskId',
    access: 'logs:read',
    params: KioskIdParams,
    operationId: 'getKiosk',
    tags,
    summary: 'Get a gate kiosk',
    responses: { ...ok(200, 'The kiosk', KioskEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ kiosk: await getKiosk(deps.db, timesOf(deps), tenantOf(req), params.kioskId) });
    },
  }),
  route({
    method: 'patch',
    path: '/kiosks/:kioskId',
    access: 'access_codes:write',
    idempotent: true,
    params: KioskIdParams,
    body: RenameKioskRequest,
    operationId: 'renameKiosk',
    tags,
    summary: 'Name a gate kiosk',
    responses: { ...ok(200, 'The kiosk', KioskEnvelope), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ kiosk: await renameKiosk(db, timesOf(deps), tenantOf(req), params.kioskId, body.name) });
    },
  }),
  route({
    method: 'delete',
    path: '/kiosks/:kioskId',
    access: 'access_codes:write',
    idempotent: true,
    params: KioskIdParams,
    operationId: 'retireKiosk',
    tags,
    summary: 'Retire a gate kiosk',
    description:
      'Takes the kiosk out of service: it is listed as `retired` and raises no `kiosk.offline` again (an outage under way is closed without `kiosk.online`). Its heartbeats, if it still sends them, are recorded and it stays retired. Already retired: 409.',
    responses: { ...ok(200, 'The retired kiosk', KioskEnvelope), ...errors(404, 409) },
    async handler({ params, db }, req, res, deps) {
      res.json({ kiosk: await retire(db, timesOf(deps), tenantOf(req), params.kioskId) });
    },
  }),
];

export const kioskRoutes = (deps: RouteDeps) => routerOf(kioskRouteList, deps, deps);
