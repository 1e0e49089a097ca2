import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import type { z } from 'zod';
import { ErrorBody } from '../../shared/schemas/common.ts';

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request; the message names the failed field',
  401: 'Missing, malformed, unknown or revoked API key',
  402: 'Plan without API access, or subscription suspended',
  403: 'The key lacks the required scope (named in the message)',
  404: 'Not found, or it belongs to another organization or environment',
  409: 'State conflict; the message states the current status',
  413: 'Request body too large',
  429: 'Rate limit exceeded; see Retry-After',
  503: 'The database is not answering (down, restarting or too slow); nothing was acknowledged. Retry after Retry-After, with the same Idempotency-Key for a write',
};

const rateHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed per sliding minute for this key', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': {
    description: 'ISO 8601: when the oldest counted request leaves the window',
    schema: { type: 'string' as const, format: 'date-time' },
  },
};

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export function ok(status: 200 | 201 | 202, description: string, schema: z.ZodType): ZodOpenApiResponsesObject {
  return { [status]: { description, headers: rateHeaders, content: { 'application/json': { schema } } } };
}

/** The authenticated errors every guarded route can answer, plus the ones named. */
export function errors(...statuses: number[]): ZodOpenApiResponsesObject {
  const all = [...new Set([400, 401, 402, 403, 429, 503, ...statuses])].sort();
  return Object.fromEntries(
    all.map((status) => [
      String(status),
      {
        description: ERROR_MEANINGS[status] ?? 'Error',
        ...((status === 429 || status === 503) && {
          headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' as const } } },
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    ]),
  );
}

export const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Up to 255 characters. The first answer is kept 24 h and replayed (header Idempotent-Replayed: true) for a retry with the same key; the same key with another path or body is a 400, one still in flight a 409. A key used by a caller who reaches sites you do not (a key or person limited to other sites) is a 409: its answer is never replayed to you, and the request does not run.',
  schema: { type: 'string' as const, maxLength: 255 },
};
