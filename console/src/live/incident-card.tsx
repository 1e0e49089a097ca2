import { useState } from 'react';
import { describeError } from '../api.ts';
import { ErrorNote } from '../components/ui.tsx';
import { Link } from '../router.tsx';
import { SiteCallList } from '../sites/call-list.tsx';
import type { Site } from '../sites/site-choice.ts';
import { CATEGORY_TEXT, SEVERITY_TEXT, STATUS_TEXT, whereOf } from './incident-words.ts';
import { arriveView, assignView, clock, laneOf, needsAcknowledgement, type Incident } from './incidents.ts';


/** One incident on the board: what, where, how long, who to call, and what it waits for. */
export function IncidentCard({
  incident,
  now,
  covered,
  site,
  unseen,
  onSeen,
  onAcknowledge,
}: {
  incident: Incident;
  now: number;
  /** Whether a responder is near, while it waits for one (live/coverage.ts). */
  covered: boolean | undefined;
  /** The incident's site, whose numbers to call when nobody comes (sites/site-choice.ts). */
  site: Site | undefined;
  unseen: boolean;
  onSeen: () => void;
  onAcknowledge: (() => Promise<void>) | null;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attention = needsAcknowledgement(incident);
  const acknowledged = !attention && (incident.status === 'escalated' || incident.status === 'unresponsive');
  const assign = assignView(incident, now, covered);
  const arrive = arriveView(incident, now);
  const fresh = unseen && laneOf(incident.status) === 'new';
  return (
    <li
      className={`card${attention ? ' alert' : ''}${fresh ? ' fresh' : ''}`}
      data-testid="incident-card"
      data-incident-id={incident.incident_id}
      data-status={incident.status}
      data-attention={attention ? 'yes' : 'no'}
    >
      <div className="card-head">
        <Link to={`/incidents/${encodeURIComponent(incident.incident_id)}`} className="card-title" onClick={onSeen}>
          {whereOf(incident, site?.name)}
        </Link>
        {fresh && <span className="tag bad">New</span>}
      </div>
      <p className="card-tags">
        <span className={`tag ${incident.category === 'sos' ? 'bad' : ''}`}>{CATEGORY_TEXT[incident.category]}</span>
        <span className={`tag ${incident.severity === 'critical' || incident.severity === 'high' ? 'warn' : ''}`}>{SEVERITY_TEXT[incident.severity]}</span>
        {incident.is_drill && <span className="tag">Drill</span>}
      </p>
      <p className="card-status" data-testid="card-status">
        {STATUS_TEXT[incident.status]}
      </p>
      <p className="card-who">
        {incident.subject.name}
      </p>
      <p className="card-what muted" data-testid="card-what">
        {incident.title}
      </p>
      <dl className="card-times">
        <dt>Age</dt>
        <dd>{clock(now - Date.parse(incident.created_at))}</dd>
        <dt>Assign</dt>
        <dd className={`tone-${assign.tone}`}>{assign.text}</dd>
        <dt>Arrive</dt>
        <dd className={`tone-${arrive.tone}`}>{arrive.text}</dd>
        {incident.responder && (
          <>
            <dt>Responder</dt>
            <dd>{incident.responder.name}</dd>
          </>
        )}
      </dl>
      {attention && <strong className="alert-text">Nobody has accepted. Call the estate's numbers and the police now.</strong>}
      {site && <SiteCallList site={site} testId="card" />}
      {attention && onAcknowledge && (
        <div className="card-actions">
          <button
            type="button"
            className="primary"
            disabled={busy}
            data-testid="acknowledge"
            onClick={() => {
              setBusy(true);
              setError(null);
              onAcknowledge().then(
                () => setBusy(false),
                (failure: unknown) => {
                  setBusy(false);
                  setError(describeError(failure));
                },
              );
            }}
          >
            Acknowledge
          </button>
        </div>
      )}
      {acknowledged && <p className="muted">{incident.timeline.findLast((entry) => entry.event === 'acknowledged')?.message}</p>}
      {fresh && (
        <button type="button" className="link" onClick={onSeen}>
          Seen
        </button>
      )}
      <ErrorNote error={error} />
    </li>
  );
}
