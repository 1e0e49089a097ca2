import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AccessLogEnvelope,
  AccessLogPage,
  AccessLogStats,
  CheckoutRequest,
  CreateAccessLogRequest,
  CurrentVisitors,
  CurrentVisitorsQuery,
  ListAccessLogsQuery,
  LogIdParams,
  StatsQuery,
  UpdateVisitorPolicies,
  VisitorPolicies,
} from '../../shared/schemas/access.ts';
import { errors, idempotencyHeader, json, ok } from '../docs/responses.ts';

const tags = ['Access logs'];

export const accessLogPaths: ZodOpenApiPathsObject = {
  '/access-logs': {
    post: {
      operationId: 'createAccessLog',
      tags,
      summary: 'Check in a visitor without a code (walk-in, delivery)',
      description: 'Scope `access_codes:write`. `checked_in_at` replays an offline walk-in (at most 7 days old).',
      parameters: [idempotencyHeader],
      requestBody: json(CreateAccessLogRequest),
      responses: { ...ok(201, 'Checked in', AccessLogEnvelope), ...errors() },
    },
    get: {
      operationId: 'listAccessLogs',
      tags,
      summary: 'List visits, newest check-in first',
      description: 'Scope `logs:read`. `from_date`/`to_date` filter on `checked_in_at` (a visit is created when it checks in).',
      requestParams: { query: ListAccessLogsQuery },
      responses: { ...ok(200, 'One page', AccessLogPage), ...errors() },
    },
  },
  '/access-logs/current-visitors': {
    get: {
      operationId: 'currentVisitors',
      tags,
      summary: 'Who is on the premises now',
      description: 'Scope `logs:read`. Checked in and not out, longest on premises first.',
      requestParams: { query: CurrentVisitorsQuery },
      responses: { ...ok(200, 'Visitors', CurrentVisitors), ...errors() },
    },
  },
  '/access-logs/stats': {
    get: {
      operationId: 'accessLogStats',
      tags,
      summary: 'Visit statistics for a window',
      description: 'Scope `logs:read`. Visits checked in within the window; `currently_on_premises` is now.',
      requestParams: { query: StatsQuery },
      responses: { ...ok(200, 'Counts', AccessLogStats), ...errors() },
    },
  },
  '/access-logs/{logId}': {
    get: {
      operationId: 'getAccessLog',
      tags,
      summary: 'Get a visit',
      description: 'Scope `logs:read`.',
      requestParams: { path: LogIdParams },
      responses: { ...ok(200, 'The visit', AccessLogEnvelope), ...errors(404) },
    },
  },
  '/access-logs/{logId}/checkout': {
    patch: {
      operationId: 'checkoutVisitor',
      tags,
      summary: 'Check a visitor out',
      description: 'Scope `access_codes:write`. Already checked out: 409. `checked_out_at` replays an offline checkout.',
      requestParams: { path: LogIdParams },
      parameters: [idempotencyHeader],
      requestBody: { ...json(CheckoutRequest), required: false },
      responses: { ...ok(200, 'Checked out', AccessLogEnvelope), ...errors(404, 409) },
    },
  },
  '/visitor-policies': {
    get: {
      operationId: 'getVisitorPolicies',
      tags: ['Organization'],
      summary: "The organization's visitor policies",
      description: 'Scope `admin`.',
      responses: { ...ok(200, 'Policies', VisitorPolicies), ...errors() },
    },
    patch: {
      operationId: 'updateVisitorPolicies',
      tags: ['Organization'],
      summary: 'Set auto-checkout and retention',
      description:
        'Scope `admin`. `auto_checkout_hours`: anyone still checked in after N hours is checked out at arrival + N h (`auto_checked_out: true`). `retention_days`: visitor names and phones of visits closed, and of final codes, more than N days ago are erased; counts stay. `null` turns a policy off.',
      parameters: [idempotencyHeader],
      requestBody: json(UpdateVisitorPolicies),
      responses: { ...ok(200, 'Policies', VisitorPolicies), ...errors() },
    },
  },
};
