import { useState, type FormEvent } from 'react';
import { describeError } from '../api.ts';
import { EventPicker } from '../components/event-picker.tsx';
import { ConfirmButton, Empty, ErrorNote, Field, Pager, SecretOnce, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { Link } from '../router.tsx';
import type { Delivery, Page, WebhookEndpoint } from '../types.ts';
import { ScreenHeader } from './layout.tsx';

/** How many recent attempts the health column reads. */
const HEALTH_WINDOW = 20;

/** Recent failures, read from the endpoint's delivery log. */
export function EndpointHealth({ endpointId }: { endpointId: string }) {
  const recent = useLoad((c) => c.get<Page<Delivery>>(`/webhook-endpoints/${endpointId}/deliveries`, { limit: HEALTH_WINDOW }), [endpointId]);
  if (recent.error) return <span className="muted">Unknown</span>;
  if (!recent.data) return <span className="muted">…</span>;
  const attempts = recent.data.results;
  if (attempts.length === 0) return <span className="tag">No deliveries yet</span>;
  const failed = attempts.filter((d) => d.status === 'failed').length;
  const last = attempts[0]!;
  const label =
    failed === 0 ? `Healthy: last ${attempts.length} delivered` : failed === attempts.length ? `Failing: last ${failed} failed` : `${failed} of last ${attempts.length} failed`;
  return (
    <span className="stack-tight">
      <span className={`tag ${failed === 0 ? 'good' : failed === attempts.length ? 'bad' : 'warn'}`} data-testid="endpoint-health">
        {label}
      </span>
      <span className="muted small">
        Last attempt <Time iso={last.attempted_at} relative />
      </span>
    </span>
  );
}

export function EndpointForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial?: WebhookEndpoint;
  submitLabel: string;
  onSubmit: (body: { url: string; events: string[]; description?: string | null }) => Promise<void>;
  onCancel: () => void;
}) {
  const { environment } = useConsole();
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [events, setEvents] = useState<Set<string>>(new Set(initial?.events ?? []));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (events.size === 0) {
      setError('Choose at least one event.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit({ url: url.trim(), events: [...events], description: description.trim() || (initial ? null : undefined) });
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className="panel stack" onSubmit={submit} data-testid="endpoint-form">
      <Field
        label="URL"
        id="endpoint-url"
        hint={
          environment === 'live'
            ? 'Live endpoints must be https on a public address.'
            : 'Sandbox endpoints may be http; private or loopback addresses only if the operator allows them.'
        }
      >
        <input id="endpoint-url" type="url" required maxLength={2048} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.ng/hooks/tsaro" />
      </Field>
      <Field label="Description (optional)" id="endpoint-description">
        <input id="endpoint-description" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <EventPicker chosen={events} onChange={setEvents} idPrefix={initial ? `edit-${initial.endpoint_id}` : 'new-event'} />
      <ErrorNote error={error} />
      <p className="row">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </p>
    </form>
  );
}

export function WebhooksScreen() {
  const { client, can, environment } = useConsole();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<'all' | 'enabled' | 'disabled'>('all');
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ webhook_endpoint: WebhookEndpoint; secret: string } | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const endpoints = useLoad((c) => c.get<Page<WebhookEndpoint>>('/webhook-endpoints', { page, limit: 20, status: status === 'all' ? undefined : status }), [page, status]);
  const mayWrite = can('manageIntegrations');
  const visible = endpoints.data?.results ?? [];
  const act = (work: Promise<unknown>) => {
    setActionError(null);
    void work.then(endpoints.reload, (e: unknown) => setActionError(describeError(e)));
  };
  return (
    <section className="stack" data-testid="screen-webhooks">
      <ScreenHeader
        title="Webhooks"
        action={
          mayWrite &&
          !adding && (
            <button type="button" className="primary" onClick={() => (setAdding(true), setCreated(null))}>
              Add endpoint
            </button>
          )
        }
      >
        Tsaro sends signed events to these URLs as they happen, and retries for 72 hours when one does not answer 2xx.
      </ScreenHeader>
      {adding && (
        <EndpointForm
          submitLabel="Add endpoint"
          onCancel={() => setAdding(false)}
          onSubmit={async (body) => {
            setCreated(await client.post('/webhook-endpoints', body));
            setAdding(false);
            endpoints.reload();
          }}
        />
      )}
      {created && (
        <section className="panel">
          <SecretOnce label={`Signing secret of ${created.webhook_endpoint.url}`} secret={created.secret}>
            <p className="muted small">Verify each delivery's Svc-Signature header with it (see the webhooks guide).</p>
          </SecretOnce>
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </section>
      )}
      <div className="filters" role="group" aria-label="Filter endpoints">
        <label htmlFor="endpoint-status">Status</label>
        <select id="endpoint-status" value={status} onChange={(e) => (setStatus(e.target.value as typeof status), setPage(1))}>
          <option value="all">All</option>
          <option value="enabled">Enabled</option>
          <option value="disabled">Disabled</option>
        </select>
      </div>
      <ErrorNote error={endpoints.error ?? actionError} />
      {endpoints.data && visible.length === 0 ? (
        <Empty title={`No ${status === 'all' ? '' : `${status} `}${environment} webhook endpoints.`}>
          {mayWrite ? 'Add one with “Add endpoint”: give the URL of your server and pick the events it should receive.' : 'An owner, admin or developer can add one.'}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Health</th>
                <th scope="col">Status</th>
                {mayWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {visible.map((endpoint) => (
                <tr key={endpoint.endpoint_id} data-testid="endpoint-row">
                  <td>
                    <Link to={`/webhooks/${endpoint.endpoint_id}`} className="url">
                      {endpoint.url}
                    </Link>
                    {endpoint.description && <p className="muted small">{endpoint.description}</p>}
                    {endpoint.secret_rotation_due && <span className="tag warn">Rotate its secret</span>}
                  </td>
                  <td>
                    <ul className="chips">
                      {endpoint.events.map((type) => (
                        <li key={type}>{type}</li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <EndpointHealth endpointId={endpoint.endpoint_id} />
                  </td>
                  <td>
                    <span className={`tag ${endpoint.status === 'enabled' ? 'good' : ''}`}>{endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}</span>
                  </td>
                  {mayWrite && (
                    <td className="actions-cell">
                      <button
                        type="button"
                        onClick={() => act(client.patch(`/webhook-endpoints/${endpoint.endpoint_id}`, { status: endpoint.status === 'enabled' ? 'disabled' : 'enabled' }))}
                      >
                        {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
                      </button>
                      <ConfirmButton
                        label="Delete"
                        question="Delete this endpoint? Nothing more is sent to it."
                        onConfirm={() => act(client.del(`/webhook-endpoints/${endpoint.endpoint_id}`))}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={endpoints.data} onPage={setPage} />
    </section>
  );
}
