import type { Grouping, IncidentIntervals, IntervalReport } from '../../shared/schemas/intervals.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { INTERVAL_ROW_CAP, incidentIntervals, intervalReport, intervalWindow } from '../incidents/intervals.ts';
import { listAreas } from '../duty/service.ts';
import { liveIntervalRows } from './store.ts';

/**
 * The operations centre's response intervals (issue #47): every live incident of the window,
 * across organizations, per day, site, service area, partner or responder; and each incident's own times.
 * Drills and sandbox are left out (the simulated network's times measure nobody).
 */
export async function staffIntervalReport(db: Db, clock: Clock, query: { from_date?: string; to_date?: string; organization_id?: string; group_by: Grouping }): Promise<IntervalReport> {
  const window = intervalWindow(query, clock.now());
  const rows = await liveIntervalRows(db, window, query.organization_id);
  return intervalReport(rows, window, query.group_by, query.group_by === 'area' ? await listAreas(db) : []);
}

export async function staffIncidentIntervals(db: Db, clock: Clock, query: { from_date?: string; to_date?: string; organization_id?: string }): Promise<{ from_date: string; to_date: string; truncated: boolean; incidents: IncidentIntervals[] }> {
  const window = intervalWindow(query, clock.now());
  const rows = await liveIntervalRows(db, window, query.organization_id);
  return { from_date: window.from, to_date: window.to, truncated: rows.length > INTERVAL_ROW_CAP, incidents: rows.slice(0, INTERVAL_ROW_CAP).map(incidentIntervals) };
}
