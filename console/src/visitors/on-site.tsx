import { useEffect, useRef, useState } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { Empty, ErrorNote, Phone, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { useLiveEvents } from '../live/hooks.ts';
import { useSiteScope } from '../sites/site-scope.tsx';
import { AlreadyInsideTag, ExcessUseTag } from './access-logs.tsx';

type Visitors = Schemas['CurrentVisitors'];

/** Everyone on site now, per entry point, kept current by the stream's visitor events. */
export function OnSite() {
  const { client, environment } = useConsole();
  const { siteId } = useSiteScope();
  const [data, setData] = useState<Visitors | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [round, setRound] = useState(0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    let current = true;
    client.get('/access-logs/current-visitors', { params: { query: { site_id: siteId, search: search.trim() || undefined } } }).then(
      (next) => current && (setData(next), setError(null)),
      (failure: unknown) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [client, environment, search, round, siteId]);
  // A burst of arrivals (a bus at the gate) is one read, not forty.
  useLiveEvents(
    (event) => {
      if (!event.type.startsWith('visitor.')) return;
      if (pending.current) clearTimeout(pending.current);
      pending.current = setTimeout(() => setRound((n) => n + 1), 300);
    },
    () => setRound((n) => n + 1),
  );
  useEffect(() => () => void (pending.current && clearTimeout(pending.current)), []);

  const groups = new Map<string, Visitors['visitors']>();
  for (const visitor of data?.visitors ?? []) {
    const key = visitor.entry_point ?? 'No entry point given';
    groups.set(key, [...(groups.get(key) ?? []), visitor]);
  }
  return (
    <div className="stack" data-testid="on-site">
      <div className="filters">
        <label>
          Search{' '}
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name or phone" data-testid="on-site-search" />
        </label>
        <strong data-testid="on-site-count">{data ? `${data.count} on site` : 'Reading…'}</strong>
      </div>
      <ErrorNote error={error} />
      {data && data.count === 0 && <Empty title="Nobody is on site">Visitors appear here when a gate checks them in, and leave when it checks them out.</Empty>}
      {[...groups.entries()].map(([entryPoint, visitors]) => (
        <section key={entryPoint} className="panel" aria-label={`On site through ${entryPoint}`} data-testid="on-site-gate">
          <h2>
            {entryPoint} <span className="tag">{visitors.length}</span>
          </h2>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Visitor</th>
                  <th scope="col">Phone</th>
                  <th scope="col">Visiting</th>
                  <th scope="col">In since</th>
                  <th scope="col">For</th>
                </tr>
              </thead>
              <tbody>
                {visitors.map((visitor) => (
                  <tr key={visitor.log_id} data-testid="visitor-row" data-log-id={visitor.log_id}>
                    <td>
                      {visitor.visitor_name ?? '(erased)'}
                      {visitor.already_inside_override && <AlreadyInsideTag />}
                      <ExcessUseTag admitted={visitor.admitted_offline} />
                    </td>
                    <td>{visitor.visitor_phone ? <Phone phone={visitor.visitor_phone} /> : '—'}</td>
                    <td>{visitor.host_user_id ?? '—'}</td>
                    <td>
                      <Time iso={visitor.checked_in_at} />
                    </td>
                    <td>{visitor.duration_minutes < 60 ? `${visitor.duration_minutes} min` : `${Math.floor(visitor.duration_minutes / 60)} h ${visitor.duration_minutes % 60} min`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </div>
  );
}
