import { useState } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { useConsole } from '../context.tsx';

type Code = Schemas['AccessCode'];

/**
 * "Send by text": the visitor's phone receives the code and a short link to the pass's image
 * (`POST /access-codes/{codeId}/send`). Live codes only, as the server decides; what it answers
 * (sent, or why not: a sandbox code, texts off, a landline, the hourly limit) is said beside the
 * button, as text.
 */
export function SendPassByText({ code }: { code: Code }) {
  const { client, environment } = useConsole();
  const [said, setSaid] = useState<{ ok: boolean; words: string } | null>(null);
  const [busy, setBusy] = useState(false);
  if (environment !== 'live') return null;
  const send = async () => {
    setBusy(true);
    setSaid(null);
    try {
      const answer = await client.post('/access-codes/{codeId}/send', { params: { path: { codeId: code.code_id } }, idempotencyKey: crypto.randomUUID() });
      setSaid({ ok: true, words: `Sent to ${answer.phone}: the link works until the code ends or is revoked.` });
    } catch (failure) {
      setSaid({ ok: false, words: describeError(failure) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="send-pass" data-testid="send-pass">
      <button type="button" className="link" onClick={() => void send()} disabled={busy || code.status !== 'active' || !code.visitor_phone}>
        Send by text
      </button>
      {said && (
        <span role={said.ok ? 'status' : 'alert'} className={said.ok ? 'muted small' : 'error small'} data-testid="send-pass-said">
          {' '}
          {said.words}
        </span>
      )}
    </span>
  );
}
