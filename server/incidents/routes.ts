import type { Request } from 'express';
import {
  AddNoteRequest,
  CancelIncidentRequest,
  CreateIncidentRequest,
  GuardReportRequest,
  IdempotentIncidentEnvelope,
  IncidentAnalytics,
  IncidentAnalyticsQuery,
  IncidentEnvelope,
  IncidentIdParams,
  IncidentPage,
  ListIncidentsQuery,
} from '../../shared/schemas/incidents.ts';
import { IntervalReport, PartnerIntervalQuery } from '../../shared/schemas/intervals.ts';
import { intervalResponse, sendCsv } from '../http/csv.ts';
import { intervalReportCsv } from './intervals.ts';
import { narrowedToSite } from '../db/tenant.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import type { Executor, IncidentRow } from '../db/schema.ts';
import { queueAllClear, queueGuardReportTexts } from '../messages/alarms.ts';
import type { AllClearCause } from '../messages/templates.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { auditHookOf } from '../audit/middleware.ts';
import { whenCommitted } from '../idempotency/middleware.ts';
import {
  acknowledgeIncident,
  addIncidentNote,
  cancelIncident,
  createIncident,
  getIncident,
  incidentAnalytics,
  listIncidents,
  partnerIntervalReport,
  reportFromGuard,
  type GuardReport,
} from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Incidents'];

const serviceDepsOf = (deps: RouteDeps) => ({
  clock: deps.clock,
  webhookQueue: deps.webhookQueue,
  windows: { dispatchWindowS: deps.config.DISPATCH_WINDOW_S, escalationWindowS: deps.config.ESCALATION_WINDOW_S },
  onCancelled: (trx: Executor, id: string) => deps.dispatcher.incidentCancelled(trx, id),
  allClear: (trx: Executor, row: IncidentRow, cause: AllClearCause) => queueAllClear(trx, deps.texting, row, cause),
  opening: deps.dispatcher.opening?.bind(deps.dispatcher),
});

// An SOS is never refused for the plan's budget: it is counted while the window has room and
// let through when it is full. Authentication, scope and idempotency apply as to any request.
const isSos = (req: Request) => (req.body as { category?: unknown } | undefined)?.category === 'sos';

export const incidentRouteList = [
  route({
    method: 'post',
    path: '/incidents',
    access: 'incidents:write',
    guardOptions: { neverRefuse: isSos },
    idempotent: true,
    body: CreateIncidentRequest,
    operationId: 'createIncident',
    tags,
    summary: 'Report an incident',
    description:
      'The incident is answered already `dispatching`, its timeline holding `created` and `dispatched`. A body `idempotency_key` seen before answers the first incident with 200 and `idempotent: true`. An SOS (`category: sos`) is never refused for the plan\'s rate limit: it is counted in the key\'s window while the window has room and let through when it is full (key, scope and idempotency still apply).',
    responses: {
      ...ok(201, 'Created and dispatching', IncidentEnvelope),
      ...ok(200, 'The incident first created with this idempotency_key', IdempotentIncidentEnvelope),
      ...errors(409),
      429: {
        ...(errors()['429'] as object),
        description: 'Rate limit exceeded; see Retry-After. Never answered to an SOS (`category: sos`): an SOS past the limit is still created.',
      },
    },
    async handler({ body, db }, req, res, deps) {
      // The audit entry commits with the SOS: no commit of its own after the answer.
      const { incident, created } = await createIncident(db, { ...serviceDepsOf(deps), audit: auditHookOf(req) }, tenantOf(req), body);
      if (!created) {
        res.status(200).json({ incident, idempotent: true });
        return;
      }
      whenCommitted(req, () => deps.dispatcher.incidentOpened(incident));
      res.status(201).json({ incident });
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/incidents',
    access: 'incidents:read',
    query: ListIncidentsQuery,
    operationId: 'listIncidents',
    tags,
    summary: 'List incidents, newest first',
    description: 'Only the calling organization and environment. `status=active` lists every active status at once.',
    responses: { ...ok(200, 'One page', IncidentPage), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await listIncidents(db, tenantOf(req), query));
    },
  }),
  // Before /incidents/:incidentId, which would take `analytics` for an id.
  route({
    method: 'get',
    lane: 'reads',
    path: '/incidents/analytics',
    access: 'analytics:read',
    query: IncidentAnalyticsQuery,
    operationId: 'getIncidentAnalytics',
    tags,
    summary: 'Counts and response times of the incidents created in a window',
    description:
      'Over the incidents created at or after `from_date` and before `to_date` (either may be left out): counts by category, current status and severity (every value, zeros included), and the median and 90th percentile of the seconds to assign and to arrive.',
    responses: { ...ok(200, 'The figures', IncidentAnalytics), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await incidentAnalytics(db, narrowedToSite(tenantOf(req), query.site_id), query));
    },
  }),
  // Before /incidents/:incidentId, as analytics.
  route({
    method: 'get',
    lane: 'reads',
    path: '/incidents/intervals',
    access: 'analytics:read',
    query: PartnerIntervalQuery,
    operationId: 'getResponseIntervals',
    tags,
    summary: 'The response intervals of your incidents: p50 and p90 per day, site or responder',
    description:
      "For the live or sandbox incidents of the key's environment created in the window (drills left out), each interval's count, median and 90th percentile in seconds: call processing (created to the first offer), first offer to accepted, turnout (accepted to en route), travel (en route to on scene) and total (created to on scene). Each milestone is the first time it happened. Exact over every incident of the window, interpolated between the nearest ranks (docs/api.md, \"Response intervals\"). `format=csv` answers the same as a CSV file, one row per group, the overall row first.",
    responses: { ...intervalResponse(IntervalReport), ...errors() },
    async handler({ query, db }, req, res, deps) {
      const report = await partnerIntervalReport(db, deps.clock, narrowedToSite(tenantOf(req), query.site_id), query);
      if (query.format === 'csv') sendCsv(res, `response-intervals-${query.group_by}.csv`, intervalReportCsv(report));
      else res.json(report);
    },
  }),
  route({
    method: 'get',
    path: '/incidents/:incidentId',
    access: 'incidents:read',
    params: IncidentIdParams,
    operationId: 'getIncident',
    tags,
    summary: 'Get an incident',
    responses: { ...ok(200, 'The incident', IncidentEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ incident: await getIncident(deps.db, tenantOf(req), params.incidentId) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/cancel',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    body: CancelIncidentRequest,
    operationId: 'cancelIncident',
    tags,
    summary: 'Cancel an active incident',
    description:
      "The reason goes into the timeline, with who cancelled: `Cancelled by partner: <reason>` for an API key, `Cancelled by <name>: <reason>` for a person signed in to the console. A live incident at a site whose alarm had been texted sends each number it reached the all-clear (`reason: all_clear`, once per incident; `GET /messages`), and alarm texts not yet sent are `withdrawn`. Not active: 409 `Incident is already <status>`.",
    responses: { ...ok(200, 'Cancelled', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ incident: await cancelIncident(db, serviceDepsOf(deps), tenantOf(req), params.incidentId, body.reason, authOf(req).actor) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/notes',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    body: AddNoteRequest,
    operationId: 'addIncidentNote',
    tags,
    summary: 'Add a note to an active incident',
    description:
      'A timeline entry with `event: note` at the current status: the message as written for an API key, `<name>: <message>` for a person signed in to the console. Not active: 409.',
    responses: { ...ok(200, 'The incident with the note appended', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ incident: await addIncidentNote(db, serviceDepsOf(deps), tenantOf(req), params.incidentId, body.message, authOf(req).actor) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/acknowledge',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    operationId: 'acknowledgeIncident',
    tags,
    summary: 'Acknowledge an escalated or unresponsive incident',
    description:
      'An operator has seen it: a timeline entry `acknowledged` at the current status naming who (the console person\'s email, or the API key\'s name), a new `version` and an `incident.updated` event. The status does not change. Any other status: 409 naming it.',
    responses: { ...ok(200, 'The incident with the acknowledgement appended', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, db }, req, res, deps) {
      const by = authOf(req).actor;
      res.json({ incident: await acknowledgeIncident(db, serviceDepsOf(deps), tenantOf(req), params.incidentId, by) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/guard-report',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    body: GuardReportRequest,
    operationId: 'reportFromGuard',
    tags,
    summary: 'The gate guard reports what they did: called for help, or a false alarm',
    description:
      "A timeline entry (`called_for_help` or `false_alarm`) naming the guard, at the current status, a new `version` and an `incident.updated` event. The status does not change: a false alarm is closed by an operator. A live incident at a site also texts the site's call list (`GET /messages`): `called_for_help` as an alarm; `false_alarm` ends the alarm texts (none follow, those not yet sent are `withdrawn`) and sends the all-clear to each number an alarm text had reached, once per incident. A finished incident: 409. A kiosk that was offline sends `reported_at`.",
    responses: { ...ok(200, 'The incident with the report appended', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      const texts = (trx: Executor, row: IncidentRow, reason: GuardReport, guard?: string) => queueGuardReportTexts(trx, deps.texting, row, reason, guard);
      res.json({ incident: await reportFromGuard(db, { ...serviceDepsOf(deps), texts }, tenantOf(req), params.incidentId, body) });
    },
  }),
];

export const incidentRoutes = (deps: RouteDeps) => routerOf(incidentRouteList, deps, deps);
