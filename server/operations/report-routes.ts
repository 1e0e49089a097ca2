import { z } from 'zod';
import { IncidentIntervals, IntervalReport, StaffIncidentIntervalsQuery, StaffIntervalQuery } from '../../shared/schemas/intervals.ts';
import { STAFF_ROLES } from '../../shared/schemas/staff.ts';
import { intervalResponse, sendCsv } from '../http/csv.ts';
import { routeFor } from '../http/define-route.ts';
import { errors } from '../http/responses.ts';
import { incidentIntervalsCsv, intervalReportCsv } from '../incidents/intervals.ts';
import type { RouteDeps } from '../route-deps.ts';
import { staffIncidentIntervals, staffIntervalReport } from './reports.ts';

const route = routeFor<RouteDeps>();
const tags = ['Reports'];

/** The response intervals for Tsaro's staff (issue #47): every staff role reads them. */
export const reportRouteList = [
  route({
    method: 'get',
    path: '/reports/intervals',
    access: 'staff',
    guardOptions: { staffRoles: STAFF_ROLES },
    query: StaffIntervalQuery,
    operationId: 'responseIntervals',
    tags,
    summary: 'The response intervals of live incidents: p50 and p90 per day, site, service area, partner or responder',
    description:
      'Every live incident created in the window (default the 30 days to now, at most 92 days; drills left out), across organizations or one (`organization_id`): call processing (created to the first offer), first offer to accepted, turnout (accepted to en route), travel (en route to on scene), total (created to on scene); each milestone the first time it happened. Exact, interpolated between the nearest ranks (docs/operations.md, "The response intervals"). `format=csv`: the same as CSV, the overall row first.',
    responses: { ...intervalResponse(IntervalReport), ...errors(403) },
    async handler({ query }, _req, res, deps) {
      const report = await staffIntervalReport(deps.db, deps.clock, query);
      if (query.format === 'csv') sendCsv(res, `response-intervals-${query.group_by}.csv`, intervalReportCsv(report));
      else res.json(report);
    },
  }),
  route({
    method: 'get',
    path: '/reports/intervals/incidents',
    access: 'staff',
    guardOptions: { staffRoles: STAFF_ROLES },
    query: StaffIncidentIntervalsQuery,
    operationId: 'incidentIntervals',
    tags,
    summary: "Each live incident's times: created, first offer, accepted, en route, on scene, resolved",
    description: 'Oldest first, the same window and rules as the report (at most 50,000 incidents: `truncated`). `format=csv`: one row per incident.',
    responses: { ...intervalResponse(z.object({ from_date: z.string(), to_date: z.string(), truncated: z.boolean(), incidents: z.array(IncidentIntervals) })), ...errors(403) },
    async handler({ query }, _req, res, deps) {
      const answer = await staffIncidentIntervals(deps.db, deps.clock, query);
      if (query.format === 'csv') sendCsv(res, 'incident-intervals.csv', incidentIntervalsCsv(answer.incidents));
      else res.json(answer);
    },
  }),
];
