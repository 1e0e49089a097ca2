import { useState, type FormEvent } from 'react';
import { describeError } from '../api.ts';
import { ConfirmButton, ErrorNote, Field, Notice, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { deviceOf } from '../format.ts';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { PASSWORD_RULES } from './join.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { RecoveryCodes, TotpEnrolment } from './totp-enrol.tsx';

function Sessions() {
  const { client, signOut } = useConsole();
  const [error, setError] = useState<string | null>(null);
  const sessions = useList('/console/sessions', {});
  return (
    <section className="stack" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <ErrorNote error={error} />
      <ListTable
        list={sessions}
        rowKey={(s) => s.session_id}
        rowProps={() => ({ 'data-testid': 'session-row' })}
        empty={{ title: 'No sessions.', body: 'Odd: this one should be here. Reload the page.' }}
        columns={[
          {
            header: 'Device',
            cell: (s) => (
              <>
                {deviceOf(s.user_agent)} {s.current && <span className="tag good">this browser</span>}
                {s.user_agent && <p className="muted small ua">{s.user_agent}</p>}
              </>
            ),
          },
          { header: 'Address', cell: (s) => s.ip ?? '—' },
          { header: 'Signed in', cell: (s) => <Time iso={s.created_at} /> },
          { header: 'Last active', cell: (s) => <Time iso={s.last_active_at} relative /> },
          {
            header: 'Actions',
            cell: (s) =>
              s.current ? (
                <button type="button" onClick={() => void signOut()}>
                  Sign out
                </button>
              ) : (
                <ConfirmButton
                  label="Sign out"
                  question="Sign that device out?"
                  onConfirm={() =>
                    client.del('/console/sessions/{sessionId}', { params: { path: { sessionId: s.session_id } } }).then(sessions.reload, (e: unknown) => setError(describeError(e)))
                  }
                />
              ),
          },
        ]}
      />
    </section>
  );
}

function ChangePassword() {
  const { client } = useConsole();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    if (next !== again) return setError('The two new passwords differ.');
    setError(null);
    try {
      await client.post('/console/password', { body: { current_password: current, new_password: next } });
      setDone(true);
      setCurrent('');
      setNext('');
      setAgain('');
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form className="panel stack" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <Field label="Current password" id="current-password">
        <input id="current-password" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      </Field>
      <Field label="New password" id="changed-password" hint={PASSWORD_RULES}>
        <input id="changed-password" type="password" autoComplete="new-password" required minLength={12} value={next} onChange={(e) => setNext(e.target.value)} />
      </Field>
      <Field label="New password again" id="changed-again">
        <input id="changed-again" type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
      </Field>
      <ErrorNote error={error} />
      {done && <Notice>Password changed.</Notice>}
      <p>
        <button type="submit" className="primary">
          Change password
        </button>
      </p>
    </form>
  );
}

function TwoStep() {
  const { client, session, refreshSession } = useConsole();
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  const enabled = session.person.totp_enabled;
  return (
    <section className="panel stack" aria-labelledby="totp-title">
      <h2 id="totp-title">Two-step sign-in</h2>
      <p>
        {enabled
          ? 'On: you sign in with your password and a code from your authenticator app.'
          : 'Off: a password alone signs you in. Turn it on: it takes a minute.'}
      </p>
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      ) : enrolling ? (
        <>
          <p className="warning">Setting up a new authenticator replaces the old one and your old recovery codes once you confirm with a code.</p>
          <TotpEnrolment
            client={client}
            onEnrolled={({ recovery_codes }) => {
              setEnrolling(false);
              setCodes(recovery_codes);
              void refreshSession();
            }}
          />
          <button type="button" onClick={() => setEnrolling(false)}>
            Cancel
          </button>
        </>
      ) : (
        <p>
          <button type="button" className={enabled ? '' : 'primary'} onClick={() => setEnrolling(true)}>
            {enabled ? 'Set up a new authenticator' : 'Turn on two-step sign-in'}
          </button>
        </p>
      )}
    </section>
  );
}

export function AccountScreen() {
  const { session } = useConsole();
  return (
    <section className="stack" data-testid="screen-account">
      <ScreenHeader title="Your account">
        {session.person.name ? `${session.person.name}, ` : ''}
        {session.person.email}, {session.person.role} of {session.organization.name}. This session ends after a spell of no use, or at{' '}
        <Time iso={session.expires_at} /> at the latest.
      </ScreenHeader>
      <Sessions />
      <div className="two-col">
        <ChangePassword />
        <TwoStep />
      </div>
    </section>
  );
}
