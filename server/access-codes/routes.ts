import { Router } from 'express';
import QRCode from 'qrcode';
import {
  BulkCreateAccessCodesRequest,
  CodeFeedQuery,
  CodeIdParams,
  CreateAccessCodeRequest,
  ListAccessCodesQuery,
  QrQuery,
  RevokeAccessCodeRequest,
  StatsQuery,
  ValidateAccessCodeRequest,
} from '../../shared/schemas/access.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { ApiError } from '../http/errors.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb } from '../idempotency/middleware.ts';
import { retryAfterSeconds } from '../rate-limit/limiter.ts';
import {
  accessCodeFeed,
  accessCodeStats,
  createAccessCode,
  createAccessCodesInBulk,
  getAccessCode,
  listAccessCodes,
  passKeysOf,
  revokeAccessCode,
  validateAccessCode,
} from './service.ts';

/** Four characters are guessable: more than this many unknown codes a minute from one key is a 429. */
export const UNKNOWN_CODES_PER_MINUTE = 30;

export function accessCodeRoutes(deps: RouteDeps): Router {
  const router = Router();
  const issuer = (req: Parameters<typeof tenantOf>[0]) => ({ clock: deps.clock, codePrefix: authOf(req).organization.code_prefix });

  router.post('/access-codes', deps.guard('access_codes:write'), deps.idempotent, async (req, res) => {
    const body = parseInput(CreateAccessCodeRequest, req.body, 'body');
    const access_code = await createAccessCode(requestDb(req, deps.db), issuer(req), tenantOf(req), body);
    res.status(201).json({ access_code });
  });

  router.post('/access-codes/bulk', deps.guard('access_codes:write'), deps.idempotent, async (req, res) => {
    const body = parseInput(BulkCreateAccessCodesRequest, req.body, 'body');
    const access_codes = await createAccessCodesInBulk(requestDb(req, deps.db), issuer(req), tenantOf(req), body);
    res.status(201).json({ access_codes, count: access_codes.length });
  });

  router.post('/access-codes/validate', deps.guard('access_codes:validate'), deps.idempotent, async (req, res) => {
    const body = parseInput(ValidateAccessCodeRequest, req.body, 'body');
    const bucket = `unknown-code:${authOf(req).keyId}`;
    const window = { nowMs: deps.clock.now().getTime(), windowMs: 60_000 };
    const seen = await deps.rateLimitStore.hit(bucket, UNKNOWN_CODES_PER_MINUTE, window.nowMs, window.windowMs, false);
    if (!seen.allowed) {
      const retryAfter = retryAfterSeconds(seen.resetAt ?? window.nowMs, window.nowMs);
      throw new ApiError(429, `Too many unknown codes from this key; retry in ${retryAfter} s`, { 'Retry-After': String(retryAfter) });
    }
    const result = await validateAccessCode(requestDb(req, deps.db), deps.clock, tenantOf(req), body);
    if (!result.valid && result.reason === 'Code not found') {
      await deps.rateLimitStore.hit(bucket, UNKNOWN_CODES_PER_MINUTE, window.nowMs, window.windowMs, true);
    }
    res.json(result);
  });

  router.get('/access-codes/stats', deps.guard('access_codes:read'), async (req, res) => {
    const query = parseInput(StatsQuery, req.query, 'query');
    res.json(await accessCodeStats(deps.db, tenantOf(req), query));
  });

  router.get('/access-codes/changes', deps.guard('access_codes:validate'), async (req, res) => {
    const query = parseInput(CodeFeedQuery, req.query, 'query');
    res.json(await accessCodeFeed(deps.db, tenantOf(req), query.cursor, query.limit));
  });

  router.get('/access-codes/pass-keys', deps.guard('access_codes:validate'), async (req, res) => {
    res.json(await passKeysOf(deps.db, deps.clock, tenantOf(req)));
  });

  router.get('/access-codes', deps.guard('access_codes:read'), async (req, res) => {
    const query = parseInput(ListAccessCodesQuery, req.query, 'query');
    res.json(await listAccessCodes(deps.db, tenantOf(req), query));
  });

  router.get('/access-codes/:codeId', deps.guard('access_codes:read'), async (req, res) => {
    const { codeId } = parseInput(CodeIdParams, req.params, 'params');
    res.json({ access_code: await getAccessCode(deps.db, tenantOf(req), codeId) });
  });

  router.get('/access-codes/:codeId/qr', deps.guard('access_codes:read'), async (req, res) => {
    const { codeId } = parseInput(CodeIdParams, req.params, 'params');
    const { format } = parseInput(QrQuery, req.query, 'query');
    const code = await getAccessCode(deps.db, tenantOf(req), codeId);
    res.set('Cache-Control', 'private, no-store');
    if (format === 'png') {
      res.type('image/png').send(await QRCode.toBuffer(code.qr_payload, { errorCorrectionLevel: 'M', margin: 4, scale: 8 }));
    } else {
      res.type('image/svg+xml').send(await QRCode.toString(code.qr_payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
    }
  });

  router.delete('/access-codes/:codeId', deps.guard('access_codes:write'), deps.idempotent, async (req, res) => {
    const { codeId } = parseInput(CodeIdParams, req.params, 'params');
    const { reason } = parseInput(RevokeAccessCodeRequest, req.body, 'body');
    res.json({ access_code: await revokeAccessCode(requestDb(req, deps.db), deps.clock, tenantOf(req), codeId, reason) });
  });

  return router;
}
