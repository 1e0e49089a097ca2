import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError, type Client, type Schemas } from '../api.ts';
import { ErrorNote, Field, Time } from '../components/ui.tsx';
import { ROLE_SENTENCES } from '../permissions.ts';
import { AuthFrame } from './sign-in.tsx';

export const PASSWORD_RULES = 'At least 12 characters, and not a common password. A few unrelated words make a good one.';

/**
 * An invitation link: who invited you to what, then a password: a new one, or for someone who
 * signs in to Tsaro already (another organization), the one they have. What follows (a code, the
 * authenticator, the recovery codes) is the session's stage, which the app takes from here.
 */
export function JoinScreen({ client, token, onSession }: { client: Client; token: string; onSession: (session: Schemas['ConsoleSession']) => void }) {
  const [invitation, setInvitation] = useState<Schemas['Invitation'] | null>(null);
  /** The email signs in to Tsaro already (another organization): they join with that password. */
  const [signsIn, setSignsIn] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let current = true;
    // The client encodes the token into the path.
    client.get('/console/invitations/{token}', { params: { path: { token } } }).then(
      ({ invitation, signs_in_already }) => {
        if (!current) return;
        setInvitation(invitation);
        setSignsIn(signs_in_already);
        setName(invitation.name ?? '');
      },
      (failure: unknown) =>
        current &&
        setLoadError(
          failure instanceof ApiError && failure.status === 404
            ? 'This link has been used, has expired (links last 7 days) or was withdrawn. Ask whoever invited you for a new one.'
            : describeError(failure),
        ),
    );
    return () => {
      current = false;
    };
  }, [client, token]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    // Someone who signs in already gives the password they have: nothing to compare, no name to choose.
    if (!signsIn && password !== again) {
      setError('The two passwords differ.');
      return;
    }
    if (!signsIn && password.length < 12) {
      setError('The password needs at least 12 characters.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const body = signsIn || invitation?.kind === 'reset' || !name.trim() ? { password } : { password, name: name.trim() };
      const { session } = await client.post('/console/invitations/{token}/accept', { params: { path: { token } }, body });
      onSession(session);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  if (loadError)
    return (
      <AuthFrame title="This link does not work">
        <p role="alert">{loadError}</p>
        <a href="/console/sign-in">Go to sign-in</a>
      </AuthFrame>
    );
  if (!invitation)
    return (
      <AuthFrame title="Opening your invitation…">
        <p className="muted">One moment.</p>
      </AuthFrame>
    );
  const reset = invitation.kind === 'reset';
  const expiry = (
    <p className="muted small">
      This link works once, until <Time iso={invitation.expires_at} />.
    </p>
  );
  if (signsIn)
    return (
      <AuthFrame title={`Join ${invitation.organization_name}`}>
        <p data-testid="invitation">
          You are invited as <strong>{invitation.role}</strong> with <strong>{invitation.email}</strong>. {ROLE_SENTENCES[invitation.role]}
        </p>
        <p data-testid="signs-in-already">
          You already sign in to Tsaro with this email: enter your password to join {invitation.organization_name}. Your password and two-step sign-in
          stay as they are, and you switch between your organizations in the console.
        </p>
        {expiry}
        <form onSubmit={submit} className="stack" data-testid="join-form">
          <input type="email" autoComplete="username" value={invitation.email} readOnly hidden />
          <Field label="Your Tsaro password" id="current-password">
            <input id="current-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <ErrorNote error={error} />
          <button type="submit" className="primary" disabled={busy}>
            Join {invitation.organization_name}
          </button>
        </form>
      </AuthFrame>
    );
  return (
    <AuthFrame title={reset ? 'Choose a new password' : `Join ${invitation.organization_name ?? 'your organization'}`}>
      <p data-testid="invitation">
        {reset ? (
          <>
            A new password and a new authenticator for <strong>{invitation.email}</strong>. Your old password and authenticator stop working.
          </>
        ) : (
          <>
            You are invited as <strong>{invitation.role}</strong> with <strong>{invitation.email}</strong>. {ROLE_SENTENCES[invitation.role]}
          </>
        )}
      </p>
      {expiry}
      <form onSubmit={submit} className="stack" data-testid="join-form">
        {!reset && (
          <Field label="Your name" id="name" hint="How colleagues see you in the people list and the audit log.">
            <input id="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
          </Field>
        )}
        <input type="email" autoComplete="username" value={invitation.email} readOnly hidden />
        <Field label="Password" id="new-password" hint={PASSWORD_RULES}>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-describedby="new-password-hint"
          />
        </Field>
        <Field label="The same password again" id="again">
          <input id="again" type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {reset ? 'Set the new password' : 'Join'}
        </button>
      </form>
    </AuthFrame>
  );
}
