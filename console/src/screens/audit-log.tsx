import { useState } from 'react';
import { Empty, EnvironmentTag, ErrorNote, Pager, Time } from '../components/ui.tsx';
import { useLoad } from '../context.tsx';
import type { AuditEntry, Page } from '../types.ts';
import { ScreenHeader } from './layout.tsx';

const ACTOR_LABELS = { person: 'Person', key: 'API key', operator: 'Tsaro operator' } as const;

export function AuditLogScreen() {
  const [page, setPage] = useState(1);
  const [actorType, setActorType] = useState('');
  const [action, setAction] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [fromDate, setFromDate] = useState('');
  const [toDate, setToDate] = useState('');
  const entries = useLoad(
    (c) =>
      c.get<Page<AuditEntry>>('/audit-log', {
        page,
        limit: 20,
        actor_type: actorType,
        action: action.trim(),
        resource_id: resourceId.trim(),
        from_date: fromDate,
        to_date: toDate,
      }),
    [page, actorType, action, resourceId, fromDate, toDate],
  );
  const reset = <T,>(set: (v: T) => void) => (v: T) => (set(v), setPage(1));
  const filtered = Boolean(actorType || action || resourceId || fromDate || toDate);
  return (
    <section className="stack" data-testid="screen-audit-log">
      <ScreenHeader title="Audit log">Every change made by a person or with a key: who, what, to which resource, when and from where.</ScreenHeader>
      <div className="filters" role="group" aria-label="Filter the audit log">
        <label htmlFor="audit-actor">By</label>
        <select id="audit-actor" value={actorType} onChange={(e) => reset(setActorType)(e.target.value)}>
          <option value="">Anyone</option>
          <option value="person">People</option>
          <option value="key">API keys</option>
        </select>
        <label htmlFor="audit-action">Action</label>
        <input id="audit-action" value={action} onChange={(e) => reset(setAction)(e.target.value)} placeholder="createApiKey" />
        <label htmlFor="audit-resource">Resource id</label>
        <input id="audit-resource" value={resourceId} onChange={(e) => reset(setResourceId)(e.target.value)} placeholder="key_…" />
        <label htmlFor="audit-from">From</label>
        <input id="audit-from" type="date" value={fromDate} onChange={(e) => reset(setFromDate)(e.target.value)} />
        <label htmlFor="audit-to">To</label>
        <input id="audit-to" type="date" value={toDate} onChange={(e) => reset(setToDate)(e.target.value)} />
      </div>
      <ErrorNote error={entries.error} />
      {entries.data && entries.data.results.length === 0 ? (
        <Empty title={filtered ? 'Nothing matches these filters.' : 'Nothing recorded yet.'}>
          {filtered ? 'Clear a filter or widen the dates.' : 'Changes appear here as people and keys make them: a key created, a person invited, an endpoint added.'}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Resource</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {(entries.data?.results ?? []).map((entry) => (
                <tr key={entry.audit_id} data-testid="audit-row">
                  <td>
                    <Time iso={entry.created_at} />
                  </td>
                  <td>
                    {entry.actor.label ?? entry.actor.id ?? '—'}
                    <p className="muted small">
                      {ACTOR_LABELS[entry.actor.type] ?? entry.actor.type}
                      {entry.actor.id && entry.actor.label && (
                        <>
                          {' '}
                          <code>{entry.actor.id}</code>
                        </>
                      )}
                    </p>
                  </td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>
                    {entry.resource_type && <span className="muted">{entry.resource_type} </span>}
                    {entry.resource_id && <code>{entry.resource_id}</code>}
                    {entry.environment && <EnvironmentTag environment={entry.environment} />}
                  </td>
                  <td>{entry.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={entries.data} onPage={setPage} />
    </section>
  );
}
