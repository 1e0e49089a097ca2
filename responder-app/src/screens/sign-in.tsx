import { useState } from 'react';
import type { Notice } from '../state.ts';

export function SignInScreen({ notice, onSignIn }: { notice: Notice | null; onSignIn: (link: string) => boolean }) {
  const [link, setLink] = useState('');
  const [bad, setBad] = useState(false);
  return (
    <main className="screen sign-in" data-testid="screen-sign-in">
      <img src="/responder/icon.svg" alt="" className="logo" />
      <h1>Tsaro Responder</h1>
      {notice && (
        <p className="warning" role="alert" data-testid="sign-in-notice">
          <strong>{notice.title}.</strong> {notice.text}
        </p>
      )}
      <p>Scan the QR code your operator printed with <code>tsaro responder add</code>, or open the sign-in link on this phone.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setBad(!onSignIn(link));
        }}
      >
        <label htmlFor="link">Or paste the link here</label>
        <input id="link" name="link" value={link} onChange={(event) => setLink(event.target.value)} placeholder="https://…/responder/#token=rtk_…" autoComplete="off" />
        {bad && <p className="error">That is not a Tsaro sign-in link: it must hold a token starting rtk_.</p>}
        <button type="submit" className="big primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
