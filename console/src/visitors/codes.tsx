import { useEffect, useState, type FormEvent } from 'react';
import { phoneForReading } from '../../../shared/phone.ts';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, ErrorNote, Notice, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { downloadCsv } from '../download.ts';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { PrintablePass } from './pass.tsx';
import { SendPassByText } from './send-pass.tsx';
import { batches, readVisitorCsv, type Visitor } from './visitor-csv.ts';
import { useSiteName, useSiteScope } from '../sites/site-scope.tsx';
import { useSiteForNew } from '../sites/site-field.tsx';

type Code = Schemas['AccessCode'];
const STATUS_TONE: Record<Code['status'], string> = { active: 'good', used: '', expired: '', revoked: 'bad' };
const STATUSES = ['active', 'used', 'expired', 'revoked'] as const satisfies readonly Code['status'][];
/** A status the select chose, or none ("Any"). */
const statusOf = (value: string): Code['status'] | '' => STATUSES.find((status) => status === value) ?? '';

/** A date-time field's value (the reader's local time) as an instant, or undefined when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Access codes: issue one or a guest list, revoke many at once, print a pass. */
export function Codes() {
  const { can, session } = useConsole();
  const [status, setStatus] = useState(statusOf('active'));
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [pass, setPass] = useState<Code | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState<'one' | 'csv' | null>(null);
  const { client } = useConsole();
  const { siteId } = useSiteScope();
  const siteName = useSiteName();
  // Codes picked at one site are not revoked unseen from another's list.
  useEffect(() => setSelected(new Set()), [siteId]);
  const codes = useList('/access-codes', { status: status || undefined, search: search.trim() || undefined, site_id: siteId }, { limit: 50 });
  const write = can('operateIncidents');
  const toggle = (codeId: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(codeId)) next.delete(codeId);
      else next.add(codeId);
      return next;
    });
  const revokeSelected = async () => {
    setError(null);
    try {
      const ids = [...selected];
      for (const batch of batches(ids, 100)) await client.post('/access-codes/bulk-revoke', { body: { code_ids: batch, reason: 'Revoked from the console' } });
      setNotice(`${ids.length} code${ids.length === 1 ? '' : 's'} revoked: every gate refuses ${ids.length === 1 ? 'it' : 'them'} from its next sync.`);
      setSelected(new Set());
      codes.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  if (pass) return <PrintablePass code={pass} organization={session.organization.name} onClose={() => setPass(null)} />;
  return (
    <div className="stack" data-testid="codes">
      {write && (
        <p className="row">
          <button type="button" className="primary" onClick={() => setAdding(adding === 'one' ? null : 'one')} data-testid="issue-one">
            Issue a code
          </button>
          <button type="button" onClick={() => setAdding(adding === 'csv' ? null : 'csv')} data-testid="issue-csv">
            Issue from a guest list (CSV)
          </button>
        </p>
      )}
      {adding === 'one' && (
        <IssueOne
          onIssued={(code) => {
            setAdding(null);
            setNotice(`Code ${code.code} issued for ${code.visitor_name}.`);
            codes.reload();
            setPass(code);
          }}
        />
      )}
      {adding === 'csv' && <IssueFromCsv onIssued={() => codes.reload()} />}
      {notice && <Notice>{notice}</Notice>}
      <ErrorNote error={error} />
      <div className="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => (setStatus(statusOf(e.target.value)), setSelected(new Set()))} data-testid="code-status">
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="used">Used</option>
            <option value="expired">Expired</option>
            <option value="revoked">Revoked</option>
          </select>
        </label>
        <label>
          Search <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Code, name or phone" />
        </label>
        {write && selected.size > 0 && (
          <ConfirmButton
            label={`Revoke ${selected.size} selected`}
            question={`Revoke ${selected.size} code${selected.size === 1 ? '' : 's'}? Gates refuse them from their next sync.`}
            confirmLabel="Revoke"
            onConfirm={revokeSelected}
          />
        )}
      </div>
      <ListTable
        list={codes}
        rowKey={(code) => code.code_id}
        rowProps={(code) => ({ 'data-testid': 'code-row', 'data-code-id': code.code_id })}
        empty={{ title: 'No codes here', body: 'Issue one, or a guest list from a CSV.' }}
        columns={[
          {
            header: 'Select',
            shown: write,
            cell: (code) => (
              <input
                type="checkbox"
                aria-label={`Select ${code.code}`}
                checked={selected.has(code.code_id)}
                disabled={code.status !== 'active'}
                onChange={() => toggle(code.code_id)}
              />
            ),
          },
          { header: 'Code', cell: (code) => <code>{code.code}</code> },
          {
            header: 'Visitor',
            cell: (code) => (
              <>
                {code.visitor_name ?? '(erased)'}
                <br />
                <span className="muted">{code.visitor_phone ? phoneForReading(code.visitor_phone) : ''}</span>
              </>
            ),
          },
          {
            header: 'Entry point',
            cell: (code) => (
              <>
                {code.entry_point ?? '—'}
                {siteName(code.site_id) && <div className="muted small">{siteName(code.site_id)}</div>}
              </>
            ),
          },
          { header: 'Valid until', cell: (code) => <Time iso={code.valid_until} /> },
          { header: 'Uses', cell: (code) => `${code.use_count}/${code.max_uses}` },
          { header: 'Status', cell: (code) => <span className={`tag ${STATUS_TONE[code.status]}`}>{code.status}</span> },
          {
            header: 'Pass',
            cell: (code) => (
              <>
                <button type="button" className="link" onClick={() => setPass(code)} disabled={code.status !== 'active'}>
                  Print pass
                </button>
                {write && <SendPassByText code={code} />}
              </>
            ),
          },
        ]}
      />
    </div>
  );
}

function IssueOne({ onIssued }: { onIssued: (code: Code) => void }) {
  const { client } = useConsole();
  const site = useSiteForNew();
  const [form, setForm] = useState({ visitor_name: '', visitor_phone: '', purpose: '', entry_point: '', host_user_id: '', valid_until: '', max_uses: '1' });
  const [error, setError] = useState<string | null>(null);
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [field]: event.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    client
      .post('/access-codes', {
        body: {
          visitor_name: form.visitor_name,
          visitor_phone: form.visitor_phone,
          purpose: form.purpose.trim() || undefined,
          site_id: site.siteId,
          entry_point: form.entry_point.trim() || undefined,
          host_user_id: form.host_user_id.trim() || undefined,
          valid_until: instant(form.valid_until),
          max_uses: Number(form.max_uses),
        },
        idempotencyKey: crypto.randomUUID(),
      })
      .then((answer) => onIssued(answer.access_code), (failure: unknown) => setError(describeError(failure)));
  };
  return (
    <form className="panel stack" onSubmit={submit} aria-label="Issue a code" data-testid="issue-one-form">
      {site.field}
      <div className="form-grid">
        <label>
          Visitor's name <input value={form.visitor_name} onChange={set('visitor_name')} required maxLength={200} />
        </label>
        <label>
          Phone <input value={form.visitor_phone} onChange={set('visitor_phone')} required minLength={3} maxLength={32} inputMode="tel" />
        </label>
        <label>
          Purpose (optional) <input value={form.purpose} onChange={set('purpose')} maxLength={500} placeholder="Plumbing repair" data-testid="code-purpose" />
        </label>
        <label>
          Entry point (optional) <input value={form.entry_point} onChange={set('entry_point')} maxLength={200} />
        </label>
        <label>
          Visiting (optional) <input value={form.host_user_id} onChange={set('host_user_id')} maxLength={200} />
        </label>
        <label>
          Valid until (default: 24 hours) <input type="datetime-local" value={form.valid_until} onChange={set('valid_until')} />
        </label>
        <label>
          Entries <input type="number" min={1} max={1000} value={form.max_uses} onChange={set('max_uses')} required />
        </label>
      </div>
      <p>
        <button type="submit" className="primary">
          Issue the code
        </button>
      </p>
      <ErrorNote error={error} />
    </form>
  );
}

/**
 * A guest list from a CSV: checked whole (the server's own rules) before the first batch goes,
 * then sent in batches of 50, each with its own Idempotency-Key so a retry never issues twice.
 */
function IssueFromCsv({ onIssued }: { onIssued: () => void }) {
  const { client } = useConsole();
  const site = useSiteForNew();
  const [visitors, setVisitors] = useState<Visitor[]>([]);
  const [problems, setProblems] = useState<string[]>([]);
  const [validUntil, setValidUntil] = useState('');
  const [purpose, setPurpose] = useState('');
  const [progress, setProgress] = useState<{ sent: number; codes: Code[]; keys: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const read = async (file: File | undefined) => {
    setProgress(null);
    setError(null);
    if (!file) return;
    const list = readVisitorCsv(await file.text());
    setVisitors(list.visitors);
    setProblems(list.problems);
  };
  const groups = batches(visitors);
  const send = async () => {
    setBusy(true);
    setError(null);
    // The keys are made once per list, so "Send the rest" after a failure repeats none.
    const state = progress ?? { sent: 0, codes: [], keys: groups.map(() => crypto.randomUUID()) };
    try {
      for (const [i, group] of groups.entries()) {
        if (i < state.sent) continue;
        const answer = await client.post('/access-codes/bulk', {
          body: { visitors: group, site_id: site.siteId, purpose: purpose.trim() || undefined, valid_until: instant(validUntil) },
          idempotencyKey: state.keys[i],
        });
        state.sent = i + 1;
        state.codes = [...state.codes, ...answer.access_codes];
        setProgress({ ...state });
      }
      onIssued();
    } catch (failure) {
      setProgress({ ...state });
      setError(`Batch ${state.sent + 1} of ${groups.length} failed: ${describeError(failure)} ${state.sent * 50} visitors have codes; send the rest when the problem is fixed.`);
    } finally {
      setBusy(false);
    }
  };
  const done = progress !== null && progress.sent === groups.length;
  return (
    <section className="panel stack" aria-labelledby="csv-title" data-testid="issue-csv-form">
      <h2 id="csv-title">Issue codes from a guest list</h2>
      <p className="muted">
        A CSV with a header row: <code>visitor_name</code>, <code>visitor_phone</code> and, if you like, <code>visitor_email</code>, <code>entry_point</code>,{' '}
        <code>host_user_id</code>, <code>max_uses</code>. The whole file is checked before anything is sent.
      </p>
      {site.field}
      <label>
        Guest list <input type="file" accept=".csv,text/csv" onChange={(e) => void read(e.target.files?.[0])} data-testid="csv-file" />
      </label>
      <div className="form-grid">
        <label>
          Purpose (optional) <input value={purpose} onChange={(e) => setPurpose(e.target.value)} maxLength={500} />
        </label>
        <label>
          Valid until (default: 24 hours) <input type="datetime-local" value={validUntil} onChange={(e) => setValidUntil(e.target.value)} />
        </label>
      </div>
      {problems.length > 0 && (
        <div className="error" role="alert" data-testid="csv-problems">
          <p>
            <strong>Nothing was sent.</strong> Fix these in the file and choose it again:
          </p>
          <ul>
            {problems.slice(0, 50).map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
          {problems.length > 50 && <p>…and {problems.length - 50} more.</p>}
        </div>
      )}
      {visitors.length > 0 && !done && (
        <p className="row">
          <button type="button" className="primary" disabled={busy || site.missing} onClick={() => void send()} data-testid="csv-send">
            {progress ? `Send the remaining ${visitors.length - progress.sent * 50}` : `Issue ${visitors.length} codes (${groups.length} batch${groups.length === 1 ? '' : 'es'})`}
          </button>
          {busy && progress && (
            <span role="status">
              Batch {progress.sent} of {groups.length} sent…
            </span>
          )}
        </p>
      )}
      <ErrorNote error={error} />
      {done && (
        <p className="row" role="status" data-testid="csv-done">
          {progress.codes.length} codes issued.{' '}
          <button
            type="button"
            onClick={() =>
              downloadCsv(
                'access-codes.csv',
                ['code', 'visitor_name', 'visitor_phone', 'entry_point', 'valid_until'],
                progress.codes.map((code) => [code.code, code.visitor_name, code.visitor_phone, code.entry_point, code.valid_until]),
              )
            }
          >
            Download the codes (CSV)
          </button>
        </p>
      )}
    </section>
  );
}
