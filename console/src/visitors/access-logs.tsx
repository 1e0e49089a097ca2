import { useState } from 'react';
import { phoneForReading } from '../../../shared/phone.ts';
import { describeError, type Schemas } from '../api.ts';
import { ErrorNote, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { downloadCsv } from '../download.ts';
import { ListTable } from '../lists/list-table.tsx';
import { readAllPages } from '../lists/read-all-pages.ts';
import { useList } from '../lists/use-list.ts';
import { useSiteName, useSiteScope } from '../sites/site-scope.tsx';

/** A CSV export reads at most this many visits (100 pages of the API's largest page). */
const MOST_EXPORTED = 10_000;

const STATUSES = ['checked_in', 'checked_out'] as const satisfies readonly Schemas['AccessLogStatus'][];
/** A status the select chose, or none ("Any"). */
const statusOf = (value: string): Schemas['AccessLogStatus'] | '' => STATUSES.find((status) => status === value) ?? '';
/** A site's name as part of a file name. */
const fileSafe = (name: string) => name.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '');
/** A text filter as the query sends it: blank is no filter. */
const given = (value: string) => value.trim() || undefined;

/** A visit the guard let in although the holder of the code was already inside (issue #49): the operator sees it was a choice, and whose. */
export function AlreadyInsideTag() {
  return (
    <div>
      <span className="tag warn" data-testid="already-inside-override" title="The gate showed that this code's holder was already inside; the guard let them in anyway">
        Let in while already inside
      </span>
    </div>
  );
}

/**
 * An excess use (issue #49): a gate let this visitor in offline with a code the server then
 * refused (its last use taken at another gate, or revoked meanwhile). The operator sees the code
 * and the server's words, as text.
 */
export function ExcessUseTag({ admitted }: { admitted: { code: string; server_said: string } | null | undefined }) {
  if (!admitted) return null;
  return (
    <div>
      <span className="tag bad" data-testid="excess-use" title={`Let in offline with ${admitted.code}; the server refused it: ${admitted.server_said}`}>
        Excess use: {admitted.code} ({admitted.server_said})
      </span>
    </div>
  );
}

/** Who came and went: filters, pages, and the whole filtered list as CSV. */
export function AccessLogs() {
  const { client } = useConsole();
  const { siteId, chosen } = useSiteScope();
  const siteName = useSiteName();
  const [filters, setFilters] = useState({ status: statusOf(''), entry_point: '', search: '', from_date: '', to_date: '' });
  const [exporting, setExporting] = useState<string | null>(null);
  /** Said when an export stopped at MOST_EXPORTED. */
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const query = {
    site_id: siteId,
    status: filters.status || undefined,
    entry_point: given(filters.entry_point),
    search: given(filters.search),
    from_date: given(filters.from_date),
    to_date: given(filters.to_date),
  };
  const logs = useList('/access-logs', query, { limit: 50 });
  const set = (field: Exclude<keyof typeof filters, 'status'>) => (event: { target: { value: string } }) => setFilters({ ...filters, [field]: event.target.value });
  const exportCsv = async () => {
    setError(null);
    try {
      const read = await readAllPages(client, '/access-logs', query, MOST_EXPORTED, (next) => setExporting(`Reading page ${next}…`));
      const rows = read.items;
      // A part is never passed off as the whole: the file is made, and the screen says what it left out.
      setNote(read.complete ? null : `The file holds the newest ${rows.length.toLocaleString('en-GB')} of ${read.total.toLocaleString('en-GB')} visits: narrow the dates to export the rest.`);
      downloadCsv(
        `access-logs${chosen ? `_${fileSafe(chosen.name)}` : ''}${filters.from_date ? `_from_${filters.from_date}` : ''}${filters.to_date ? `_to_${filters.to_date}` : ''}.csv`,
        ['log_id', 'method', 'visitor_name', 'visitor_phone', 'entry_point', 'host_user_id', 'status', 'checked_in_at', 'checked_out_at', 'recorded_by', 'notes', 'checkout_notes', 'already_inside_override', 'excess_use_code', 'excess_use_server_said'],
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
          log.already_inside_override ? 'yes' : 'no',
          log.admitted_offline?.code ?? '',
          log.admitted_offline?.server_said ?? '',
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
          <select value={filters.status} onChange={(event) => setFilters({ ...filters, status: statusOf(event.target.value) })}>
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
      <ErrorNote error={error} />
      {note && (
        <p className="warning" role="status" data-testid="export-cut">
          {note}
        </p>
      )}
      <ListTable
        list={logs}
        rowKey={(log) => log.log_id}
        rowProps={() => ({ 'data-testid': 'log-row' })}
        empty={{ title: 'No visits match', body: 'Change the filters, or wait for the gates to check someone in.' }}
        columns={[
          {
            header: 'Visitor',
            cell: (log) => (
              <>
                {log.visitor_name ?? '(erased)'}
                <br />
                <span className="muted">{log.visitor_phone ? phoneForReading(log.visitor_phone) : ''}</span>
              </>
            ),
          },
          {
            header: 'Entry point',
            cell: (log) => (
              <>
                {log.entry_point ?? '—'}
                {siteName(log.site_id) && <div className="muted small">{siteName(log.site_id)}</div>}
              </>
            ),
          },
          {
            header: 'How',
            cell: (log) => (
              <>
                {log.method === 'walk_in' ? 'Walk-in' : 'Code'}
                {log.already_inside_override && <AlreadyInsideTag />}
                <ExcessUseTag admitted={log.admitted_offline} />
              </>
            ),
          },
          { header: 'In', cell: (log) => <Time iso={log.checked_in_at} /> },
          { header: 'Out', cell: (log) => (log.checked_out_at ? <Time iso={log.checked_out_at} /> : <span className="tag good">On site</span>) },
          { header: 'Guard', cell: (log) => log.recorded_by ?? '—' },
        ]}
      />
    </div>
  );
}
