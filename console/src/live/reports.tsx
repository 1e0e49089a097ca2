import { useState } from 'react';
import { ErrorNote } from '../components/ui.tsx';
import { useLoad } from '../context.tsx';
import { downloadCsv } from '../download.ts';
import type { Cell } from '../csv.ts';
import { clock } from './incidents.ts';
import { ScreenHeader } from '../components/layout.tsx';
import { DAY_MS } from '../../../shared/time.ts';
import { useSiteScope } from '../sites/site-scope.tsx';

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The response intervals (issue #47): call processing (created to first offer), offer to accept, turnout (accepted to en route), travel (en route to on scene), total (created to on scene). */
const INTERVAL_NAMES = ['call_processing', 'offer_to_accept', 'turnout', 'travel', 'total'] as const;
const INTERVAL_HEADINGS = ['Call processing', 'Offer to accept', 'Turnout', 'Travel', 'Total (created to on scene)'];
const seconds = (value: number | null) => (value === null ? '—' : clock(Math.round(value) * 1000));
/** A site's name in a file name: letters and digits, the rest as dashes. */
const fileSafe = (name: string) => name.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').toLowerCase();

/** One table of a report, with its CSV. */
function ReportTable({ title, file, header, rows, testId }: { title: string; file: string; header: string[]; rows: Cell[][]; testId: string }) {
  return (
    <section className="panel stack" aria-labelledby={`${testId}-title`} data-testid={testId}>
      <div className="row spread">
        <h2 id={`${testId}-title`}>{title}</h2>
        <button type="button" onClick={() => downloadCsv(file, header, rows)} data-testid={`${testId}-csv`}>
          Download CSV
        </button>
      </div>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              {header.map((name) => (
                <th key={name} scope="col">
                  {name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, column) => (
                  <td key={column}>{cell ?? '—'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Incidents and visitors over a period: what a security company sends its estates each month. */
export function ReportsScreen() {
  const [from, setFrom] = useState(() => isoDay(Date.now() - 29 * DAY_MS));
  const [to, setTo] = useState(() => isoDay(Date.now()));
  // With a site chosen, the server counts that site's only.
  const { chosen, siteId } = useSiteScope();
  const query = { from_date: from, to_date: to, site_id: siteId };
  const incidents = useLoad((c) => c.get('/incidents/analytics', { params: { query } }), [from, to, siteId]);
  const visitors = useLoad((c) => c.get('/access-logs/stats', { params: { query } }), [from, to, siteId]);
  const intervals = useLoad((c) => c.get('/incidents/intervals', { params: { query: { ...query, group_by: 'day' } } }), [from, to, siteId]);
  const suffix = `${chosen ? `${fileSafe(chosen.name)}_` : ''}${from}_to_${to}`;
  const a = incidents.data;
  return (
    <div className="stack" data-testid="screen-reports">
      <ScreenHeader title={chosen ? `Reports of ${chosen.name}` : 'Reports'}>
        Incidents and visitors over a period{chosen ? ` at ${chosen.name}` : ', every site together'}, each table as CSV for a spreadsheet.
      </ScreenHeader>
      <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Period">
        <label>
          From <input type="date" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} data-testid="report-from" />
        </label>
        <label>
          To (inclusive) <input type="date" value={to} min={from} onChange={(e) => e.target.value && setTo(e.target.value)} data-testid="report-to" />
        </label>
      </form>
      <ErrorNote error={incidents.error ?? visitors.error} />
      {a && (
        <>
          <p data-testid="report-total">
            <strong>{a.total}</strong> incidents from {from} to {to}.
          </p>
          <div className="incident-grid">
            <ReportTable
              title="By category"
              testId="by-category"
              file={`incidents-by-category_${suffix}.csv`}
              header={['Category', 'Incidents']}
              rows={Object.entries(a.by_category).map(([name, count]) => [name, count])}
            />
            <ReportTable
              title="By status now"
              testId="by-status"
              file={`incidents-by-status_${suffix}.csv`}
              header={['Status', 'Incidents']}
              rows={Object.entries(a.by_status).map(([name, count]) => [name, count])}
            />
            <ReportTable
              title="By severity"
              testId="by-severity"
              file={`incidents-by-severity_${suffix}.csv`}
              header={['Severity', 'Incidents']}
              rows={Object.entries(a.by_severity).map(([name, count]) => [name, count])}
            />
            <ReportTable
              title="Response times"
              testId="response-times"
              file={`response-times_${suffix}.csv`}
              header={['Measure', 'Incidents', 'Median (m:ss)', '90th percentile (m:ss)']}
              rows={[
                ['Time to assign', a.seconds_to_assign.count, seconds(a.seconds_to_assign.median), seconds(a.seconds_to_assign.p90)],
                ['Time to arrive', a.seconds_to_arrive.count, seconds(a.seconds_to_arrive.median), seconds(a.seconds_to_arrive.p90)],
              ]}
            />
          </div>
        </>
      )}
      {intervals.error && <ErrorNote error={`Response intervals: ${intervals.error}`} />}
      {intervals.data && (
        <ReportTable
          title="Response intervals per day (median / 90th percentile, m:ss)"
          testId="response-intervals"
          file={`response-intervals_${suffix}.csv`}
          header={['Day', 'Incidents', ...INTERVAL_HEADINGS]}
          rows={[intervals.data.overall, ...intervals.data.groups].map((group) => [
            group.label,
            group.incidents,
            ...INTERVAL_NAMES.map((name) => `${seconds(group[name].p50_s)} / ${seconds(group[name].p90_s)}`),
          ])}
        />
      )}
      {visitors.data && (
        <ReportTable
          title={`Visitors per entry point (${visitors.data.total_check_ins} in, ${visitors.data.total_check_outs} out)`}
          testId="visitors-by-gate"
          file={`visitors-by-entry-point_${suffix}.csv`}
          header={['Entry point', 'Check-ins']}
          rows={visitors.data.by_entry_point.map((row) => [row.entry_point ?? '(none given)', row.check_ins])}
        />
      )}
    </div>
  );
}
