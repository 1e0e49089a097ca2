import { useState } from 'react';
import { phoneForReading, telHref } from '../../../shared/phone.ts';
import type { Work } from '../state.ts';
import { EstateLine } from './estate.tsx';

/** The contract's list of outcomes (shared/schemas/responders.ts, ResolveRequest). */
export const OUTCOMES = ['assisted', 'false_alarm', 'no_action_required', 'referred_to_authorities', 'medical_transport', 'unable_to_locate'] as const;
const words = (text: string) => text.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

const STEP_TEXT: Record<Work['step'], string> = {
  accepting: 'Accepting…',
  assigned: 'Assigned to you',
  responding: 'On your way',
  on_scene: 'On scene',
  resolved: 'Resolved',
};

export function IncidentScreen(props: {
  work: Work;
  onMyWay: (eta: number) => void;
  onScene: () => void;
  onResolve: (outcome: string, notes: string) => void;
}) {
  const { incident, step } = props.work;
  const [longitude, latitude] = incident.location.coordinates;
  const [eta, setEta] = useState(String(incident.eta_minutes ?? 10));
  const [resolving, setResolving] = useState(false);
  const [outcome, setOutcome] = useState('');
  const [notes, setNotes] = useState('');
  const place = incident.location.address ?? incident.location.landmark ?? `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`;
  return (
    <main className="screen incident" data-testid="screen-incident">
      <p className="eyebrow" data-testid="incident-step">
        {STEP_TEXT[step]}
        {!props.work.confirmed && step !== 'accepting' ? ' (accept not yet confirmed)' : ''}
      </p>
      <h1>{incident.title}</h1>
      <section className="card">
        <p className="muted">Person to help</p>
        <p className="subject" data-testid="subject-name">
          {incident.subject.name}
        </p>
        {incident.subject.phone && (
          <a className="big call" href={telHref(incident.subject.phone)} data-testid="subject-call">
            Call {phoneForReading(incident.subject.phone)}
          </a>
        )}
      </section>
      <section className="card">
        <p className="muted">Where</p>
        <p data-testid="incident-place">{place}</p>
        <EstateLine incident={incident} />
        {incident.location.landmark && incident.location.address && <p className="muted">Landmark: {incident.location.landmark}</p>}
        <div className="nav-links">
          <a href={`geo:${latitude},${longitude}?q=${latitude},${longitude}`} data-testid="nav-geo">
            Navigate
          </a>
          <a href={`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=17/${latitude}/${longitude}`} target="_blank" rel="noreferrer" data-testid="nav-osm">
            OpenStreetMap
          </a>
        </div>
      </section>
      {(step === 'accepting' || step === 'assigned') && (
        <div className="step">
          <label htmlFor="eta">Minutes to get there</label>
          <input id="eta" name="eta" type="number" inputMode="numeric" min={0} max={600} value={eta} onChange={(event) => setEta(event.target.value)} />
          <button type="button" className="big primary" data-testid="step-on-my-way" onClick={() => props.onMyWay(Math.max(0, Math.min(600, Math.round(Number(eta) || 0))))}>
            On my way
          </button>
        </div>
      )}
      {step === 'responding' && (
        <button type="button" className="big primary" data-testid="step-on-scene" onClick={props.onScene}>
          On scene
        </button>
      )}
      {step === 'on_scene' && !resolving && (
        <button type="button" className="big primary" data-testid="step-resolve" onClick={() => setResolving(true)}>
          Resolve
        </button>
      )}
      {step === 'on_scene' && resolving && (
        <form
          className="step"
          data-testid="resolve-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (outcome) props.onResolve(outcome, notes);
          }}
        >
          <fieldset>
            <legend>Outcome</legend>
            {OUTCOMES.map((value) => (
              <label key={value} className="choice">
                <input type="radio" name="outcome" value={value} checked={outcome === value} onChange={() => setOutcome(value)} />
                {words(value)}
              </label>
            ))}
          </fieldset>
          <label htmlFor="notes">Notes (optional)</label>
          <textarea id="notes" name="notes" maxLength={2000} rows={3} value={notes} onChange={(event) => setNotes(event.target.value)} />
          <button type="submit" className="big primary" disabled={!outcome} data-testid="resolve-submit">
            Resolve incident
          </button>
        </form>
      )}
      {step === 'resolved' && <p className="waiting">Resolution recorded on this phone; it is sent as soon as the network answers.</p>}
    </main>
  );
}
