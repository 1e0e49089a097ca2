import { useState } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { prettyJson } from '../format.ts';
import { ErrorNote, Notice, Time } from '../components/ui.tsx';
import type { Column } from '../lists/list-table.tsx';

type Delivery = Schemas['WebhookDelivery'];

/** The event as it was sent: the envelope the delivery list carries, pretty-printed, as text. */
export function Payload({ payload }: { payload: Schemas['Event'] | null }) {
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

/** The payload and, where allowed, a resend button with what came of it. */
function DeliveryActions({ delivery, onResend }: { delivery: Delivery; onResend?: () => Promise<void> }) {
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
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
    </>
  );
}

/** One attempt per row: how it went, how long it took, what the receiver said, when it is tried again. */
export function deliveryColumns({ onResend, showEndpoint = false }: { onResend?: (delivery: Delivery) => Promise<void>; showEndpoint?: boolean }): Column<Delivery>[] {
  return [
    {
      header: 'Result',
      cell: (delivery) => (
        <>
          <DeliveryStatus delivery={delivery} />
          <p className="muted small">Attempt {delivery.attempt}</p>
        </>
      ),
    },
    {
      header: 'Event',
      cell: (delivery) => (
        <>
          <code className="nowrap">{delivery.event_type}</code>
          <p className="muted small">
            <code>{delivery.event_id}</code>
          </p>
          {showEndpoint && (
            <p className="muted small">
              to <code>{delivery.endpoint_id}</code>
            </p>
          )}
        </>
      ),
    },
    {
      header: 'When, latency',
      cell: (delivery) => (
        <>
          <Time iso={delivery.attempted_at} />
          <p className="muted small">{delivery.duration_ms} ms</p>
        </>
      ),
    },
    {
      header: 'Response',
      className: 'response',
      cell: (delivery) => (
        <>
          {delivery.error ? (
            <p className="error small">{delivery.error}</p>
          ) : delivery.response_status !== null ? (
            <span>HTTP {delivery.response_status}</span>
          ) : (
            <span className="muted">—</span>
          )}
          {delivery.response_excerpt && <pre className="excerpt small">{delivery.response_excerpt}</pre>}
        </>
      ),
    },
    {
      header: 'Next retry',
      cell: (delivery) =>
        delivery.next_attempt_at ? (
          <span>
            Retry <Time iso={delivery.next_attempt_at} relative />
          </span>
        ) : (
          <span className="muted">{delivery.status === 'succeeded' ? 'Done' : 'No more retries'}</span>
        ),
    },
    {
      header: 'Payload',
      className: 'actions-cell',
      cell: (delivery) => <DeliveryActions delivery={delivery} onResend={onResend && (() => onResend(delivery))} />,
    },
  ];
}

/** A delivery row's test id, as every delivery table has it. */
export const deliveryRowProps = () => ({ 'data-testid': 'delivery-row' });

/** Attempts gathered from several endpoints (one event's deliveries): every row, no pager. */
export function DeliveryTable({ deliveries, onResend, showEndpoint }: { deliveries: Delivery[]; onResend?: (d: Delivery) => Promise<void>; showEndpoint?: boolean }) {
  const columns = deliveryColumns({ onResend, showEndpoint });
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={index} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.delivery_id} {...deliveryRowProps()}>
              {columns.map((column, index) => (
                <td key={index} className={column.className}>
                  {column.cell(delivery)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
