import { useCallback, useEffect, useRef, useState } from 'react';
import { useActions } from './use-actions.ts';
import { ErrorNote, Phone, Time } from '../components/ui.tsx';
import { Link } from '../router.tsx';
import { answerOf, type StaffClient, type StaffSchemas, type StaffSession } from './client.ts';
import { ChannelNotice, useStaffLive } from './staff-live.tsx';

type Details = StaffSchemas['ControlIncidentDetails'];
type Candidate = StaffSchemas['DispatchCandidate'];
type CallList = { subject: { name: string; phone: string | null }; site: { site_id: string; name: string; call_list: { name: string; phone: string }[] } | null };

const OUTCOMES = ['assisted', 'referred_to_authorities', 'medical_transport', 'false_alarm', 'no_action_required', 'unable_to_locate'] as const;
const ACTIVE = new Set(['created', 'dispatching', 'assigned', 'responding', 'on_scene', 'escalated', 'unresponsive']);
const words = (value: string) => value.replace(/_/g, ' ');
const fixAge = (seconds: number | null) => (seconds === null ? 'no fix' : seconds < 90 ? `fix ${seconds} s old` : `fix ${Math.round(seconds / 60)} min old`);

/**
 * A live incident in a controller's hands (issue #47): who it is and whom to call (tel: links),
 * the nearest verified responders (distance, status, age of fix, skills) to offer it to, one or
 * several; its offers and declines, each responder stood down with a reason; reassigning, notes,
 * and closing with an outcome. Everything partners, visitors and responders wrote is shown as
 * text (React never reads it as HTML). Read again when the staff channel says the incident changed
 * (its queue entry's `updated_at`, urgency or owner, or its leaving the queue), and the candidates
 * when responders move or change status (at most every 3 s); every 3 s only while the channel is down.
 */
export function ControlIncident({ client, session, incidentId }: { client: StaffClient; session: StaffSession; incidentId: string }) {
  const [details, setDetails] = useState<Details | null>(null);
  const [candidates, setCandidates] = useState<Candidate[]>([]);
  const [callList, setCallList] = useState<CallList | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const { said, error, failed, run } = useActions();
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<(typeof OUTCOMES)[number]>('assisted');
  const [closingNotes, setClosingNotes] = useState('');
  const path = { params: { path: { incidentId } } };

  const live = useStaffLive();
  const readDetails = useCallback(async () => {
    try {
      setDetails(await answerOf(client.GET('/incidents/{incidentId}', path)));
    } catch (failure) {
      failed(failure);
    }
  }, [client, incidentId]);
  const candidatesReadAt = useRef(0);
  const readCandidates = useCallback(async () => {
    candidatesReadAt.current = Date.now();
    try {
      setCandidates((await answerOf(client.GET('/incidents/{incidentId}/candidates', path))).candidates);
    } catch (failure) {
      failed(failure);
    }
  }, [client, incidentId]);
  const refresh = useCallback(async () => {
    await Promise.all([readDetails(), readCandidates()]);
  }, [readDetails, readCandidates]);
  useEffect(() => {
    void answerOf(client.GET('/incidents/{incidentId}/call-list', path)).then(setCallList, () => undefined);
  }, [client, incidentId]);

  // What the channel says of this incident: read again when it moves.
  const entry = live.data?.queue.find((item) => item.incident_id === incidentId);
  const mark = entry ? `${entry.updated_at}|${entry.urgency}|${entry.owner?.name ?? ''}` : live.data ? 'not in the queue' : 'unknown';
  useEffect(() => {
    void readDetails();
  }, [readDetails, mark]);
  // The candidates follow the responders: at most every 3 s while they move, not at all while still.
  useEffect(() => {
    const wait = Math.max(0, candidatesReadAt.current + 3000 - Date.now());
    const timer = setTimeout(() => void readCandidates(), wait);
    return () => clearTimeout(timer);
  }, [readCandidates, live.version]);
  // The channel down: every 3 s by hand until it is back.
  useEffect(() => {
    if (live.state !== 'paused') return;
    const timer = setInterval(() => void refresh(), 3000);
    return () => clearInterval(timer);
  }, [live.state, refresh]);

  const act = (action: () => Promise<string>) => run(action, refresh);
  const take = () =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/take', { ...path, body: {} }));
      return 'You are handling it.';
    });
  const offer = (people: Candidate[]) =>
    act(async () => {
      for (const person of people) await answerOf(client.POST('/incidents/{incidentId}/offers', { ...path, body: { responder_id: person.responder_id } }));
      setChosen(new Set());
      return `Offered to ${people.map((person) => person.name).join(', ')}.`;
    });
  const needReason = () => {
    if (!reason.trim()) throw new Error('Say why first (the reason box).');
    return reason.trim();
  };
  const standDown = (responderId: string, name: string) =>
    act(async () => {
      const answer = await answerOf(client.POST('/incidents/{incidentId}/stand-down', { ...path, body: { responder_id: responderId, reason: needReason() } }));
      setReason('');
      return answer.released === 'offer' ? `${name} stood down: the offer is withdrawn.` : `${name} stood down: the incident is back in dispatch.`;
    });
  const reassign = () =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/reassign', { ...path, body: { reason: needReason() } }));
      setReason('');
      return 'Sent back to dispatch.';
    });
  const addNote = () =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/notes', { ...path, body: { message: note } }));
      setNote('');
      return 'Noted.';
    });
  const close = () =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/close', { ...path, body: { outcome, ...(closingNotes.trim() && { notes: closingNotes.trim() }) } }));
      return `Closed: ${words(outcome)}.`;
    });

  if (!details) {
    return (
      <main className="stack operations" data-testid="control-incident">
        <Link to="/staff">Back to the queue</Link>
        <ErrorNote error={error} />
        {!error && <p>Opening…</p>}
      </main>
    );
  }
  const { incident } = details;
  const active = ACTIVE.has(incident.status);
  const mine = details.owner?.staff_id === session.staff.staff_id;
  const assigned = incident.responder;
  const pending = details.offers.filter((item) => item.status === 'pending');
  const toggle = (id: string) => setChosen((before) => new Set(before.has(id) ? [...before].filter((x) => x !== id) : [...before, id]));

  return (
    <main className="stack operations" data-testid="control-incident">
      <Link to="/staff">Back to the queue</Link>
      <header className="row spread">
        <h1>{incident.title}</h1>
        <span data-testid="control-status">
          {words(incident.status)}
          {details.urgency !== 'other' && ` · ${words(details.urgency)}`}
        </span>
      </header>
      <p>
        {details.organization_name} · reported <Time iso={incident.created_at} relative /> · handled by{' '}
        <strong data-testid="control-owner">{details.owner?.name ?? 'nobody at Tsaro yet'}</strong>
      </p>
      {active && !mine && (
        <button type="button" className="primary" onClick={() => void take()}>
          Take
        </button>
      )}
      {said && (
        <p className="notice" role="status">
          {said}
        </p>
      )}
      <ChannelNotice />
      <ErrorNote error={error} />

      <section className="panel stack" aria-labelledby="who-title">
        <h2 id="who-title">Who and where</h2>
        <dl className="facts plain">
          <dt>Subject</dt>
          <dd data-testid="control-subject">{incident.subject.name}</dd>
          <dt>Call</dt>
          <dd>{incident.subject.phone ? <Phone phone={incident.subject.phone} /> : 'No phone given'}</dd>
          <dt>Address</dt>
          <dd>{incident.location.address ?? `${incident.location.coordinates[1]}, ${incident.location.coordinates[0]}`}</dd>
          {incident.location.landmark && (
            <>
              <dt>Landmark</dt>
              <dd>{incident.location.landmark}</dd>
            </>
          )}
          {incident.description && (
            <>
              <dt>Description</dt>
              <dd>{incident.description}</dd>
            </>
          )}
          <dt>Responder</dt>
          <dd>{assigned ? `${assigned.name}${assigned.eta_minutes !== null ? `, ETA ${assigned.eta_minutes} min` : ''}` : 'None yet'}</dd>
        </dl>
        {callList?.site && (
          <div data-testid="control-call-list">
            <h3>{callList.site.name}: call in this order</h3>
            <ol>
              {callList.site.call_list.map((contact) => (
                <li key={contact.phone}>
                  {contact.name}: <Phone phone={contact.phone} />
                </li>
              ))}
            </ol>
          </div>
        )}
      </section>

      {active && (
        <section className="panel stack" aria-labelledby="candidates-title" data-testid="candidates">
          <div className="row spread">
            <h2 id="candidates-title">Nearest verified responders</h2>
            <button type="button" disabled={chosen.size === 0} onClick={() => void offer(candidates.filter((c) => chosen.has(c.responder_id)))}>
              Offer to the chosen ({chosen.size})
            </button>
          </div>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Choose</th>
                  <th scope="col">Responder</th>
                  <th scope="col">Distance</th>
                  <th scope="col">Status</th>
                  <th scope="col">Position</th>
                  <th scope="col">Skills</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {candidates.map((candidate) => {
                  const free = candidate.status !== 'busy' && candidate.status !== 'offered';
                  return (
                    <tr key={candidate.responder_id} data-testid="candidate" data-responder={candidate.responder_id}>
                      <td>
                        <input type="checkbox" aria-label={`Choose ${candidate.name}`} disabled={!free} checked={chosen.has(candidate.responder_id)} onChange={() => toggle(candidate.responder_id)} />
                      </td>
                      <td>
                        {candidate.name}
                        <br />
                        <Phone phone={candidate.phone} />
                      </td>
                      <td>{candidate.distance_km} km</td>
                      <td>
                        {words(candidate.status)}
                        {candidate.declined && <span className="muted small">{` · declined${candidate.declined.reason ? `: ${candidate.declined.reason}` : ''}`}</span>}
                      </td>
                      <td>{fixAge(candidate.fix_age_s)}</td>
                      <td>{candidate.skills.map(words).join(', ') || '—'}</td>
                      <td>
                        <button type="button" disabled={!free} onClick={() => void offer([candidate])} aria-label={`Offer to ${candidate.name}`}>
                          Offer
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {candidates.length === 0 && <p className="muted">No verified responder has a position yet.</p>}
        </section>
      )}

      <section className="panel stack" aria-labelledby="offers-title">
        <h2 id="offers-title">Offers and declines</h2>
        {active && (
          <label className="stack-tight">
            Reason (to stand down or reassign)
            <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} placeholder="Closer help found" />
          </label>
        )}
        <ul data-testid="control-offers">
          {details.offers.map((item) => (
            <li key={item.offer_id} className="row">
              <span>
                {item.responder_name}: {item.status}, round {item.round}, {item.distance_km} km{item.offered_by ? ', by Tsaro control' : ''}
                {item.decline_reason && ` (${item.decline_reason})`} · <Time iso={item.answered_at ?? item.offered_at} relative />
              </span>
              {active && item.status === 'pending' && (
                <button type="button" onClick={() => void standDown(item.responder_id, item.responder_name)} aria-label={`Stand down ${item.responder_name}`}>
                  Stand down
                </button>
              )}
            </li>
          ))}
        </ul>
        {details.offers.length === 0 && pending.length === 0 && <p className="muted">Offered to nobody yet.</p>}
        {assigned && active && (
          <div className="row">
            <button type="button" onClick={() => void standDown(assigned.responder_id, assigned.name)} aria-label={`Stand down ${assigned.name}`}>
              Stand {assigned.name} down
            </button>
            {(incident.status === 'assigned' || incident.status === 'responding') && (
              <button type="button" onClick={() => void reassign()}>
                Reassign
              </button>
            )}
          </div>
        )}
      </section>

      {active && (
        <section className="panel stack" aria-labelledby="act-title">
          <h2 id="act-title">Note and close</h2>
          <label className="stack-tight">
            Note what was done
            <textarea value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} rows={2} placeholder="Police on the way" />
          </label>
          <button type="button" disabled={!note.trim()} onClick={() => void addNote()}>
            Add note
          </button>
          <div className="row">
            <label className="stack-tight">
              Outcome
              <select value={outcome} onChange={(e) => setOutcome(e.target.value as (typeof OUTCOMES)[number])}>
                {OUTCOMES.map((value) => (
                  <option key={value} value={value}>
                    {words(value)}
                  </option>
                ))}
              </select>
            </label>
            <label className="stack-tight">
              Closing notes
              <input value={closingNotes} onChange={(e) => setClosingNotes(e.target.value)} maxLength={2000} />
            </label>
            <button type="button" className="danger-outline" onClick={() => void close()}>
              Close incident
            </button>
          </div>
        </section>
      )}

      <section className="panel stack" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol data-testid="control-timeline">
          {incident.timeline.map((entry, index) => (
            <li key={index}>
              <Time iso={entry.timestamp} /> · {words(entry.event)}: {entry.message}
            </li>
          ))}
        </ol>
      </section>
    </main>
  );
}
