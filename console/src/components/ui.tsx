import { useEffect, useState, type ReactNode } from 'react';
import QRCode from 'qrcode';
import { phoneForReading, telHref } from '../../../shared/phone.ts';
import { formatTime, relativeTime } from '../format.ts';

/** A phone number as people read it (0803 111 2222) that dials in E.164 on a tap (issue #48). */
export function Phone({ phone }: { phone: string }) {
  return <a href={telHref(phone)}>{phoneForReading(phone)}</a>;
}

/** A time people read, with the exact instant on hover and for screen readers. */
export function Time({ iso, relative = false }: { iso: string | null | undefined; relative?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {relative ? relativeTime(iso) : formatTime(iso)}
    </time>
  );
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** What an empty list means and what to do about it. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty" data-testid="empty">
      <p className="empty-title">{title}</p>
      {children && <p className="muted">{children}</p>}
    </div>
  );
}

/** A list's page as every paged answer has it (`IncidentPage`, `ApiKeyPage`, …). */
export interface PageCounts {
  page: number;
  totalPages: number;
  totalResults: number;
  /** A search's count stopped at its ceiling: there are at least `totalResults`. */
  totalResultsCapped?: boolean;
  /** The next page's cursor; null on the last page (absent: count by pages). */
  next_cursor?: string | null;
}

export function Pager({ page, onPage }: { page: PageCounts | undefined; onPage: (page: number) => void }) {
  if (!page || page.totalResults === 0) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page.page - 1)} disabled={page.page <= 1}>
        ← Newer
      </button>
      <span>
        {page.totalResultsCapped
          ? `Page ${page.page} · more than ${page.totalResults.toLocaleString('en-GB')} match`
          : `Page ${page.page} of ${Math.max(page.totalPages, 1)} · ${page.totalResults.toLocaleString('en-GB')} in all`}
      </span>
      <button type="button" onClick={() => onPage(page.page + 1)} disabled={page.next_cursor === undefined ? page.page >= page.totalPages : page.next_cursor === null}>
        Older →
      </button>
    </nav>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <button
      type="button"
      className="copy"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setCopied('yes'),
          () => setCopied('no'),
        )
      }
    >
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy it by hand' : label}
    </button>
  );
}

/**
 * A secret the server shows once: the value as text, a copy button and the warning, which says
 * how Tsaro keeps it: a key's secret only as a hash (it checks what it is sent); a webhook's
 * signing secret sealed with the sealing key (it must sign with it), never readable back.
 */
export function SecretOnce({ label, secret, kept, children }: { label: string; secret: string; kept: 'hash' | 'sealed'; children?: ReactNode }) {
  return (
    <div className="secret-once" data-testid="secret-once">
      <p className="eyebrow">{label}</p>
      <p className="secret-row">
        <code className="secret" data-testid="secret">
          {secret}
        </code>
        <CopyButton text={secret} />
      </p>
      <p className="warning">
        <strong>Shown once.</strong> Copy it now and keep it where your application reads its secrets;{' '}
        {kept === 'hash'
          ? 'Tsaro stores only a hash of it and cannot show it again.'
          : 'Tsaro keeps it sealed, to sign deliveries with, and cannot show it again.'}
      </p>
      {children}
    </div>
  );
}

/**
 * A button whose action needs a second, deliberate press: the first press asks, in words, on
 * the page (keyboard and screen readers follow it; no browser dialog).
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  danger = true,
  disabled = false,
}: {
  label: string;
  question: string;
  confirmLabel?: string;
  onConfirm: () => Promise<unknown> | void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" className={danger ? 'danger-outline' : ''} onClick={() => setAsking(true)} disabled={disabled}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className={danger ? 'danger' : 'primary'}
        disabled={busy}
        autoFocus
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel ?? label}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}

/** A QR code drawn here as SVG, shown as a `data:` image (the CSP allows those, not inline script). */
export function Qr({ text, label }: { text: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }).then(
      (svg) => current && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      () => current && setSrc(null),
    );
    return () => {
      current = false;
    };
  }, [text]);
  return src ? <img className="qr" src={src} alt={label} data-testid="qr" /> : <div className="qr placeholder" aria-hidden="true" />;
}

export function Field({ label, hint, children, id }: { label: string; hint?: ReactNode; children: ReactNode; id: string }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function EnvironmentTag({ environment }: { environment: string }) {
  return <span className={`tag env-${environment}`}>{environment === 'sandbox' ? 'Sandbox' : 'Live'}</span>;
}

/** A form's own buttons: its submit, and Cancel where the form can be closed. The same on every form. */
export function FormButtons({ submit, onCancel, busy = false }: { submit: ReactNode; onCancel?: () => void; busy?: boolean }) {
  return (
    <p className="row">
      <button type="submit" className="primary" disabled={busy}>
        {submit}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </p>
  );
}
