import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_WILDCARDS } from '../../../shared/schemas/webhooks.ts';
import { describeError, type Schemas } from '../api.ts';
import { EventPicker } from '../components/event-picker.tsx';
import { ConfirmButton, ErrorNote, Field, FormButtons, SecretOnce, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { Link } from '../router.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { SiteLimitField, SitesOf, siteLimitProblem, useOwnSites, type SiteLimit } from '../sites/site-limit.tsx';

type WebhookEndpoint = Schemas['WebhookEndpoint'];
type EventSubscription = Schemas['EventSubscription'];

const SUBSCRIPTIONS: ReadonlySet<string> = new Set<EventSubscription>([...WEBHOOK_WILDCARDS, ...WEBHOOK_EVENT_TYPES]);
/** What the event picker holds (text) that the API takes as a subscription. */
const isSubscription = (value: string): value is EventSubscription => SUBSCRIPTIONS.has(value);

const ENDPOINT_STATUSES = ['all', 'enabled', 'disabled'] as const;

/** How many recent attempts the health column reads. */
const HEALTH_WINDOW = 20;

/** Recent failures, read from the endpoint's delivery log. */
export function EndpointHealth({ endpointId }: { endpointId: string }) {
  const recent = useLoad(
    (c) => c.get('/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId }, query: { limit: HEALTH_WINDOW } } }),
    [endpointId],
  );
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
  onSubmit: (body: Schemas['CreateWebhookEndpointRequest']) => Promise<void>;
  onCancel: () => void;
}) {
  const { environment } = useConsole();
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [events, setEvents] = useState<Set<string>>(new Set<string>(initial?.events ?? []));
  // A new endpoint reaches the person's own sites at first (every site, for one who reaches them all).
  const own = useOwnSites();
  const [sites, setSites] = useState<SiteLimit>(initial ? initial.site_ids : own);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = events.size === 0 ? 'Choose at least one event.' : siteLimitProblem(sites);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      // null: every site (left out on a new endpoint; on a change, it replaces a list of sites).
      await onSubmit({ url: url.trim(), events: [...events].filter(isSubscription), description: description.trim() || (initial ? null : undefined), site_ids: sites && [...sites] });
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
      <SiteLimitField value={sites} onChange={setSites} idPrefix={initial ? `edit-${initial.endpoint_id}` : 'new-endpoint'} legend="Sites: it receives events about these" />
      <ErrorNote error={error} />
      <FormButtons submit={submitLabel} busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function WebhooksScreen() {
  const { client, can, environment } = useConsole();
  const [status, setStatus] = useState<(typeof ENDPOINT_STATUSES)[number]>('all');
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<Schemas['CreatedWebhookEndpoint'] | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const endpoints = useList('/webhook-endpoints', { status: status === 'all' ? undefined : status });
  const mayWrite = can('manageIntegrations');
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
            setCreated(await client.post('/webhook-endpoints', { body }));
            setAdding(false);
            endpoints.reload();
          }}
        />
      )}
      {created && (
        <section className="panel">
          <SecretOnce label={`Signing secret of ${created.webhook_endpoint.url}`} secret={created.secret} kept="sealed">
            <p className="muted small">Verify each delivery's Svc-Signature header with it (see the webhooks guide).</p>
          </SecretOnce>
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </section>
      )}
      <div className="filters" role="group" aria-label="Filter endpoints">
        <label htmlFor="endpoint-status">Status</label>
        <select id="endpoint-status" value={status} onChange={(e) => setStatus(ENDPOINT_STATUSES.find((s) => s === e.target.value) ?? 'all')}>
          <option value="all">All</option>
          <option value="enabled">Enabled</option>
          <option value="disabled">Disabled</option>
        </select>
      </div>
      <ErrorNote error={actionError} />
      <ListTable
        list={endpoints}
        rowKey={(endpoint) => endpoint.endpoint_id}
        rowProps={() => ({ 'data-testid': 'endpoint-row' })}
        empty={{
          title: `No ${status === 'all' ? '' : `${status} `}${environment} webhook endpoints.`,
          body: mayWrite ? 'Add one with “Add endpoint”: give the URL of your server and pick the events it should receive.' : 'An owner, admin or developer can add one.',
        }}
        columns={[
          {
            header: 'Endpoint',
            cell: (endpoint) => (
              <>
                <Link to={`/webhooks/${endpoint.endpoint_id}`} className="url">
                  {endpoint.url}
                </Link>
                {endpoint.description && <p className="muted small">{endpoint.description}</p>}
                {endpoint.secret_rotation_due && <span className="tag warn">Rotate its secret</span>}
              </>
            ),
          },
          {
            header: 'Events',
            cell: (endpoint) => (
              <ul className="chips">
                {endpoint.events.map((type) => (
                  <li key={type}>{type}</li>
                ))}
              </ul>
            ),
          },
          { header: 'Sites', cell: (endpoint) => <SitesOf limit={endpoint.site_ids} /> },
          { header: 'Health', cell: (endpoint) => <EndpointHealth endpointId={endpoint.endpoint_id} /> },
          {
            header: 'Status',
            cell: (endpoint) => <span className={`tag ${endpoint.status === 'enabled' ? 'good' : ''}`}>{endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}</span>,
          },
          {
            header: 'Actions',
            shown: mayWrite,
            className: 'actions-cell',
            cell: (endpoint) => (
              <>
                <button
                  type="button"
                  onClick={() =>
                    act(
                      client.patch('/webhook-endpoints/{endpointId}', {
                        params: { path: { endpointId: endpoint.endpoint_id } },
                        body: { status: endpoint.status === 'enabled' ? 'disabled' : 'enabled' },
                      }),
                    )
                  }
                >
                  {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
                </button>
                <ConfirmButton
                  label="Delete"
                  question="Delete this endpoint? Nothing more is sent to it."
                  onConfirm={() => act(client.del('/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.endpoint_id } } }))}
                />
              </>
            ),
          },
        ]}
      />
    </section>
  );
}
