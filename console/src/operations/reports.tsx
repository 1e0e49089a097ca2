import { useEffect, useState } from 'react';
import { DAY_MS } from '../../../shared/time.ts';
import { ErrorNote } from '../components/ui.tsx';
import { answerOf, type StaffClient, type StaffSchemas } from './client.ts';

type Report = StaffSchemas['IntervalReport'];
type Grouping = Report['group_by'];
export const INTERVAL_COLUMNS = [
  ['call_processing', 'Call processing'],
  ['offer_to_accept', 'Offer to accept'],
  ['turnout', 'Turnout'],
  ['travel', 'Travel'],
  ['total', 'Total'],
] as const;
const GROUPINGS: Record<Grouping, string> = { day: 'Day', site: 'Site', area: 'Area', organization: 'Partner', responder: 'Responder' };

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Seconds as people read a response time: 45 s, 3 min 20 s. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

/** One group's p50 / p90 per interval, as table cells. */
export function IntervalCells({ group }: { group: StaffSchemas['IntervalGroup'] }) {
  return (
    <>
      {INTERVAL_COLUMNS.map(([name]) => (
        <td key={name} title={`${group[name].count} incidents`}>
          {duration(group[name].p50_s)} / {duration(group[name].p90_s)}
        </td>
      ))}
    </>
  );
}

/**
 * The response intervals of the live network (issue #47): p50 and p90 of call processing, offer
 * to accept, turnout, travel and total per day, site, partner or responder, and the file of every
 * incident's times. The CSV links are the API's own answers (`format=csv`), with this session.
 */
export function StaffReports({ client }: { client: StaffClient }) {
  const [from, setFrom] = useState(() => isoDay(Date.now() - 6 * DAY_MS));
  const [to, setTo] = useState(() => isoDay(Date.now()));
  const [groupBy, setGroupBy] = useState<Grouping>('day');
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    answerOf(client.GET('/reports/intervals', { params: { query: { from_date: from, to_date: to, group_by: groupBy } } })).then(
      (answer) => setReport(answer as Report),
      (failure: Error) => setError(failure.message),
    );
  }, [client, from, to, groupBy]);
  const query = new URLSearchParams({ from_date: from, to_date: to, format: 'csv' });

  return (
    <main className="stack operations" data-testid="staff-reports">
      <h1>Response intervals</h1>
      <div className="row">
        <label className="stack-tight">
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="stack-tight">
          To
          <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <label className="stack-tight">
          Per
          <select value={groupBy} onChange={(e) => setGroupBy(e.target.value as Grouping)}>
            {(Object.keys(GROUPINGS) as Grouping[]).map((value) => (
              <option key={value} value={value}>
                {GROUPINGS[value]}
              </option>
            ))}
          </select>
        </label>
        <a href={`/v1/staff/reports/intervals?${query}&group_by=${groupBy}`} download>
          Download CSV
        </a>
        <a href={`/v1/staff/reports/intervals/incidents?${query}`} download>
          Every incident&apos;s times (CSV)
        </a>
      </div>
      <p className="muted small">Median / 90th percentile of live incidents created in the window (drills left out), exact over every incident. Call processing: created to first offer; turnout: accepted to en route; travel: en route to on scene; total: created to on scene.</p>
      <ErrorNote error={error} />
      {report && (
        <div className="table-wrap">
          <table data-testid="interval-table">
            <thead>
              <tr>
                <th scope="col">{GROUPINGS[report.group_by]}</th>
                <th scope="col">Incidents</th>
                {INTERVAL_COLUMNS.map(([name, label]) => (
                  <th key={name} scope="col">
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[report.overall, ...report.groups].map((group) => (
                <tr key={group.key} data-testid="interval-row" data-key={group.key}>
                  <td>{group.label}</td>
                  <td>{group.incidents}</td>
                  <IntervalCells group={group} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {report?.truncated && <p className="notice">The window holds more incidents than one report reads: narrow it.</p>}
    </main>
  );
}
