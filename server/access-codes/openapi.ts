import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AccessCodeEnvelope,
  AccessCodePage,
  AccessCodeStats,
  BulkAccessCodes,
  BulkCreateAccessCodesRequest,
  CodeFeed,
  CodeFeedQuery,
  CodeIdParams,
  CreateAccessCodeRequest,
  ListAccessCodesQuery,
  PassKeys,
  QrQuery,
  RevokeAccessCodeRequest,
  StatsQuery,
  ValidateAccessCodeRequest,
  ValidationResult,
} from '../../shared/schemas/access.ts';
import { errors, idempotencyHeader, json, ok } from '../docs/responses.ts';

const tags = ['Access codes'];

export const accessCodePaths: ZodOpenApiPathsObject = {
  '/access-codes': {
    post: {
      operationId: 'createAccessCode',
      tags,
      summary: 'Generate an access code',
      description:
        'Scope `access_codes:write`. `<PREFIX>-XXXX` from `ABCDEFGHJKLMNPQRSTUVWXYZ23456789`, unique among live codes. `qr_payload` is the signed pass.',
      parameters: [idempotencyHeader],
      requestBody: json(CreateAccessCodeRequest),
      responses: { ...ok(201, 'Created', AccessCodeEnvelope), ...errors() },
    },
    get: {
      operationId: 'listAccessCodes',
      tags,
      summary: 'List access codes, newest first',
      description: 'Scope `access_codes:read`. `from_date`/`to_date` filter on `created_at`.',
      requestParams: { query: ListAccessCodesQuery },
      responses: { ...ok(200, 'One page', AccessCodePage), ...errors() },
    },
  },
  '/access-codes/bulk': {
    post: {
      operationId: 'createAccessCodesInBulk',
      tags,
      summary: 'Generate up to 50 codes at once',
      description: 'Scope `access_codes:write`. All or nothing: one bad visitor is a 400 naming `visitors[i].field` and no code is made.',
      parameters: [idempotencyHeader],
      requestBody: json(BulkCreateAccessCodesRequest),
      responses: { ...ok(201, 'Created', BulkAccessCodes), ...errors() },
    },
  },
  '/access-codes/validate': {
    post: {
      operationId: 'validateAccessCode',
      tags,
      summary: 'Validate (consume) a code or signed pass, and check the visitor in',
      description: [
        'Scope `access_codes:validate`. An invalid code is not an error: 200 with `valid: false` and a reason, checked in this order:',
        '`Code not found`, `Code has been revoked`, `Maximum uses reached`, `Code not yet active`, `Code has expired`.',
        'A valid code consumes one use atomically (N concurrent validations of a code with M uses admit min(N, M)) and creates an access log (`log_id`).',
        '`scanned_at` replays an offline scan: validity is judged then. More than 30 `Code not found` answers a minute for one key: 429.',
      ].join(' '),
      parameters: [idempotencyHeader],
      requestBody: json(ValidateAccessCodeRequest),
      responses: { ...ok(200, 'The decision', ValidationResult), ...errors() },
    },
  },
  '/access-codes/stats': {
    get: {
      operationId: 'accessCodeStats',
      tags,
      summary: 'Counts of codes created in a window',
      description: 'Scope `access_codes:read`. `total_used` counts codes used at least once.',
      requestParams: { query: StatsQuery },
      responses: { ...ok(200, 'Counts', AccessCodeStats), ...errors() },
    },
  },
  '/access-codes/changes': {
    get: {
      operationId: 'accessCodeChanges',
      tags: ['Gate kiosk'],
      summary: 'Incremental feed of code changes since a cursor (kiosk cache)',
      description: [
        'Scope `access_codes:validate`. Every code created, used, revoked, expired or erased since `cursor`, in its current state, in commit order.',
        'Start with `cursor=0`; keep `next_cursor`; repeat while `has_more`. A change committed late is never skipped: change numbers are handed out in commit order per organization and environment.',
      ].join(' '),
      requestParams: { query: CodeFeedQuery },
      responses: { ...ok(200, 'Changes', CodeFeed), ...errors() },
    },
  },
  '/access-codes/pass-keys': {
    get: {
      operationId: 'passKeys',
      tags: ['Gate kiosk'],
      summary: 'Public Ed25519 keys that verify signed passes offline',
      description: [
        'Scope `access_codes:validate`. A pass is `TS1.<KID>.<CODE>.<ULID>.<VALID_FROM_MS>.<VALID_UNTIL_MS>.<MAX_USES>.<SIGNATURE>`;',
        'the signature (Crockford base32 of 64 bytes) is Ed25519 over everything before its last dot, with the key whose `kid` the pass names.',
        'Case does not matter. The code id is `code_` + ULID.',
        'The key exists from the first call, before any code is issued, so a kiosk set up on a new organization can verify its first passes.',
      ].join(' '),
      responses: { ...ok(200, 'Keys', PassKeys), ...errors() },
    },
  },
  '/access-codes/{codeId}': {
    get: {
      operationId: 'getAccessCode',
      tags,
      summary: 'Get an access code',
      description: 'Scope `access_codes:read`.',
      requestParams: { path: CodeIdParams },
      responses: { ...ok(200, 'The code', AccessCodeEnvelope), ...errors(404) },
    },
    delete: {
      operationId: 'revokeAccessCode',
      tags,
      summary: 'Revoke an access code',
      description: 'Scope `access_codes:write`. Validation afterwards answers `Code has been revoked`. A code that is not active: 409 naming its status.',
      requestParams: { path: CodeIdParams },
      parameters: [idempotencyHeader],
      requestBody: { ...json(RevokeAccessCodeRequest), required: false },
      responses: { ...ok(200, 'Revoked', AccessCodeEnvelope), ...errors(404, 409) },
    },
  },
  '/access-codes/{codeId}/qr': {
    get: {
      operationId: 'accessCodeQr',
      tags,
      summary: "QR image of the code's signed pass",
      description: 'Scope `access_codes:read`. SVG by default, PNG with `?format=png`. Send it to the visitor.',
      requestParams: { path: CodeIdParams, query: QrQuery },
      responses: {
        200: {
          description: 'The image',
          content: { 'image/svg+xml': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string', format: 'binary' } } },
        },
        ...errors(404),
      },
    },
  },
};
