import { useState } from 'react';
import { describeError } from '../api.ts';
import { prettyJson } from '../format.ts';
import type { Delivery, EventEnvelope } from '../types.ts';
import { ErrorNote, Notice, Time } from './ui.tsx';

/** The event as it was sent: the envelope the delivery list carries, pretty-printed, as text. */
export function Payload({ payload }: { payload: EventEnvelope | null }) {
  if (!payload) return <span className="muted small">Payload hidden (your role may not read this event type)</span>;
  return (
    <details className="payload">
      <summary>Payload</summary>
      <pre data-testid="payload">{prettyJson(payload)}</pre>
    </details>
  );
}

export function DeliveryStatus({ delivery }: { delivery: Delivery }) {
  return (
    <span className={`tag ${delivery.status === 'succeeded' ? 'good' : 'bad'}`}>
      {delivery.status === 'succeeded' ? 'Delivered' : 'Failed'}
      {delivery.response_status !== null && ` · ${delivery.response_status}`}
    </span>
  );
}

/** One attempt: how it went, how long it took, what the receiver said, when it is tried again. */
export function DeliveryRow({ delivery, onResend, showEndpoint = false }: { delivery: Delivery; onResend?: () => Promise<void>; showEndpoint?: boolean }) {
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <tr data-testid="delivery-row">
      <td>
        <DeliveryStatus delivery={delivery} />
        <p className="muted small">Attempt {delivery.attempt}</p>
      </td>
      <td>
        <code className="nowrap">{delivery.event_type}</code>
        <p className="muted small">
          <code>{delivery.event_id}</code>
        </p>
        {showEndpoint && (
          <p className="muted small">
            to <code>{delivery.endpoint_id}</code>
          </p>
        )}
      </td>
      <td>
        <Time iso={delivery.attempted_at} />
        <p className="muted small">{delivery.duration_ms} ms</p>
      </td>
      <td className="response">
        {delivery.error ? (
          <p className="error small">{delivery.error}</p>
        ) : delivery.response_status !== null ? (
          <span>HTTP {delivery.response_status}</span>
        ) : (
          <span className="muted">—</span>
        )}
        {delivery.response_excerpt && <pre className="excerpt small">{delivery.response_excerpt}</pre>}
      </td>
      <td>
        {delivery.next_attempt_at ? (
          <span>
            Retry <Time iso={delivery.next_attempt_at} relative />
          </span>
        ) : (
          <span className="muted">{delivery.status === 'succeeded' ? 'Done' : 'No more retries'}</span>
        )}
      </td>
      <td className="actions-cell">
        <Payload payload={delivery.payload} />
        {onResend && (
          <button
            type="button"
            onClick={() => {
              setError(null);
              onResend().then(
                () => setNote('Queued again.'),
                (failure: unknown) => setError(describeError(failure)),
              );
            }}
          >
            Resend
          </button>
        )}
        {note && <Notice>{note}</Notice>}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

export function DeliveryTable({ deliveries, onResend, showEndpoint }: { deliveries: Delivery[]; onResend?: (d: Delivery) => Promise<void>; showEndpoint?: boolean }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Result</th>
            <th scope="col">Event</th>
            <th scope="col">When, latency</th>
            <th scope="col">Response</th>
            <th scope="col">Next retry</th>
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.delivery_id} delivery={delivery} showEndpoint={showEndpoint} onResend={onResend && (() => onResend(delivery))} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
