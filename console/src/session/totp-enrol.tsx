import { useEffect, useState, type FormEvent } from 'react';
import { describeError, type Client, type Schemas } from '../api.ts';
import { CopyButton, ErrorNote, Field, Qr } from '../components/ui.tsx';

/** What confirming the authenticator answers: the session and the ten recovery codes. */
export type Enrolled = Schemas['ConfirmedTotp'];

/** `JBSW Y3DP …`: a secret people can type without losing their place. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

/**
 * Set up an authenticator: the `otpauth://` URI as a QR code and the secret as text, then one
 * code to prove it works. Used at first sign-in and to re-enrol from the account page.
 */
export function TotpEnrolment({ client, onEnrolled }: { client: Client; onEnrolled: (enrolled: Enrolled) => void }) {
  const [enrolment, setEnrolment] = useState<Schemas['TotpEnrolment'] | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let current = true;
    client.post('/console/totp/enrolment').then(
      (answer) => current && setEnrolment(answer),
      (failure: unknown) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [client]);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onEnrolled(await client.post('/console/totp/enrolment/confirm', { body: { code: code.replace(/\s/g, '') } }));
    } catch (failure) {
      setError(describeError(failure));
      setCode('');
    } finally {
      setBusy(false);
    }
  }
  if (!enrolment) return error ? <ErrorNote error={error} /> : <p className="muted">Preparing your secret…</p>;
  return (
    <div className="enrol" data-testid="totp-enrolment">
      <ol className="steps">
        <li>Open an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…).</li>
        <li>Scan this code, or type the secret by hand.</li>
        <li>Type the six digits the app shows.</li>
      </ol>
      <div className="enrol-body">
        <Qr text={enrolment.otpauth_uri} label="QR code of your authenticator secret" />
        <div className="stack">
          <p className="eyebrow">Secret</p>
          <p className="secret-row">
            <code className="secret" data-testid="totp-secret">
              {grouped(enrolment.secret)}
            </code>
            <CopyButton text={enrolment.secret} />
          </p>
          <details>
            <summary>Setup link (otpauth URI)</summary>
            <code className="wrap" data-testid="otpauth-uri">
              {enrolment.otpauth_uri}
            </code>
          </details>
          <form onSubmit={submit} className="stack">
            <Field label="Six-digit code" id="enrol-code">
              <input id="enrol-code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
            </Field>
            <ErrorNote error={error} />
            <button type="submit" className="primary" disabled={busy}>
              Turn on two-step sign-in
            </button>
          </form>
        </div>
      </div>
    </div>
  );
}

/** The ten recovery codes, once: copy, print or download them as text before going on. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [kept, setKept] = useState(false);
  const text = `Tsaro Console recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  const download = `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
  return (
    <div className="stack" data-testid="recovery-codes">
      <p className="warning">
        <strong>Keep these ten codes somewhere safe, apart from your phone.</strong> Each one signs you in once if you lose your authenticator. They are
        shown only now.
      </p>
      <ol className="codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p className="row no-print">
        <CopyButton text={text} label="Copy all" />
        <a className="button" href={download} download="tsaro-recovery-codes.txt">
          Download as text
        </a>
        <button type="button" onClick={() => window.print()}>
          Print
        </button>
      </p>
      <label className="check no-print">
        <input type="checkbox" checked={kept} onChange={(e) => setKept(e.target.checked)} /> I have kept my recovery codes
      </label>
      <button type="button" className="primary no-print" disabled={!kept} onClick={onDone}>
        Continue
      </button>
    </div>
  );
}
