import express, { type Router } from 'express';
import QRCode from 'qrcode';
import {
  AccessCodeEnvelope,
  AccessCodePage,
  AccessCodeStats,
  BulkAccessCodes,
  BulkCreateAccessCodesRequest,
  BulkRevokeAccessCodesRequest,
  CodeFeed,
  CodeFeedQuery,
  CodeIdParams,
  CreateAccessCodeRequest,
  ListAccessCodesQuery,
  PassKeys,
  PassKeysQuery,
  PassSent,
  QrQuery,
  RevokeAccessCodeRequest,
  StatsQuery,
  ValidationResult,
  AlreadyInsideError,
} from '../../shared/schemas/access.ts';
import { narrowedToSite } from '../db/tenant.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { gateRoute, routeFor, routerOf } from '../http/define-route.ts';
import { auditHookOf } from '../audit/middleware.ts';
import { sendReplay } from '../idempotency/middleware.ts';
import { hostTextsOf, passTextsOf } from '../messages/service.ts';
import { PASS_SENDS_PER_CODE_HOUR, PASS_SENDS_PER_ORGANIZATION_HOUR, passImageOf, sendPassByText } from './pass-links.ts';
import type { RouteDeps } from '../route-deps.ts';
import {
  accessCodeFeed,
  accessCodeStats,
  createAccessCode,
  createAccessCodesInBulk,
  getAccessCode,
  listAccessCodes,
  revokeAccessCode,
  revokeAccessCodesInBulk,
  validateAccessCodeOnce,
} from './service.ts';
import { passKeysOf } from './pass-keys.ts';

const route = routeFor<RouteDeps>();
const tags = ['Access codes'];
const issuer = (req: Parameters<typeof tenantOf>[0], deps: RouteDeps) => ({
  clock: deps.clock,
  webhookQueue: deps.webhookQueue,
  secretBox: deps.secretBox,
  codePrefix: authOf(req).organization.code_prefix,
});

export const accessCodeRouteList = [
  route({
    method: 'post',
    path: '/access-codes',
    access: 'access_codes:write',
    idempotent: true,
    body: CreateAccessCodeRequest,
    operationId: 'createAccessCode',
    tags,
    summary: 'Generate an access code',
    description: '`<PREFIX>-XXXX` from `ABCDEFGHJKLMNPQRSTUVWXYZ23456789`, unique among live codes. `qr_payload` is the signed pass.',
    responses: { ...ok(201, 'Created', AccessCodeEnvelope), ...errors() },
    async handler({ body, db }, req, res, deps) {
      const access_code = await createAccessCode(db, issuer(req, deps), tenantOf(req), body);
      res.status(201).json({ access_code });
    },
  }),
  route({
    method: 'post',
    path: '/access-codes/bulk',
    access: 'access_codes:write',
    idempotent: true,
    body: BulkCreateAccessCodesRequest,
    operationId: 'createAccessCodesInBulk',
    tags,
    summary: 'Generate up to 50 codes at once',
    description: 'All or nothing: one bad visitor is a 400 naming `visitors[i].field` and no code is made.',
    responses: { ...ok(201, 'Created', BulkAccessCodes), ...errors() },
    async handler({ body, db }, req, res, deps) {
      const access_codes = await createAccessCodesInBulk(db, issuer(req, deps), tenantOf(req), body);
      res.status(201).json({ access_codes, count: access_codes.length });
    },
  }),
  route({
    method: 'post',
    path: '/access-codes/bulk-revoke',
    access: 'access_codes:write',
    idempotent: true,
    body: BulkRevokeAccessCodesRequest,
    operationId: 'revokeAccessCodesInBulk',
    tags,
    summary: 'Revoke up to 100 codes at once',
    description:
      'All or nothing, in one transaction: a code not found (or another organization\'s or environment\'s) is a 404 naming it, a code that is not active a 409 naming it and its status, and then no code is revoked. Each code revoked gets its `access_code.revoked` event and kiosk feed change, as a single revoke does.',
    responses: { ...ok(200, 'Revoked, in the order asked', BulkAccessCodes), ...errors(404, 409) },
    async handler({ body, db }, req, res, deps) {
      const access_codes = await revokeAccessCodesInBulk(db, deps, tenantOf(req), body.code_ids, body.reason);
      res.json({ access_codes, count: access_codes.length });
    },
  }),
  route({
    ...gateRoute('validate'),
    // Its key claimed in the validation's own transaction, which a tenant's validations share on PostgreSQL.
    idempotent: 'claimed-by-service',
    operationId: 'validateAccessCode',
    tags,
    summary: 'Validate (consume) a code or signed pass, and check the visitor in',
    description: [
      'An invalid code is not an error: 200 with `valid: false` and a reason, checked in this order:',
      '`Code not found`, `Code has been revoked`, `Maximum uses reached`, `Code not yet active`, `Code has expired`.',
      'A valid code consumes one use atomically (N concurrent validations of a code with M uses admit min(N, M)) and creates an access log (`log_id`).',
      '`scanned_at` replays an offline scan: validity is judged then. More than 30 `Code not found` answers a minute for one key: 429 for typed codes (four characters are guessable). A pass whose signature verifies is never refused by this guard, nor counted by it; a pass whose signature does not verify is treated as a typed code.',
      '`already_inside` is the gate\'s "Already inside" (the reasons above stay as they are): with `hold`, a code whose holder has an open visit at the site at the time of the scan is answered 409 with that visit (`open_visit`), nothing consumed and nobody checked in; with `admit`, the guard lets them in anyway and the access log records it (`already_inside_override`). A code of several uses admits again once its earlier visit is checked out.',
    ].join(' '),
    responses: {
      ...ok(200, 'The decision', ValidationResult),
      ...errors(),
      409: { description: 'Only with `already_inside: hold`: the holder of the code is already inside; nothing was consumed', content: { 'application/json': { schema: AlreadyInsideError } } },
    },
    async handler({ body, db }, req, res, deps) {
      const guard = {
        clock: deps.clock,
        webhookQueue: deps.webhookQueue,
        verifyPass: deps.verifyPass,
        rateLimitStore: deps.rateLimitStore,
        keyId: authOf(req).keyId,
        hostTexts: hostTextsOf(deps.texting),
      };
      const keyed = req.keyClaim && { key: req.keyClaim, audit: auditHookOf(req) };
      const answer = await validateAccessCodeOnce(db, guard, tenantOf(req), body, keyed);
      if ('replayed' in answer) sendReplay(res, answer.replayed);
      else res.json(answer);
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/access-codes/stats',
    access: 'access_codes:read',
    query: StatsQuery,
    operationId: 'accessCodeStats',
    tags,
    summary: 'Counts of codes created in a window',
    description: '`total_used` counts codes used at least once.',
    responses: { ...ok(200, 'Counts', AccessCodeStats), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await accessCodeStats(db, narrowedToSite(tenantOf(req), query.site_id), query));
    },
  }),
  route({
    method: 'get',
    path: '/access-codes/changes',
    access: 'access_codes:validate',
    query: CodeFeedQuery,
    operationId: 'accessCodeChanges',
    tags: ['Gate kiosk'],
    summary: 'Incremental feed of code changes since a cursor (kiosk cache)',
    description: [
      'Every code created, used, revoked, expired or erased since `cursor`, in its current state, in commit order.',
      'Start with `cursor=0`; keep `next_cursor`; repeat while `has_more`. A change committed late is never skipped: change numbers are handed out in commit order per organization and environment.',
    ].join(' '),
    responses: { ...ok(200, 'Changes', CodeFeed), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await accessCodeFeed(deps.db, tenantOf(req), query.cursor, query.limit));
    },
  }),
  route({
    method: 'get',
    path: '/access-codes/pass-keys',
    access: 'access_codes:validate',
    query: PassKeysQuery,
    operationId: 'passKeys',
    tags: ['Gate kiosk'],
    summary: 'Public Ed25519 keys that verify signed passes offline',
    description: [
      'A pass is `TS1.<KID>.<CODE>.<ULID>.<VALID_FROM_MS>.<VALID_UNTIL_MS>.<MAX_USES>.<SIGNATURE>`;',
      'the signature (Crockford base32 of 64 bytes) is Ed25519 over everything before its last dot, with the key whose `kid` the pass names.',
      'Case does not matter. The code id is `code_` + ULID.',
      "Each site signs its codes with its own key, so the key names the pass's site (`site_id`): a kiosk of another site refuses it with `Code is for another site`.",
      "Keys with `site_id` null are the organization's: they signed codes made before sites, valid at every site until they expire.",
      'Every active site has its key from the first call, before any code is issued there, so a kiosk set up on a new site can verify its first passes.',
      "With `site_id`, only that site's keys and the organization's.",
    ].join(' '),
    responses: { ...ok(200, 'Keys', PassKeys), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await passKeysOf(deps.db, deps, tenantOf(req), query.site_id));
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/access-codes',
    access: 'access_codes:read',
    query: ListAccessCodesQuery,
    operationId: 'listAccessCodes',
    tags,
    summary: 'List access codes, newest first',
    description: '`from_date`/`to_date` filter on `created_at`.',
    responses: { ...ok(200, 'One page', AccessCodePage), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await listAccessCodes(db, tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/access-codes/:codeId',
    access: 'access_codes:read',
    params: CodeIdParams,
    operationId: 'getAccessCode',
    tags,
    summary: 'Get an access code',
    responses: { ...ok(200, 'The code', AccessCodeEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ access_code: await getAccessCode(deps.db, tenantOf(req), params.codeId) });
    },
  }),
  route({
    method: 'get',
    path: '/access-codes/:codeId/qr',
    access: 'access_codes:read',
    params: CodeIdParams,
    query: QrQuery,
    operationId: 'accessCodeQr',
    tags,
    summary: "QR image of the code's signed pass",
    description: 'SVG by default, PNG with `?format=png`. Send it to the visitor.',
    responses: {
      200: {
        description: 'The image',
        content: { 'image/svg+xml': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string', format: 'binary' } } },
      },
      ...errors(404),
    },
    async handler({ params, query }, req, res, deps) {
      const code = await getAccessCode(deps.db, tenantOf(req), params.codeId);
      res.set('Cache-Control', 'private, no-store');
      if (query.format === 'png') {
        res.type('image/png').send(await QRCode.toBuffer(code.qr_payload, { errorCorrectionLevel: 'M', margin: 4, scale: 8 }));
      } else {
        res.type('image/svg+xml').send(await QRCode.toString(code.qr_payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
      }
    },
  }),
  route({
    method: 'post',
    path: '/access-codes/:codeId/send',
    access: 'access_codes:write',
    idempotent: true,
    params: CodeIdParams,
    operationId: 'sendAccessCodePass',
    tags,
    summary: "Text the visitor their pass: a short link to the pass's image",
    description: `Queues a text to the code's \`visitor_phone\` (a mobile number) with the code and a link, \`PUBLIC_URL/p/<token>\`, that opens the pass as an image (the QR code of the signed pass, the code, when and where). The token is shown only in the text and kept only as its hash; the link is dead (410) once the code is revoked, used up or past \`valid_until\`. Live codes only: a sandbox code, a server without an SMS gateway, a code that no longer opens the gate and a visitor phone a text cannot reach are each a 409 saying which. At most ${PASS_SENDS_PER_CODE_HOUR} sends of one code and ${PASS_SENDS_PER_ORGANIZATION_HOUR} of an organization in any hour: 429 with Retry-After. The text is listed in \`GET /messages\` (reason \`visitor_pass\`, the link cut short) to callers with \`logs:read\`.`,
    responses: { ...ok(202, 'Queued for the gateway', PassSent), ...errors(404, 409, 429) },
    async handler({ params, db }, req, res, deps) {
      res.status(202).json(await sendPassByText(db, deps, passTextsOf(deps.texting), tenantOf(req), params.codeId));
    },
  }),
  route({
    method: 'delete',
    path: '/access-codes/:codeId',
    access: 'access_codes:write',
    idempotent: true,
    params: CodeIdParams,
    body: RevokeAccessCodeRequest,
    operationId: 'revokeAccessCode',
    tags,
    summary: 'Revoke an access code',
    description: 'Validation afterwards answers `Code has been revoked`. A code that is not active: 409 naming its status.',
    responses: { ...ok(200, 'Revoked', AccessCodeEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ access_code: await revokeAccessCode(db, deps, tenantOf(req), params.codeId, body.reason) });
    },
  }),
];

export const accessCodeRoutes = (deps: RouteDeps) => routerOf(accessCodeRouteList, deps, deps);

/**
 * `/p/<token>`: the pass a visitor was texted, outside the partner API, authenticated by the
 * token in the link alone (pass-links.ts). An image that runs nothing: no script, no styles from
 * elsewhere, never cached, never sending the address on.
 */
export function passLinkRoutes(deps: Pick<RouteDeps, 'db' | 'clock'>): Router {
  const router = express.Router();
  router.get('/:token', async (req, res) => {
    const answer = await passImageOf(deps.db, deps.clock, req.params.token);
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" });
    if ('svg' in answer) {
      res.type('image/svg+xml').send(answer.svg);
      return;
    }
    res
      .status(answer.status)
      .type('text/plain')
      .send(answer.status === 410 ? 'This pass is no longer valid: it was revoked, used up or has expired. Ask your host for a new one.' : 'No such pass.');
  });
  return router;
}
