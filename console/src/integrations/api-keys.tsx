import { useState, type FormEvent } from 'react';
import { GRANTS } from '../../../shared/console/grants.ts';
import { SCOPES, type Scope } from '../../../shared/schemas/api-keys.ts';
import { SCOPE_SENTENCES } from '../../../shared/console/sentences.ts';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, EnvironmentTag, ErrorNote, Field, FormButtons, SecretOnce, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { daysSince } from '../format.ts';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { ScreenHeader } from '../components/layout.tsx';
import { SiteLimitField, SitesOf, siteLimitProblem, useOwnSites, type SiteLimit } from '../sites/site-limit.tsx';

type ApiKey = Schemas['ApiKey'];

/** A key nobody used for this long is probably forgotten: revoke it or find out who holds it. */
export const UNUSED_DAYS = 90;

export const GRACE_CHOICES = [
  [0, 'Stop the old one now'],
  [1, '1 hour'],
  [24, '24 hours'],
  [72, '3 days'],
  [168, '7 days (longest)'],
] as const;

const SHOWN = ['active', 'expired', 'revoked', 'all'] as const;
type Shown = (typeof SHOWN)[number];

export function isForgotten(key: ApiKey, now = Date.now()): boolean {
  if (key.revoked_at) return false;
  return daysSince(key.last_used_at ?? key.created_at, now) >= UNUSED_DAYS;
}

export function ScopeChecklist({ chosen, onChange, idPrefix }: { chosen: Set<Scope>; onChange: (next: Set<Scope>) => void; idPrefix: string }) {
  const { session } = useConsole();
  // Only what this person may grant: the server refuses the rest (shared/console/grants.ts).
  const grantable = GRANTS[session.person.role];
  return (
    <fieldset className="checklist">
      <legend>Scopes: what the key may do</legend>
      {SCOPES.filter((scope) => grantable.includes(scope)).map((scope) => (
        <label key={scope} className="check" htmlFor={`${idPrefix}-${scope}`}>
          <input
            id={`${idPrefix}-${scope}`}
            type="checkbox"
            checked={chosen.has(scope)}
            onChange={(e) => {
              const next = new Set(chosen);
              if (e.target.checked) next.add(scope);
              else next.delete(scope);
              onChange(next);
            }}
          />
          <span>
            <code>{scope}</code> <span className="muted">{SCOPE_SENTENCES[scope]}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function CreateKey({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const { client, environment } = useConsole();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  // The person's own sites at first: every site, or those their role is limited to.
  const own = useOwnSites();
  const [sites, setSites] = useState<SiteLimit>(own);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = scopes.size === 0 ? 'Choose at least one scope.' : siteLimitProblem(sites);
    setError(problem);
    if (problem) return;
    try {
      setCreated(await client.post('/api-keys', { body: { name: name.trim(), scopes: SCOPES.filter((s) => scopes.has(s)), ...(sites ? { site_ids: [...sites] } : {}) } }));
      onCreated();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  if (created)
    return (
      <section className="panel" aria-label="New key">
        <SecretOnce label={`Secret of “${created.api_key.name}”`} secret={created.secret} kept="hash" />
        <button type="button" onClick={onCancel}>
          Done
        </button>
      </section>
    );
  return (
    <form className="panel stack" onSubmit={submit} aria-label="Create a key" data-testid="create-key">
      <h2>New {environment} key</h2>
      <Field label="Name" id="key-name" hint="Say where it runs, e.g. “Estate app backend” or “Zapier”.">
        <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <ScopeChecklist chosen={scopes} onChange={setScopes} idPrefix="new-scope" />
      <SiteLimitField value={sites} onChange={setSites} idPrefix="new-key" legend="Sites: whose data the key reads and changes" />
      <p className="muted small">Give a key only what its program needs. You can grant only scopes your role may grant, at your own sites.</p>
      <ErrorNote error={error} />
      <FormButtons submit="Create key" onCancel={onCancel} />
    </form>
  );
}

function RollKey({ apiKey, onRolled, onCancel }: { apiKey: ApiKey; onRolled: () => void; onCancel: () => void }) {
  const { client } = useConsole();
  const [hours, setHours] = useState(24);
  const [error, setError] = useState<string | null>(null);
  const [rolled, setRolled] = useState<Schemas['CreatedApiKey'] | null>(null);
  if (rolled)
    return (
      <div className="inline-panel">
        <SecretOnce label={`New secret of “${rolled.api_key.name}”`} secret={rolled.secret} kept="hash">
          <p className="muted small">{hours === 0 ? 'The old secret has stopped working.' : `The old secret keeps working for ${hours} h, then answers 401.`}</p>
        </SecretOnce>
        <button type="button" onClick={onCancel}>
          Done
        </button>
      </div>
    );
  return (
    <form
      className="inline-panel row"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          setRolled(await client.post('/api-keys/{keyId}/roll', { params: { path: { keyId: apiKey.key_id } }, body: { expires_in_hours: hours } }));
          onRolled();
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <label htmlFor={`grace-${apiKey.key_id}`}>Keep the old secret working for</label>
      <select id={`grace-${apiKey.key_id}`} value={hours} onChange={(e) => setHours(Number(e.target.value))}>
        {GRACE_CHOICES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <button type="submit" className="primary">
        Roll
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** Who made a key, as the table says it: their name and role then; keys outlive their maker. */
export function makerText(key: ApiKey): string | null {
  const maker = key.created_by;
  if (!maker) return null;
  if (maker.type === 'operator') return 'by the operator (CLI)';
  if (maker.type === 'key') return `by the key “${maker.name ?? maker.id}”`;
  return `by ${maker.name ?? maker.id}${maker.role ? ` (${maker.role})` : ''}`;
}

/**
 * Owners review keys made beyond their maker's grant (a developer's `admin` key from before the
 * grant rule, shared/console/grants.ts): keep each on purpose, or revoke it.
 */
function KeysToReview() {
  const { client } = useConsole();
  const review = useLoad((c) => c.get('/api-keys/review'), []);
  const [error, setError] = useState<string | null>(null);
  const keys = review.data?.results ?? [];
  if (keys.length === 0 && !review.error) return null;
  const act = (done: Promise<unknown>) => done.then(review.reload, (e: unknown) => setError(describeError(e)));
  return (
    <section className="panel warning stack" aria-label="Keys to review" data-testid="keys-to-review">
      <h2>Keys to review</h2>
      <p>
        {keys.length === 1 ? 'This key holds' : 'These keys hold'} scopes {keys.length === 1 ? 'its' : 'their'} maker’s role may not grant today (a developer’s key with <code>admin</code>, made
        before the rule). Keep a key you know about; revoke the rest.
      </p>
      <ErrorNote error={review.error ?? error} />
      <ul className="stack-tight">
        {keys.map((key) => (
          <li key={key.key_id} className="row" data-testid="review-row">
            <span>
              <strong>{key.name}</strong> <EnvironmentTag environment={key.environment} /> <code>{key.scopes.join(' ')}</code>{' '}
              <span className="muted">
                {makerText(key)}, <Time iso={key.created_at} />
              </span>
            </span>
            <button type="button" onClick={() => act(client.post('/api-keys/{keyId}/keep', { params: { path: { keyId: key.key_id } }, body: {} }))}>
              Keep
            </button>
            <ConfirmButton
              label="Revoke"
              question={`Revoke “${key.name}”? Programs using it get 401 at once.`}
              onConfirm={() => act(client.del('/api-keys/{keyId}', { params: { path: { keyId: key.key_id } } }))}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ApiKeysScreen() {
  const { client, can } = useConsole();
  const [shown, setShown] = useState<Shown>('active');
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  // The filter travels with the page: the server counts what matches, so the pager and the list agree.
  const keys = useList('/api-keys', { status: shown === 'all' ? undefined : shown });
  const mayWrite = can('manageIntegrations');
  const forgotten = keys.items.filter((key) => isForgotten(key));
  return (
    <section className="stack" data-testid="screen-keys">
      <ScreenHeader
        title="API keys"
        action={
          mayWrite &&
          !creating && (
            <button type="button" className="primary" onClick={() => setCreating(true)} data-testid="new-key">
              New key
            </button>
          )
        }
      >
        Keys let your programs call the Tsaro API. Each is shown once when created; here you see its hint, what it may do and when it was last used.
      </ScreenHeader>
      {creating && <CreateKey onCreated={keys.reload} onCancel={() => setCreating(false)} />}
      {can('reviewKeys') && <KeysToReview />}
      {forgotten.length > 0 && (
        <p className="warning" data-testid="unused-nudge">
          {forgotten.length === 1 ? 'One key has' : `${forgotten.length} keys have`} not been used for {UNUSED_DAYS} days or more:{' '}
          {forgotten.map((key) => key.name).join(', ')}. A key nobody uses is a risk with no benefit: revoke it unless you know who holds it.
        </p>
      )}
      <div className="filters" role="group" aria-label="Filter keys">
        <label htmlFor="key-shown">Show</label>
        <select id="key-shown" value={shown} onChange={(e) => setShown(SHOWN.find((s) => s === e.target.value) ?? 'active')}>
          <option value="active">Active keys</option>
          <option value="expired">Expired keys</option>
          <option value="revoked">Revoked keys</option>
          <option value="all">All keys</option>
        </select>
      </div>
      <ErrorNote error={actionError} />
      <ListTable
        list={keys}
        rowKey={(key) => key.key_id}
        rowProps={(key) => ({ 'data-testid': 'key-row', className: key.revoked_at ? 'revoked' : '' })}
        empty={{
          title: shown === 'all' || shown === 'active' ? 'No keys here yet.' : `No ${shown} keys.`,
          body: mayWrite ? 'Create one with “New key”, or make a gate key under Gates.' : 'An owner, admin or developer can create keys.',
        }}
        columns={[
          {
            // Its sites under its name, not a column of their own: Roll and Revoke stay in view on a tablet.
            header: 'Name and sites',
            cell: (key) => (
              <>
                <strong>{key.name}</strong>
                {isForgotten(key) && <span className="tag warn">unused {UNUSED_DAYS}+ days</span>}
                <div className="key-sites">
                  <SitesOf limit={key.site_ids} />
                </div>
              </>
            ),
          },
          {
            header: 'Key',
            cell: (key) => (
              <>
                <code className="nowrap">{key.secret_hint}</code> <EnvironmentTag environment={key.environment} />
              </>
            ),
          },
          {
            header: 'Scopes',
            cell: (key) => (
              <ul className="chips">
                {key.scopes.map((scope) => (
                  <li key={scope} title={SCOPE_SENTENCES[scope]}>
                    {scope}
                  </li>
                ))}
              </ul>
            ),
          },
          {
            header: 'Created',
            cell: (key) => (
              <>
                <Time iso={key.created_at} />
                {makerText(key) && <div className="muted small" data-testid="key-maker">{makerText(key)}</div>}
                {key.needs_review && <span className="tag warn">to review</span>}
              </>
            ),
          },
          { header: 'Last used', cell: (key) => <Time iso={key.last_used_at} relative /> },
          {
            header: 'Expires / revoked',
            cell: (key) =>
              key.revoked_at ? (
                <span className="tag bad">
                  Revoked <Time iso={key.revoked_at} />
                </span>
              ) : key.expires_at && Date.parse(key.expires_at) <= Date.now() ? (
                <span className="tag bad">
                  Expired <Time iso={key.expires_at} relative />
                </span>
              ) : key.expires_at ? (
                <span className="tag warn">
                  Expires <Time iso={key.expires_at} relative />
                </span>
              ) : (
                <span className="muted">No end</span>
              ),
          },
          {
            header: 'Actions',
            shown: mayWrite,
            className: 'actions-cell',
            cell: (key) =>
              !key.revoked_at &&
              (rolling === key.key_id ? (
                <RollKey apiKey={key} onRolled={keys.reload} onCancel={() => setRolling(null)} />
              ) : (
                <>
                  <button type="button" onClick={() => setRolling(key.key_id)}>
                    Roll
                  </button>
                  <ConfirmButton
                    label="Revoke"
                    question={`Revoke “${key.name}”? Programs using it get 401 at once.`}
                    onConfirm={async () => {
                      setActionError(null);
                      await client.del('/api-keys/{keyId}', { params: { path: { keyId: key.key_id } } }).then(keys.reload, (e: unknown) => setActionError(describeError(e)));
                    }}
                  />
                </>
              )),
          },
        ]}
      />
    </section>
  );
}
