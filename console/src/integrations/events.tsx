import { useState } from 'react';
import { eventSentence } from '../../../shared/console/sentences.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/schemas/webhooks.ts';
import type { QueryOf, Schemas } from '../api.ts';
import { Payload } from './deliveries.tsx';
import { EventDeliveries } from './event-deliveries.tsx';
import { Empty, ErrorNote, Pager, Time } from '../components/ui.tsx';
import { useList } from '../lists/use-list.ts';
import { ScreenHeader } from '../components/layout.tsx';

type TypeFilter = NonNullable<QueryOf<'/events'>['type']>;
const TYPE_FILTERS: readonly TypeFilter[] = ['incident.*', 'access_code.*', 'visitor.*', 'kiosk.*', ...WEBHOOK_EVENT_TYPES];

/** The resource an event is about: the id field its data carries. */
export function resourceOf(event: Schemas['Event']): string | null {
  const data = event.data;
  for (const field of ['incident_id', 'code_id', 'log_id', 'kiosk_id']) if (typeof data[field] === 'string') return data[field];
  return null;
}

export function EventsScreen() {
  const [type, setType] = useState<TypeFilter | ''>('');
  const [resourceId, setResourceId] = useState('');
  const [fromDate, setFromDate] = useState('');
  const [toDate, setToDate] = useState('');
  const [includeTest, setIncludeTest] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  // An event list, not a table (each event opens in place): the list hook without ListTable.
  const events = useList('/events', {
    type: type || undefined,
    resource_id: resourceId.trim(),
    from_date: fromDate,
    to_date: toDate,
    include_test: includeTest ? 'true' : undefined,
  });
  const filtered = Boolean(type || resourceId || fromDate || toDate);
  return (
    <section className="stack" data-testid="screen-events">
      <ScreenHeader title="Events">Everything that happened, as webhooks deliver it: open one to see which endpoints got it and how each attempt went.</ScreenHeader>
      <div className="filters" role="group" aria-label="Filter events">
        <label htmlFor="event-type">Type</label>
        <select id="event-type" value={type} onChange={(e) => setType(TYPE_FILTERS.find((t) => t === e.target.value) ?? '')}>
          <option value="">All types</option>
          {TYPE_FILTERS.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <label htmlFor="event-resource">Resource id</label>
        <input id="event-resource" value={resourceId} onChange={(e) => setResourceId(e.target.value)} placeholder="inc_…, code_…, log_…" />
        <label htmlFor="event-from">From</label>
        <input id="event-from" type="date" value={fromDate} onChange={(e) => setFromDate(e.target.value)} />
        <label htmlFor="event-to">To</label>
        <input id="event-to" type="date" value={toDate} onChange={(e) => setToDate(e.target.value)} />
        <label className="check">
          <input type="checkbox" checked={includeTest} onChange={(e) => setIncludeTest(e.target.checked)} /> Test events too
        </label>
      </div>
      <ErrorNote error={events.error} />
      {events.page && events.items.length === 0 ? (
        <Empty title={filtered ? 'No events match these filters.' : 'No events yet in this environment.'}>
          {filtered
            ? 'Widen the dates or clear the filters.'
            : 'Events appear when incidents are reported, access codes are made or used, and visitors come and go. In Sandbox, report a test incident with a sandbox key to see some.'}
        </Empty>
      ) : (
        <ul className="event-list">
          {events.items.map((event) => (
            <li key={event.id} className="event" data-testid="event-row">
              <button
                type="button"
                className="event-head"
                aria-expanded={open === event.id}
                onClick={() => setOpen(open === event.id ? null : event.id)}
              >
                <code className="event-type">{event.type}</code>
                {event.test && <span className="tag">test</span>}
                <span className="muted">{eventSentence(event.type)}</span>
                <span className="event-resource">{resourceOf(event) ?? ''}</span>
                <Time iso={event.created_at} />
              </button>
              {open === event.id && (
                <div className="event-body stack">
                  <p className="small">
                    Event <code>{event.id}</code>
                  </p>
                  <Payload payload={event} />
                  <h3>Deliveries</h3>
                  <EventDeliveries eventId={event.id} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager page={events.page} onPage={events.setPage} />
    </section>
  );
}
