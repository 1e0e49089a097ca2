import { Fragment, lazy, Suspense, useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api.ts';
import { EventDeliveries } from '../integrations/event-deliveries.tsx';
import { ErrorNote, Phone, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { useLiveEvents, useNow } from './hooks.ts';
import { useCoverage } from './coverage.ts';
import { arriveView, assignView, clock, closedAt, entryPointOf, incidentOf, needsAcknowledgement, newer, positionOf, type Incident } from './incidents.ts';
import { Link } from '../router.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { SiteCallList } from '../sites/call-list.tsx';
import { IncidentTexts } from './incident-texts.tsx';
import { CATEGORY_TEXT, detailsOf, eventText, SEVERITY_TEXT, STATUS_TEXT, whereOf } from './incident-words.ts';
import { useSiteScope } from '../sites/site-scope.tsx';

const IncidentMap = lazy(() => import('../map/incident-map.tsx'));

/** One incident as it unfolds: its timeline, who it is for, who is coming, notes, cancel, what webhooks it caused. */
export function IncidentScreen({ incidentId }: { incidentId: string }) {
  const { client, environment, can } = useConsole();
  const { siteOf } = useSiteScope();
  const [incident, setIncident] = useState<Incident | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [round, setRound] = useState(0);
  const now = useNow();

  const apply = useCallback((next: Incident) => setIncident((current) => newer(current ?? undefined, next)), []);
  useEffect(() => {
    let current = true;
    client.get('/incidents/{incidentId}', { params: { path: { incidentId } } }).then(
      (answer) => current && (apply(answer.incident), setError(null), setMissing(false)),
      (failure: unknown) => {
        if (!current) return;
        if (failure instanceof ApiError && failure.status === 404) setMissing(true);
        else setError(describeError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [client, environment, incidentId, round, apply]);
  useLiveEvents(
    (event) => {
      const changed = incidentOf(event);
      if (changed?.incident_id === incidentId) apply(changed);
    },
    () => setRound((n) => n + 1),
  );
  const waiting = useMemo(() => (incident ? [incident] : []), [incident]);
  const covered = useCoverage(waiting);

  if (missing)
    return (
      <div className="stack">
        <h1>No such incident</h1>
        <p>
          There is no incident <code>{incidentId}</code> in {environment}. It may be in the other environment. <Link to="/board">Back to the board</Link>
        </p>
      </div>
    );
  if (!incident)
    return (
      <div className="stack">
        <ErrorNote error={error} />
        {!error && <p className="muted">Reading the incident…</p>}
      </div>
    );

  const active = !closedAt(incident);
  const operate = can('operateIncidents');
  const assign = assignView(incident, now, covered(incident));
  const arrive = arriveView(incident, now);
  const { subject, location, responder } = incident;
  const position = positionOf(incident);
  const site = siteOf(incident);
  // The gate is shown as such; the rest of what the kiosk or the partner attached, labelled in words.
  const details = detailsOf(subject.metadata, entryPointOf(incident) ? ['entry_point'] : []);
  return (
    <div className="stack" data-testid="screen-incident" data-status={incident.status}>
      <p>
        <Link to="/board">← Live board</Link>
      </p>
      <ScreenHeader title={`${CATEGORY_TEXT[incident.category]} at ${whereOf(incident, site?.name)}`}>
        <span data-testid="incident-status" data-status={incident.status} className={`tag ${needsAcknowledgement(incident) ? 'bad' : active ? 'warn' : 'good'}`}>
          {STATUS_TEXT[incident.status]}
        </span>{' '}
        <span data-testid="incident-title">{incident.title}</span> · {SEVERITY_TEXT[incident.severity]}
        {incident.is_drill ? ' · drill' : ''} · {closedAt(incident) ? 'was open for' : 'open for'} {clock((closedAt(incident) ? Date.parse(closedAt(incident)!) : now) - Date.parse(incident.created_at))}
      </ScreenHeader>
      <ErrorNote error={error} />
      {needsAcknowledgement(incident) && <AcknowledgeBar incident={incident} onChanged={apply} allowed={operate} />}
      <div className="incident-grid">
        <section className="panel" aria-labelledby="who">
          <h2 id="who">Who and where</h2>
          <dl className="facts plain">
            <dt>Name</dt>
            <dd data-testid="subject-name">{subject.name}</dd>
            {subject.phone && (
              <>
                <dt>Phone</dt>
                <dd>
                  <Phone phone={subject.phone} />
                </dd>
              </>
            )}
            {subject.email && (
              <>
                <dt>Email</dt>
                <dd>{subject.email}</dd>
              </>
            )}
            {subject.reference && (
              <>
                <dt>Reference</dt>
                <dd>{subject.reference}</dd>
              </>
            )}
            {site && (
              <>
                <dt>Site</dt>
                <dd>
                  <SiteCallList site={site} testId="incident" />
                </dd>
              </>
            )}
            {entryPointOf(incident) && (
              <>
                <dt>Gate</dt>
                <dd>{entryPointOf(incident)}</dd>
              </>
            )}
            <dt>Address</dt>
            <dd>{location.address ?? '—'}</dd>
            {location.landmark && (
              <>
                <dt>Landmark</dt>
                <dd>{location.landmark}</dd>
              </>
            )}
            <dt>Position</dt>
            <dd>{position ? `${position.latitude.toFixed(5)}, ${position.longitude.toFixed(5)}` : '—'}</dd>
            {incident.description && (
              <>
                <dt>Description</dt>
                <dd className="prewrap" data-testid="incident-description">
                  {incident.description}
                </dd>
              </>
            )}
            {details.map((detail) => (
              <Fragment key={detail.key}>
                <dt>{detail.label}</dt>
                <dd data-testid={`detail-${detail.key}`}>{detail.instant ? <Time iso={detail.value} /> : detail.value}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
        <section className="panel" aria-labelledby="help">
          <h2 id="help">Help</h2>
          <dl className="facts plain">
            <dt>Responder</dt>
            <dd data-testid="responder">{responder ? responder.name : 'None yet'}</dd>
            <dt>Handled by</dt>
            <dd data-testid="handled-by">{incident.handled_by ?? 'Nobody at Tsaro control yet'}</dd>
            {responder && (
              <>
                <dt>Phone</dt>
                <dd>
                  <Phone phone={responder.phone} />
                </dd>
                <dt>ETA</dt>
                <dd>{responder.eta_minutes === null ? 'Unknown' : `${responder.eta_minutes} min`}</dd>
                <dt>Last position</dt>
                <dd>{responder.location ? `${responder.location.latitude.toFixed(5)}, ${responder.location.longitude.toFixed(5)}` : 'Not reported'}</dd>
              </>
            )}
            <dt>Assign</dt>
            <dd className={`tone-${assign.tone}`}>{assign.text}</dd>
            <dt>Arrive</dt>
            <dd className={`tone-${arrive.tone}`}>{arrive.text}</dd>
            <dt>Dispatch by</dt>
            <dd>
              <Time iso={incident.sla.dispatch_deadline} />
            </dd>
            {incident.resolution_outcome && (
              <>
                <dt>Outcome</dt>
                <dd>{eventText(incident.resolution_outcome)}</dd>
              </>
            )}
            {incident.resolution_notes && (
              <>
                <dt>Resolution notes</dt>
                <dd className="prewrap">{incident.resolution_notes}</dd>
              </>
            )}
          </dl>
        </section>
      </div>
      <section className="panel" aria-labelledby="map-title">
        <h2 id="map-title">Map</h2>
        <Suspense fallback={<p className="muted">Opening the map…</p>}>
          <IncidentMap incident={incident} />
        </Suspense>
      </section>
      <section className="panel" aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol className="timeline" data-testid="timeline">
          {incident.timeline.map((entry, index) => (
            <li key={index} data-event={entry.event}>
              <Time iso={entry.timestamp} /> <strong>{eventText(entry.event)}</strong> <span className="prewrap">{entry.message}</span>
            </li>
          ))}
        </ol>
        {operate && active && <NoteForm incidentId={incidentId} onAdded={apply} />}
      </section>
      <IncidentTexts incident={incident} />
      {operate && active && <CancelForm incidentId={incidentId} onCancelled={apply} />}
      {can('readIntegrations') && <IncidentDeliveries incidentId={incidentId} version={incident.version} />}
    </div>
  );
}

function AcknowledgeBar({ incident, onChanged, allowed }: { incident: Incident; onChanged: (incident: Incident) => void; allowed: boolean }) {
  const { client } = useConsole();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="alert-bar" role="alert">
      <strong>Nobody has accepted this incident.</strong> Call the estate's numbers and the police now.{' '}
      {allowed && (
        <button
          type="button"
          className="primary"
          data-testid="acknowledge"
          onClick={() =>
            client
              .post('/incidents/{incidentId}/acknowledge', { params: { path: { incidentId: incident.incident_id } } })
              .then((answer) => onChanged(answer.incident), (failure: unknown) => setError(describeError(failure)))
          }
        >
          Acknowledge
        </button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

function NoteForm({ incidentId, onAdded }: { incidentId: string; onAdded: (incident: Incident) => void }) {
  const { client } = useConsole();
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    client.post('/incidents/{incidentId}/notes', { params: { path: { incidentId } }, body: { message } }).then(
      (answer) => {
        onAdded(answer.incident);
        setMessage('');
        setBusy(false);
      },
      (failure: unknown) => {
        setError(describeError(failure));
        setBusy(false);
      },
    );
  };
  return (
    <form className="inline-form" onSubmit={submit}>
      <label className="grow">
        Add a note
        <textarea value={message} onChange={(e) => setMessage(e.target.value)} maxLength={2000} rows={2} required data-testid="note-text" />
      </label>
      <button type="submit" disabled={busy || !message.trim()} data-testid="add-note">
        Add note
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function CancelForm({ incidentId, onCancelled }: { incidentId: string; onCancelled: (incident: Incident) => void }) {
  const { client } = useConsole();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (!open)
    return (
      <p>
        <button type="button" className="danger" onClick={() => setOpen(true)} data-testid="cancel-incident">
          Cancel this incident…
        </button>
      </p>
    );
  return (
    <form
      className="panel stack"
      onSubmit={(event) => {
        event.preventDefault();
        client.post('/incidents/{incidentId}/cancel', { params: { path: { incidentId } }, body: { reason } }).then(
          (answer) => {
            onCancelled(answer.incident);
            setOpen(false);
          },
          (failure: unknown) => setError(describeError(failure)),
        );
      }}
    >
      <label>
        Why is it cancelled? (kept in the timeline and sent to the partner)
        <textarea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} rows={2} required data-testid="cancel-reason" />
      </label>
      <p className="row">
        <button type="submit" className="danger" disabled={!reason.trim()} data-testid="confirm-cancel">
          Cancel the incident
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Keep it open
        </button>
      </p>
      <ErrorNote error={error} />
    </form>
  );
}

/** The events this incident caused and, for each, which endpoints got it and how. */
function IncidentDeliveries({ incidentId, version }: { incidentId: string; version: number }) {
  const events = useLoad((c) => c.get('/events', { params: { query: { resource_id: incidentId, limit: 50 } } }), [incidentId, version]);
  return (
    <section className="panel" aria-labelledby="deliveries">
      <h2 id="deliveries">Webhook events it caused</h2>
      {events.error ? (
        <p className="muted">{events.error}</p>
      ) : !events.data ? (
        <p className="muted">Reading events…</p>
      ) : events.data.results.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul className="event-list">
          {events.data.results.map((event) => (
            <li key={event.id}>
              <details>
                <summary>
                  <Time iso={event.created_at} /> <code>{event.type}</code>
                </summary>
                <EventDeliveries eventId={event.id} />
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
