import { useState } from 'react';
import { describeError } from '../api.ts';
import { useConsole } from '../context.tsx';
import { prettyJson } from '../format.ts';
import type { Delivery, EventEnvelope } from '../types.ts';
import { ErrorNote, Notice, Time } from './ui.tsx';

/** The event as it was sent: the envelope, pretty-printed, as text. */
export function Payload({ eventId }: { eventId: string }) {
  const { client } = useConsole();
  const [event, setEvent] = useState<EventEnvelope | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  return (
    <details
      className="payload"
      open={open}
      onToggle={(e) => {
        const isOpen = (e.currentTarget as HTMLDetailsElement).open;
        setOpen(isOpen);
        if (isOpen && !event)
          client.get<{ event: EventEnvelope }>(`/events/${eventId}`).then(
            (answer) => setEvent(answer.event),
            (failure: unknown) => setError(describeError(failure)),
          );
      }}
    >
      <summary>Payload</summary>
      <ErrorNote error={error} />
      {event && <pre data-testid="payload">{prettyJson(event)}</pre>}
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
  const excerpt = delivery.response_excerpt ?? delivery.response_body ?? null;
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
        {delivery.error && <p className="error small">{delivery.error}</p>}
        {excerpt ? <pre className="excerpt">{excerpt}</pre> : !delivery.error && <span className="muted">—</span>}
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
        <Payload eventId={delivery.event_id} />
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
