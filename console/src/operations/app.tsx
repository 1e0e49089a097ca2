import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useActions } from './use-actions.ts';
import { ErrorNote, Field } from '../components/ui.tsx';
import { Link, navigate } from '../router.tsx';
import { ControlIncident } from './incident.tsx';
import { StaffReports } from './reports.tsx';
import { Roster } from './roster.tsx';
import { AuthFrame } from '../session/sign-in.tsx';
import { DutyPanel } from './duty.tsx';
import { LiveMap } from './live-map.tsx';
import { ChannelNotice, StaffLiveProvider, useStaffLive } from './staff-live.tsx';
import { answerOf, createStaffClient, type StaffClient, type StaffSchemas, type StaffSession } from './client.ts';

/**
 * The operations centre's view of the console (issue #47), for Tsaro's own staff: its own
 * sign-in (a password, then always the authenticator), the queue of live incidents across
 * organizations, taking one, and offering it to a chosen responder; an incident's own screen
 * (./incident.tsx), the roster (./roster.tsx) and the response intervals (./reports.tsx). Served
 * under /console/staff.
 */
export function OperationsApp({ path }: { path: string }) {
  const [session, setSession] = useState<StaffSession | null | undefined>(undefined);
  const csrf = useRef<string | undefined>(undefined);
  csrf.current = session?.csrf_token;
  const [client] = useState(() => createStaffClient(() => csrf.current));
  const [ended, setEnded] = useState(false);
  // The session ended elsewhere (signed out, timed out): back to the sign-in, saying why.
  const signedOut = useCallback(() => {
    setEnded(true);
    setSession(null);
  }, []);

  useEffect(() => {
    answerOf(client.GET('/session')).then(
      ({ session: found }) => setSession(found),
      () => setSession(null),
    );
  }, [client]);

  const join = /^\/staff\/join\/([^/]+)$/.exec(path);
  if (session === undefined) return <AuthFrame title="Tsaro operations">Opening…</AuthFrame>;
  if (!session && join) return <JoinStaff client={client} token={decodeURIComponent(join[1]!)} onSession={setSession} />;
  if (!session) return <SignIn client={client} onSession={setSession} notice={ended ? 'Your session ended: sign in again.' : null} />;
  if (session.stage === 'enrol_totp') return <Enrol client={client} onSession={setSession} />;
  if (session.stage === 'totp') return <Code client={client} onSession={setSession} />;
  if (join) queueMicrotask(() => navigate('/staff', { replace: true }));
  const incident = /^\/staff\/incidents\/([^/]+)$/.exec(path);
  // One staff channel for every screen of the signed-in console (./staff-live.tsx).
  return (
    <StaffLiveProvider client={client} mayDispatch={session.staff.role !== 'network_admin'} onSignedOut={signedOut}>
      <nav className="row operations-nav" aria-label="Operations">
        <Link to="/staff">Queue</Link>
        <Link to="/staff/roster">Responders</Link>
        <Link to="/staff/reports">Reports</Link>
      </nav>
      {incident ? (
        <ControlIncident key={incident[1]} client={client} session={session} incidentId={decodeURIComponent(incident[1]!)} />
      ) : path === '/staff/roster' ? (
        <Roster client={client} session={session} />
      ) : path === '/staff/reports' ? (
        <StaffReports client={client} />
      ) : (
        <Queue client={client} session={session} onSignOut={() => setSession(null)} />
      )}
    </StaffLiveProvider>
  );
}

function useSubmit(run: () => Promise<void>) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

type Step = { client: StaffClient; onSession: (session: StaffSession) => void };

function JoinStaff({ client, token, onSession }: Step & { token: string }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => onSession((await answerOf(client.POST('/invitations/{token}/accept', { params: { path: { token } }, body: { password, name } }))).session));
  return (
    <AuthFrame title="Join Tsaro's operations centre">
      <form onSubmit={submit} className="stack" data-testid="staff-join">
        <Field label="Your name" id="staff-name">
          <input id="staff-name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
        <Field label="Password (12 characters or more)" id="staff-password">
          <input id="staff-password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Join
        </button>
      </form>
    </AuthFrame>
  );
}

function SignIn({ client, onSession, notice }: Step & { notice: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => onSession((await answerOf(client.POST('/sign-in', { body: { email, password } }))).session));
  return (
    <AuthFrame title="Operations sign-in">
      {notice && (
        <p className="notice" role="status" data-testid="staff-session-ended">
          {notice}
        </p>
      )}
      <form onSubmit={submit} className="stack" data-testid="staff-sign-in">
        <Field label="Email" id="staff-email">
          <input id="staff-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </Field>
        <Field label="Password" id="staff-password">
          <input id="staff-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </AuthFrame>
  );
}

function Enrol({ client, onSession }: Step) {
  const [enrolment, setEnrolment] = useState<StaffSchemas['TotpEnrolment'] | null>(null);
  const [code, setCode] = useState('');
  useEffect(() => {
    void answerOf(client.POST('/totp/enrolment', { body: {} })).then(setEnrolment);
  }, [client]);
  const { error, busy, submit } = useSubmit(async () => onSession((await answerOf(client.POST('/totp/enrolment/confirm', { body: { code } }))).session));
  return (
    <AuthFrame title="Set up your authenticator">
      <p>Staff always sign in with a code from an authenticator app. Add this key to the app, then type the code it shows.</p>
      {enrolment && (
        <p>
          Key: <code data-testid="staff-totp-secret">{enrolment.secret}</code>
        </p>
      )}
      <form onSubmit={submit} className="stack">
        <Field label="Code" id="staff-enrol-code">
          <input id="staff-enrol-code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value.trim())} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Confirm
        </button>
      </form>
    </AuthFrame>
  );
}

function Code({ client, onSession }: Step) {
  const [code, setCode] = useState('');
  const { error, busy, submit } = useSubmit(async () => onSession((await answerOf(client.POST('/sign-in/totp', { body: { code } }))).session));
  return (
    <AuthFrame title="Your code">
      <form onSubmit={submit} className="stack">
        <Field label="Code from your authenticator" id="staff-code">
          <input id="staff-code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value.trim())} autoFocus />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </AuthFrame>
  );
}

const URGENCY_WORDS: Record<StaffSchemas['QueueItem']['urgency'], string> = {
  responder_in_danger: 'Responder in danger',
  unresponsive: 'Unresponsive',
  escalated: 'Escalated',
  window_half_spent: 'Half the window gone',
  other: '',
};

/**
 * The queue, most urgent first, as the staff channel sends it (no polling while it is up); a taken
 * incident's nearest verified responders, each offered with one press.
 */
function Queue({ client, session, onSignOut }: { client: StaffClient; session: StaffSession; onSignOut: () => void }) {
  const live = useStaffLive();
  const [chosen, setChosen] = useState<string | null>(null);
  const [candidates, setCandidates] = useState<StaffSchemas['DispatchCandidate'][]>([]);
  const { said, error, run } = useActions();
  const mayDispatch = session.staff.role !== 'network_admin';
  const incidents = mayDispatch ? (live.data?.queue ?? []) : [];

  const act = (action: () => Promise<string>) => run(action, live.refresh);
  const take = (incidentId: string) =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/take', { params: { path: { incidentId } }, body: {} }));
      setChosen(incidentId);
      setCandidates((await answerOf(client.GET('/incidents/{incidentId}/candidates', { params: { path: { incidentId } } }))).candidates);
      return 'You are handling it.';
    });
  const offer = (candidate: StaffSchemas['DispatchCandidate']) =>
    act(async () => {
      await answerOf(client.POST('/incidents/{incidentId}/offers', { params: { path: { incidentId: chosen! } }, body: { responder_id: candidate.responder_id } }));
      return `Offered to ${candidate.name}.`;
    });
  const signOut = async () => {
    await answerOf(client.POST('/sign-out', { body: {} })).catch(() => undefined);
    onSignOut();
  };

  return (
    <main className="stack operations" data-testid="operations-queue">
      <header className="row">
        <h1>Live queue</h1>
        <span className="muted">
          {session.staff.name ?? session.staff.email} ({session.staff.role})
        </span>
        <button type="button" className="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {!mayDispatch && <p>Network admins keep the roster; the queue is for controllers and supervisors.</p>}
      <ChannelNotice />
      {said && (
        <p className="notice" role="status">
          {said}
        </p>
      )}
      <ErrorNote error={error} />
      <table>
        <thead>
          <tr>
            <th>Urgency</th>
            <th>Incident</th>
            <th>Organization</th>
            <th>Status</th>
            <th>Handled by</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {incidents.map((item) => (
            <tr key={item.incident_id} data-testid="queue-row" data-incident={item.incident_id} data-status={item.status}>
              <td>{URGENCY_WORDS[item.urgency]}</td>
              <td>
                {item.title}
                <br />
                <span className="muted small">{item.location.address}</span>
              </td>
              <td>{item.organization_name}</td>
              <td>{item.status}</td>
              <td>{item.owner?.name ?? 'nobody'}</td>
              <td>
                <div className="row">
                  <button type="button" onClick={() => void take(item.incident_id)}>
                    Take
                  </button>
                  <Link to={`/staff/incidents/${encodeURIComponent(item.incident_id)}`} aria-label={`Open ${item.title}`}>
                    Open
                  </Link>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {incidents.length === 0 && mayDispatch && <p className="muted">{live.data ? 'No live incident is waiting.' : 'Reading the queue…'}</p>}
      {chosen && (
        <section className="stack" data-testid="candidates">
          <h2>Nearest verified responders</h2>
          <ul>
            {candidates.map((candidate) => (
              <li key={candidate.responder_id} className="row">
                <span>
                  {candidate.name}: {candidate.distance_km} km, {candidate.status}
                  {candidate.fix_age_s !== null && `, fix ${Math.round(candidate.fix_age_s / 60)} min old`}
                  {candidate.fix_stale && ' (stale: not ranked)'}
                  {`, ${candidate.duty_status.replace(/_/g, ' ')}${candidate.out_of_service_reason ? ` (${candidate.out_of_service_reason})` : ''}`}
                  {candidate.skills.length > 0 && `, ${candidate.skills.join(', ')}`}
                  {candidate.declined && `, declined before${candidate.declined.reason ? `: ${candidate.declined.reason}` : ''}`}
                </span>
                <button type="button" onClick={() => void offer(candidate)} disabled={candidate.status === 'busy' || candidate.status === 'offered'} aria-label={`Offer to ${candidate.name}`}>
                  Offer
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <DutyPanel client={client} session={session} />
      <LiveMap />
    </main>
  );
}
