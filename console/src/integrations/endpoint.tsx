import { useEffect, useState, type FormEvent } from 'react';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/schemas/webhooks.ts';
import { describeError, type Schemas } from '../api.ts';
import { deliveryColumns, deliveryRowProps } from './deliveries.tsx';
import { ConfirmButton, ErrorNote, Notice, SecretOnce, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { prettyJson } from '../format.ts';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { Link, navigate } from '../router.tsx';
import { GRACE_CHOICES } from './api-keys.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { EndpointForm, EndpointHealth } from './webhooks.tsx';
import { SitesOf } from '../sites/site-limit.tsx';

/** `datetime-local` gives local time without a zone: the API takes it as UTC unless told, so convert. */
const localToIso = (value: string): string => new Date(value).toISOString();
const isoToLocal = (date: Date): string => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

type Delivery = Schemas['WebhookDelivery'];
const DELIVERY_RESULTS = ['', 'succeeded', 'failed'] as const;

/** Sends a test event; `onSent` gets its id, so the delivery log can watch for its attempt. */
function SendTest({ endpointId, onSent }: { endpointId: string; onSent: (eventId: string) => void }) {
  const { client } = useConsole();
  const [type, setType] = useState<Schemas['EventType']>(WEBHOOK_EVENT_TYPES[0]);
  const [result, setResult] = useState<unknown>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="panel stack"
      onSubmit={async (event: FormEvent) => {
        event.preventDefault();
        setError(null);
        setResult(null);
        try {
          const sent = await client.post('/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId } }, body: { type } });
          setResult(sent);
          onSent(sent.event.id);
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <h2>Send a test event</h2>
      <p className="muted small">A signed event with sample data and “test”: true in its envelope. It is recorded in the delivery log, not in the event log.</p>
      <p className="row">
        <label htmlFor="test-type">Type</label>
        <select id="test-type" value={type} onChange={(e) => setType(WEBHOOK_EVENT_TYPES.find((t) => t === e.target.value) ?? type)}>
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <button type="submit" className="primary">
          Send test
        </button>
      </p>
      <ErrorNote error={error} />
      {result !== null && <pre data-testid="test-result">{prettyJson(result)}</pre>}
    </form>
  );
}

function ResendFailed({ endpointId, onQueued }: { endpointId: string; onQueued: () => void }) {
  const { client } = useConsole();
  const now = new Date();
  const [from, setFrom] = useState(isoToLocal(new Date(now.getTime() - 24 * 3_600_000)));
  // The field holds minutes: the next one, so a failure in the current minute is in the range.
  const [to, setTo] = useState(isoToLocal(new Date(now.getTime() + 60_000)));
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="panel stack"
      onSubmit={async (event: FormEvent) => {
        event.preventDefault();
        setError(null);
        setNote(null);
        try {
          const answer = await client.post('/webhook-endpoints/{endpointId}/resend-failed', { params: { path: { endpointId } }, body: { from: localToIso(from), to: localToIso(to) } });
          setNote(answer.queued === 0 ? 'No failed events in that time: nothing to send.' : `${answer.queued} event${answer.queued === 1 ? '' : 's'} queued again.`);
          onQueued();
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <h2>Resend failures</h2>
      <p className="muted small">Every event whose delivery to this endpoint failed in this time (your local time) is sent again.</p>
      <p className="row">
        <label htmlFor="resend-from">From</label>
        <input id="resend-from" type="datetime-local" required value={from} onChange={(e) => setFrom(e.target.value)} />
        <label htmlFor="resend-to">to</label>
        <input id="resend-to" type="datetime-local" required value={to} onChange={(e) => setTo(e.target.value)} />
        <button type="submit">Resend failures</button>
      </p>
      {note && <Notice>{note}</Notice>}
      <ErrorNote error={error} />
    </form>
  );
}

function RotateSecret({ endpointId, onDone }: { endpointId: string; onDone: () => void }) {
  const { client } = useConsole();
  const [hours, setHours] = useState(24);
  const [rotated, setRotated] = useState<Schemas['CreatedWebhookEndpoint'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (rotated)
    return (
      <section className="panel">
        <SecretOnce label="New signing secret" secret={rotated.secret} kept="sealed">
          <p className="muted small">{hours === 0 ? 'The old secret no longer signs.' : `Deliveries carry a signature with the old secret too for ${hours} h.`}</p>
        </SecretOnce>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </section>
    );
  return (
    <form
      className="panel row"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          setRotated(await client.post('/webhook-endpoints/{endpointId}/rotate-secret', { params: { path: { endpointId } }, body: { expires_in_hours: hours } }));
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <label htmlFor="rotate-grace">Keep signing with the old secret too for</label>
      <select id="rotate-grace" value={hours} onChange={(e) => setHours(Number(e.target.value))}>
        {GRACE_CHOICES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <button type="submit" className="primary">
        Rotate secret
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

export function EndpointScreen({ endpointId }: { endpointId: string }) {
  const { client, can } = useConsole();
  const [status, setStatus] = useState<(typeof DELIVERY_RESULTS)[number]>('');
  const [eventId, setEventId] = useState('');
  const [panel, setPanel] = useState<'edit' | 'rotate' | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const endpoint = useLoad((c) => c.get('/webhook-endpoints/{endpointId}', { params: { path: { endpointId } } }), [endpointId]);
  const deliveryList = useList('/webhook-endpoints/{endpointId}/deliveries', { status: status || undefined, event_id: eventId.trim() }, { path: { endpointId } });
  // A test event is queued (202) and attempted moments later: the log reads again every 1.5 s
  // until its attempt is there (at most 30 s), so it shows without a reload.
  const [awaiting, setAwaiting] = useState<string | null>(null);
  const arrived = awaiting !== null && deliveryList.items.some((delivery) => delivery.event_id === awaiting);
  const { reload } = deliveryList;
  useEffect(() => {
    if (awaiting === null || arrived) return;
    let reads = 0;
    const timer = setInterval(() => {
      reads += 1;
      reload();
      if (reads >= 20) setAwaiting(null);
    }, 1_500);
    return () => clearInterval(timer);
  }, [awaiting, arrived, reload]);
  const mayWrite = can('manageIntegrations');
  const found = endpoint.data?.webhook_endpoint;
  if (endpoint.error)
    return (
      <section className="stack">
        <ErrorNote error={endpoint.error} />
        <Link to="/webhooks">Back to webhooks</Link>
      </section>
    );
  if (!found) return <p className="muted">Loading…</p>;
  const resend = async (delivery: Delivery) => {
    await client.post('/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId } }, body: { event_id: delivery.event_id } });
    deliveryList.reload();
  };
  return (
    <section className="stack" data-testid="screen-endpoint">
      <p>
        <Link to="/webhooks">← Webhooks</Link>
      </p>
      <ScreenHeader
        title={found.url}
        action={
          mayWrite && (
            <>
              <button type="button" onClick={() => setPanel(panel === 'edit' ? null : 'edit')}>
                Edit
              </button>
              <button type="button" onClick={() => setPanel(panel === 'rotate' ? null : 'rotate')}>
                Rotate secret
              </button>
              <button
                type="button"
                onClick={() =>
                  client
                    .patch('/webhook-endpoints/{endpointId}', { params: { path: { endpointId } }, body: { status: found.status === 'enabled' ? 'disabled' : 'enabled' } })
                    .then(endpoint.reload, (e: unknown) => setActionError(describeError(e)))
                }
              >
                {found.status === 'enabled' ? 'Disable' : 'Enable'}
              </button>
              <ConfirmButton
                label="Delete"
                question="Delete this endpoint?"
                onConfirm={() =>
                  client.del('/webhook-endpoints/{endpointId}', { params: { path: { endpointId } } }).then(
                    () => navigate('/webhooks'),
                    (e: unknown) => setActionError(describeError(e)),
                  )
                }
              />
            </>
          )
        }
      >
        {found.description ?? 'No description.'}
      </ScreenHeader>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{found.status === 'enabled' ? 'Enabled' : 'Disabled: nothing is sent'}</dd>
        <dt>Health</dt>
        <dd>
          <EndpointHealth endpointId={endpointId} />
        </dd>
        <dt>Events</dt>
        <dd>{found.events.join(', ')}</dd>
        <dt>Sites</dt>
        <dd data-testid="endpoint-sites">
          <SitesOf limit={found.site_ids} />
          {found.site_ids === null && <span className="muted small"> Events about any site, and about none.</span>}
        </dd>
        <dt>Secret rotated</dt>
        <dd>
          {found.secret_rotated_at ? <Time iso={found.secret_rotated_at} /> : 'Never'}
          {found.previous_secret_expires_at && (
            <>
              {' '}
              (old secret signs until <Time iso={found.previous_secret_expires_at} />)
            </>
          )}
          {found.secret_rotation_due && <span className="tag warn">Rotation due</span>}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={found.created_at} />
        </dd>
      </dl>
      <ErrorNote error={actionError} />
      {panel === 'edit' && (
        <EndpointForm
          initial={found}
          submitLabel="Save"
          onCancel={() => setPanel(null)}
          onSubmit={async (body) => {
            await client.patch('/webhook-endpoints/{endpointId}', { params: { path: { endpointId } }, body });
            setPanel(null);
            endpoint.reload();
          }}
        />
      )}
      {panel === 'rotate' && <RotateSecret endpointId={endpointId} onDone={() => (setPanel(null), endpoint.reload())} />}
      {mayWrite && (
        <div className="two-col">
          <SendTest endpointId={endpointId} onSent={setAwaiting} />
          <ResendFailed endpointId={endpointId} onQueued={deliveryList.reload} />
        </div>
      )}
      <h2>Delivery log</h2>
      <div className="filters" role="group" aria-label="Filter deliveries">
        <label htmlFor="delivery-status">Result</label>
        <select id="delivery-status" value={status} onChange={(e) => setStatus(DELIVERY_RESULTS.find((r) => r === e.target.value) ?? '')}>
          <option value="">All</option>
          <option value="succeeded">Delivered</option>
          <option value="failed">Failed</option>
        </select>
        <label htmlFor="delivery-event">Event id</label>
        <input id="delivery-event" value={eventId} onChange={(e) => setEventId(e.target.value)} placeholder="evt_…" />
      </div>
      <ListTable
        list={deliveryList}
        columns={deliveryColumns({ onResend: mayWrite ? resend : undefined })}
        rowKey={(delivery) => delivery.delivery_id}
        rowProps={deliveryRowProps}
        empty={{
          title: 'No deliveries match.',
          body: status || eventId ? 'Clear the filters to see every attempt.' : 'Nothing was sent here yet. Send a test event to see one arrive.',
        }}
      />
    </section>
  );
}
