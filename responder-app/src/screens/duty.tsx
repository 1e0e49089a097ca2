import type { Responder } from '../api.ts';
import type { LocationState } from '../state.ts';
import { locationLine } from '../presence.ts';

export function DutyScreen(props: { responder: Responder | null; onDuty: boolean; location: LocationState; now: number; heard: boolean; onDutyChange: (next: boolean) => void }) {
  const line = locationLine(props.onDuty, props.location, props.now, props.heard);
  return (
    <main className="screen duty" data-testid="screen-duty">
      <header>
        <p className="muted">Signed in as</p>
        <h1 data-testid="responder-name">{props.responder?.name ?? '…'}</h1>
      </header>
      <button
        type="button"
        role="switch"
        aria-checked={props.onDuty}
        data-testid="duty-switch"
        className={`duty-switch ${props.onDuty ? 'on' : 'off'}`}
        onClick={() => props.onDutyChange(!props.onDuty)}
      >
        {/* The WAI-ARIA switch: one name ("On duty"), the state in aria-checked; the word beside it is for the eye. */}
        <span className="knob" />
        <span className="label">On duty</span>
        <span className="state" aria-hidden="true">
          {props.onDuty ? 'Yes' : 'No'}
        </span>
      </button>
      <p className={line.problem ? 'warning' : 'muted'} data-testid="location-status" role={line.problem ? 'alert' : undefined}>
        {line.text}
      </p>
      {props.onDuty && <p className="waiting">Waiting for incidents near you. Keep this app open.</p>}
    </main>
  );
}
