import { useState, type FormEvent } from 'react';
import { describeError } from '../api.ts';
import { DeliveryTable } from '../components/deliveries.tsx';
import { EVENT_TYPES } from '../components/event-picker.tsx';
import { ConfirmButton, Empty, ErrorNote, Notice, Pager, SecretOnce, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { prettyJson } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import type { Delivery, Page, WebhookEndpoint } from '../types.ts';
import { GRACE_CHOICES } from './api-keys.tsx';
import { ScreenHeader } from './layout.tsx';
import { EndpointForm, EndpointHealth } from './webhooks.tsx';

/** `datetime-local` gives local time without a zone: the API takes it as UTC unless told, so convert. */
const localToIso = (value: string): string => new Date(value).toISOString();
const isoToLocal = (date: Date): string => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

function SendTest({ endpointId }: { endpointId: string }) {
  const { client } = useConsole();
  const [type, setType] = useState(EVENT_TYPES[0]!);
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
          setResult(await client.post(`/webhook-endpoints/${endpointId}/test`, { type }));
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <h2>Send a test event</h2>
      <p className="muted small">A signed event with sample data and “test”: true in its envelope. It is recorded in the delivery log, not in the event log.</p>
      <p className="row">
        <label htmlFor="test-type">Type</label>
        <select id="test-type" value={type} onChange={(e) => setType(e.target.value)}>
          {EVENT_TYPES.map((t) => (
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
          const answer = await client.post<{ queued: number }>(`/webhook-endpoints/${endpointId}/resend-failed`, { from: localToIso(from), to: localToIso(to) });
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
  const [rotated, setRotated] = useState<{ secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (rotated)
    return (
      <section className="panel">
        <SecretOnce label="New signing secret" secret={rotated.secret}>
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
          setRotated(await client.post(`/webhook-endpoints/${endpointId}/rotate-secret`, { expires_in_hours: hours }));
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
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<'' | 'succeeded' | 'failed'>('');
  const [eventId, setEventId] = useState('');
  const [panel, setPanel] = useState<'edit' | 'rotate' | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const endpoint = useLoad((c) => c.get<{ webhook_endpoint: WebhookEndpoint }>(`/webhook-endpoints/${endpointId}`), [endpointId]);
  const deliveries = useLoad(
    (c) => c.get<Page<Delivery>>(`/webhook-endpoints/${endpointId}/deliveries`, { page, limit: 20, status, event_id: eventId.trim() }),
    [endpointId, page, status, eventId],
  );
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
    await client.post(`/webhook-endpoints/${endpointId}/deliveries`, { event_id: delivery.event_id });
    deliveries.reload();
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
                  client.patch(`/webhook-endpoints/${endpointId}`, { status: found.status === 'enabled' ? 'disabled' : 'enabled' }).then(endpoint.reload, (e: unknown) => setActionError(describeError(e)))
                }
              >
                {found.status === 'enabled' ? 'Disable' : 'Enable'}
              </button>
              <ConfirmButton
                label="Delete"
                question="Delete this endpoint?"
                onConfirm={() => client.del(`/webhook-endpoints/${endpointId}`).then(() => navigate('/webhooks'), (e: unknown) => setActionError(describeError(e)))}
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
            await client.patch(`/webhook-endpoints/${endpointId}`, body);
            setPanel(null);
            endpoint.reload();
          }}
        />
      )}
      {panel === 'rotate' && <RotateSecret endpointId={endpointId} onDone={() => (setPanel(null), endpoint.reload())} />}
      {mayWrite && (
        <div className="two-col">
          <SendTest endpointId={endpointId} />
          <ResendFailed endpointId={endpointId} onQueued={deliveries.reload} />
        </div>
      )}
      <h2>Delivery log</h2>
      <div className="filters" role="group" aria-label="Filter deliveries">
        <label htmlFor="delivery-status">Result</label>
        <select id="delivery-status" value={status} onChange={(e) => (setStatus(e.target.value as typeof status), setPage(1))}>
          <option value="">All</option>
          <option value="succeeded">Delivered</option>
          <option value="failed">Failed</option>
        </select>
        <label htmlFor="delivery-event">Event id</label>
        <input id="delivery-event" value={eventId} onChange={(e) => (setEventId(e.target.value), setPage(1))} placeholder="evt_…" />
      </div>
      <ErrorNote error={deliveries.error} />
      {deliveries.data && deliveries.data.results.length === 0 ? (
        <Empty title="No deliveries match.">
          {status || eventId ? 'Clear the filters to see every attempt.' : 'Nothing was sent here yet. Send a test event to see one arrive.'}
        </Empty>
      ) : (
        deliveries.data && <DeliveryTable deliveries={deliveries.data.results} onResend={mayWrite ? resend : undefined} />
      )}
      <Pager page={deliveries.data} onPage={setPage} />
    </section>
  );
}
