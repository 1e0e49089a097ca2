import { useState } from 'react';
import { EnvironmentTag, Time } from '../components/ui.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { ScreenHeader } from '../components/layout.tsx';

const ACTOR_LABELS = { person: 'Person', key: 'API key', operator: 'Tsaro operator' } as const;
/** Whom the "By" filter offers: people and keys (the operator's changes show under "Anyone"). */
const ACTOR_FILTERS = ['person', 'key'] as const;

export function AuditLogScreen() {
  const [actorType, setActorType] = useState<(typeof ACTOR_FILTERS)[number] | ''>('');
  const [action, setAction] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [fromDate, setFromDate] = useState('');
  const [toDate, setToDate] = useState('');
  const entries = useList('/audit-log', {
    actor_type: actorType || undefined,
    action: action.trim(),
    resource_id: resourceId.trim(),
    from_date: fromDate,
    to_date: toDate,
  });
  const filtered = Boolean(actorType || action || resourceId || fromDate || toDate);
  return (
    <section className="stack" data-testid="screen-audit-log">
      <ScreenHeader title="Audit log">Every change made by a person or with a key: who, what, to which resource, when and from where.</ScreenHeader>
      <div className="filters" role="group" aria-label="Filter the audit log">
        <label htmlFor="audit-actor">By</label>
        <select id="audit-actor" value={actorType} onChange={(e) => setActorType(ACTOR_FILTERS.find((a) => a === e.target.value) ?? '')}>
          <option value="">Anyone</option>
          <option value="person">People</option>
          <option value="key">API keys</option>
        </select>
        <label htmlFor="audit-action">Action</label>
        <input id="audit-action" value={action} onChange={(e) => setAction(e.target.value)} placeholder="createApiKey" />
        <label htmlFor="audit-resource">Resource id</label>
        <input id="audit-resource" value={resourceId} onChange={(e) => setResourceId(e.target.value)} placeholder="key_…" />
        <label htmlFor="audit-from">From</label>
        <input id="audit-from" type="date" value={fromDate} onChange={(e) => setFromDate(e.target.value)} />
        <label htmlFor="audit-to">To</label>
        <input id="audit-to" type="date" value={toDate} onChange={(e) => setToDate(e.target.value)} />
      </div>
      <ListTable
        list={entries}
        rowKey={(entry) => entry.audit_id}
        rowProps={() => ({ 'data-testid': 'audit-row' })}
        empty={{
          title: filtered ? 'Nothing matches these filters.' : 'Nothing recorded yet.',
          body: filtered ? 'Clear a filter or widen the dates.' : 'Changes appear here as people and keys make them: a key created, a person invited, an endpoint added.',
        }}
        columns={[
          { header: 'When', cell: (entry) => <Time iso={entry.created_at} /> },
          {
            header: 'Who',
            cell: (entry) => (
              <>
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
              </>
            ),
          },
          { header: 'What', cell: (entry) => <code>{entry.action}</code> },
          {
            header: 'Resource',
            cell: (entry) => (
              <>
                {entry.resource_type && <span className="muted">{entry.resource_type} </span>}
                {entry.resource_id && <code>{entry.resource_id}</code>}
                {entry.environment && <EnvironmentTag environment={entry.environment} />}
              </>
            ),
          },
          { header: 'From', cell: (entry) => entry.ip ?? '—' },
        ]}
      />
    </section>
  );
}
