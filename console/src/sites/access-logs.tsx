import { useState } from 'react';
import type { AccessLog } from '../../../shared/schemas/access.ts';
import { describeError } from '../api.ts';
import { Empty, ErrorNote, Pager, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { downloadCsv } from '../download.ts';
import { readAllPages } from '../read-all-pages.ts';
import type { Page } from '../types.ts';

/** A CSV export reads at most this many visits (100 pages of the API's largest page). */
const MOST_EXPORTED = 10_000;

/** Who came and went: filters, pages, and the whole filtered list as CSV. */
export function AccessLogs() {
  const { client } = useConsole();
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState({ status: '', entry_point: '', search: '', from_date: '', to_date: '' });
  const [exporting, setExporting] = useState<string | null>(null);
  /** Said when an export stopped at MOST_EXPORTED. */
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const query = Object.fromEntries(Object.entries(filters).map(([key, value]) => [key, value.trim() || undefined]));
  const logs = useLoad((c) => c.get<Page<AccessLog>>('/access-logs', { ...query, page, limit: 50 }), [page, JSON.stringify(filters)]);
  const set = (field: keyof typeof filters) => (event: { target: { value: string } }) => {
    setFilters({ ...filters, [field]: event.target.value });
    setPage(1);
  };
  const exportCsv = async () => {
    setError(null);
    try {
      const read = await readAllPages<AccessLog>(client, '/access-logs', query, MOST_EXPORTED, (next) => setExporting(`Reading page ${next}…`));
      const rows = read.items;
      // A part is never passed off as the whole: the file is made, and the screen says what it left out.
      setNote(read.complete ? null : `The file holds the newest ${rows.length.toLocaleString('en-GB')} of ${read.total.toLocaleString('en-GB')} visits: narrow the dates to export the rest.`);
      downloadCsv(
        `access-logs${filters.from_date ? `_from_${filters.from_date}` : ''}${filters.to_date ? `_to_${filters.to_date}` : ''}.csv`,
        ['log_id', 'method', 'visitor_name', 'visitor_phone', 'entry_point', 'host_user_id', 'status', 'checked_in_at', 'checked_out_at', 'recorded_by', 'notes', 'checkout_notes'],
        rows.map((log) => [
          log.log_id,
          log.method,
          log.visitor_name,
          log.visitor_phone,
          log.entry_point,
          log.host_user_id,
          log.status,
          log.checked_in_at,
          log.checked_out_at,
          log.recorded_by,
          log.notes,
          log.checkout_notes,
        ]),
      );
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setExporting(null);
    }
  };
  return (
    <div className="stack" data-testid="access-logs">
      <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter the access logs">
        <label>
          Status{' '}
          <select value={filters.status} onChange={set('status')}>
            <option value="">Any</option>
            <option value="checked_in">On site</option>
            <option value="checked_out">Left</option>
          </select>
        </label>
        <label>
          Entry point <input value={filters.entry_point} onChange={set('entry_point')} maxLength={200} />
        </label>
        <label>
          Search <input type="search" value={filters.search} onChange={set('search')} placeholder="Name or phone" />
        </label>
        <label>
          From <input type="date" value={filters.from_date} onChange={set('from_date')} />
        </label>
        <label>
          To <input type="date" value={filters.to_date} onChange={set('to_date')} />
        </label>
        <button type="button" onClick={() => void exportCsv()} disabled={exporting !== null} data-testid="logs-csv">
          {exporting ?? 'Download CSV'}
        </button>
      </form>
      <ErrorNote error={error ?? logs.error} />
      {note && (
        <p className="warning" role="status" data-testid="export-cut">
          {note}
        </p>
      )}
      {logs.data && logs.data.results.length === 0 ? (
        <Empty title="No visits match">Change the filters, or wait for the gates to check someone in.</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Visitor</th>
                <th scope="col">Entry point</th>
                <th scope="col">How</th>
                <th scope="col">In</th>
                <th scope="col">Out</th>
                <th scope="col">Guard</th>
              </tr>
            </thead>
            <tbody>
              {logs.data?.results.map((log) => (
                <tr key={log.log_id} data-testid="log-row">
                  <td>
                    {log.visitor_name ?? '(erased)'}
                    <br />
                    <span className="muted">{log.visitor_phone ?? ''}</span>
                  </td>
                  <td>{log.entry_point ?? '—'}</td>
                  <td>{log.method === 'walk_in' ? 'Walk-in' : 'Code'}</td>
                  <td>
                    <Time iso={log.checked_in_at} />
                  </td>
                  <td>{log.checked_out_at ? <Time iso={log.checked_out_at} /> : <span className="tag good">On site</span>}</td>
                  <td>{log.recorded_by ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={logs.data} onPage={setPage} />
    </div>
  );
}
