import { useCallback, useEffect, useState } from 'react';
import { call, type AnswerOf } from '../api.ts';

type DutyState = AnswerOf<'get', '/duty'>;

/** How often the app asks the server its duty state (status, the next "I'm OK" due on scene)... */
const LOOK_EVERY_MS = 20_000;
/** ...and while it has just arrived on scene and the server has not yet said when the first check-in is due. */
const LOOK_ARRIVING_MS = 3_000;

const minutesLeft = (dueAt: string, now: number) => Math.round((Date.parse(dueAt) - now) / 60_000);

/**
 * Safety (issue #47), under every screen while signed in: on scene, the "I'm OK" check-in with
 * when it is due (one missed alerts Tsaro's controllers, who call; two missed put the case at the
 * top of their queue); the panic button, pressed twice to be sure; and out of service with a
 * reason. A web app on a locked phone may be throttled: the server, not this screen, counts the
 * missed check-ins.
 */
export function SafetyBar({ token, now, onDuty, onScene, onBackInService }: { token: string; now: number; onDuty: boolean; onScene: boolean; onBackInService: () => void }) {
  const [state, setState] = useState<DutyState | null>(null);
  const [arming, setArming] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [askingReason, setAskingReason] = useState(false);

  const look = useCallback(async () => {
    try {
      const answer = await call(token, 'get', '/duty');
      if (answer.ok) setState(answer.body);
    } catch {
      // No network: the outbox bar says so; the next look tries again.
    }
  }, [token]);
  const arriving = onScene && !state?.check_in;
  useEffect(() => {
    void look();
    const timer = setInterval(() => void look(), arriving ? LOOK_ARRIVING_MS : LOOK_EVERY_MS);
    return () => clearInterval(timer);
  }, [look, arriving]);

  const checkIn = async (incidentId: string) => {
    try {
      const answer = await call(token, 'post', '/incidents/{incidentId}/check-in', { params: { path: { incidentId } } });
      if (answer.ok) {
        setState(answer.body);
        setSaid('Thank you: Tsaro control knows you are OK.');
      } else setSaid(answer.body.message);
    } catch {
      setSaid('No network: your "I\'m OK" did not reach Tsaro control. Call them if you can.');
    }
  };
  const panic = async () => {
    if (!arming) return setArming(true);
    setArming(false);
    try {
      const answer = await call(token, 'post', '/panic', { body: {} });
      setSaid(answer.ok ? 'Panic sent: Tsaro control is alerted.' : answer.body.message);
    } catch {
      setSaid('No network: the panic did not go. Call for help by phone.');
    }
  };
  const outOfService = async () => {
    if (!reason.trim()) return;
    try {
      const answer = await call(token, 'put', '/out-of-service', { body: { reason: reason.trim() } });
      if (answer.ok) {
        setAskingReason(false);
        setReason('');
        await look();
      } else setSaid(answer.body.message);
    } catch {
      setSaid('No network: try again.');
    }
  };
  const backInService = async () => {
    try {
      const answer = await call(token, 'delete', '/out-of-service');
      if (answer.ok) onBackInService();
      await look();
    } catch {
      setSaid('No network: try again.');
    }
  };

  const check = state?.check_in;
  const outOfServiceNow = state?.duty.duty_status === 'out_of_service';
  return (
    <section className="safety" data-testid="safety">
      {check && (
        <div className={`check-in ${Date.parse(check.due_at) <= now ? 'due' : ''}`} data-testid="check-in">
          <p>{Date.parse(check.due_at) <= now ? 'Are you OK? Tsaro control is waiting.' : `Next "I'm OK" in ${Math.max(0, minutesLeft(check.due_at, now))} min.`}</p>
          <button type="button" className="big primary" data-testid="check-in-ok" onClick={() => void checkIn(check.incident_id)}>
            I'm OK
          </button>
        </div>
      )}
      {said && (
        <p className="muted" role="status">
          {said}
        </p>
      )}
      <button type="button" className={`big panic ${arming ? 'armed' : ''}`} data-testid="panic" onClick={() => void panic()}>
        {arming ? 'Press again to send panic' : 'Panic'}
      </button>
      {arming && (
        <button type="button" className="link" onClick={() => setArming(false)}>
          Cancel
        </button>
      )}
      {outOfServiceNow ? (
        <div className="step" data-testid="out-of-service">
          <p className="warning">Out of service: {state?.duty.out_of_service_reason}. You are offered nothing.</p>
          <button type="button" onClick={() => void backInService()}>
            Back in service
          </button>
        </div>
      ) : (
        onDuty &&
        !check &&
        (askingReason ? (
          <form
            className="step"
            onSubmit={(event) => {
              event.preventDefault();
              void outOfService();
            }}
          >
            <label htmlFor="oos-reason">Why are you out of service?</label>
            <input id="oos-reason" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} placeholder="Flat tyre, off sick…" />
            <button type="submit" disabled={!reason.trim()}>
              Go out of service
            </button>
          </form>
        ) : (
          <button type="button" className="link" data-testid="out-of-service-start" onClick={() => setAskingReason(true)}>
            Out of service…
          </button>
        ))
      )}
    </section>
  );
}
