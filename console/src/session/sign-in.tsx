import { useState, type FormEvent, type ReactNode } from 'react';
import { describeError, type Client, type Schemas } from '../api.ts';
import { ErrorNote, Field, Notice } from '../components/ui.tsx';

type Session = Schemas['ConsoleSession'];

function Frame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth" data-testid="screen-auth">
      <div className="auth-card">
        <p className="brand">
          <img src="/console/icon.svg" alt="" width="32" height="32" /> Tsaro Console
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
export { Frame as AuthFrame };

export function SignInScreen({ client, notice, onSession }: { client: Client; notice: string | null; onSession: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { session } = await client.post('/console/sign-in', { body: { email, password } });
      onSession(session);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Frame title="Sign in">
      {notice && <Notice>{notice}</Notice>}
      <form onSubmit={submit} className="stack" data-testid="sign-in-form">
        <Field label="Email" id="email">
          <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </Field>
        <Field label="Password" id="password">
          <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">
        No account yet? Ask an owner or admin of your organization for an invitation link. Lost your password and your authenticator? An owner can
        send you a new link.
      </p>
    </Frame>
  );
}

/**
 * The second step: a code from the authenticator app, or one of the recovery codes. At sign-in, or
 * where the organization worked in asks for it and this session has not given one (`why` says so,
 * and `back` returns to the organization the person came from).
 */
export function TotpScreen({
  client,
  onSession,
  onCancel,
  why,
  back,
}: {
  client: Client;
  onSession: (session: Session) => void;
  onCancel: () => void;
  why?: ReactNode;
  back?: ReactNode;
}) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = useRecovery ? { recovery_code: code.trim() } : { code: code.replace(/\s/g, '') };
      const { session } = await client.post('/console/sign-in/totp', { body });
      onSession(session);
    } catch (failure) {
      setError(describeError(failure));
      setCode('');
    } finally {
      setBusy(false);
    }
  }
  return (
    <Frame title="Two-step sign-in">
      {why}
      <form onSubmit={submit} className="stack" data-testid="totp-form">
        {useRecovery ? (
          <Field label="Recovery code" id="code" hint="One of the ten codes you kept when you set up your authenticator. Each works once.">
            <input id="code" autoComplete="off" required value={code} onChange={(e) => setCode(e.target.value)} autoFocus />
          </Field>
        ) : (
          <Field label="Code from your authenticator app" id="code" hint="Six digits; it changes every 30 seconds.">
            <input
              id="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,7}"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
              autoFocus
            />
          </Field>
        )}
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Continue
        </button>
      </form>
      <p className="row">
        <button type="button" className="link" onClick={() => (setUseRecovery(!useRecovery), setCode(''), setError(null))}>
          {useRecovery ? 'Use a code from the app instead' : 'Lost your phone? Use a recovery code'}
        </button>
        {back}
        <button type="button" className="link" onClick={onCancel}>
          Sign in as someone else
        </button>
      </p>
    </Frame>
  );
}
