import { useLoad } from '../context.tsx';
import { DeliveryTable } from './deliveries.tsx';
import { ErrorNote } from '../components/ui.tsx';

/** Which endpoints got this event, and how each attempt went. */
export function EventDeliveries({ eventId }: { eventId: string }) {
  const attempts = useLoad(async (c) => {
    const endpoints = await c.get('/webhook-endpoints', { params: { query: { limit: 100 } } });
    const pages = await Promise.all(
      endpoints.results.map((e) => c.get('/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId: e.endpoint_id }, query: { event_id: eventId, limit: 100 } } })),
    );
    return { endpoints: endpoints.results, deliveries: pages.flatMap((p) => p.results) };
  }, [eventId]);
  if (attempts.error) return <ErrorNote error={attempts.error} />;
  if (!attempts.data) return <p className="muted">Loading deliveries…</p>;
  const { endpoints, deliveries } = attempts.data;
  if (deliveries.length === 0)
    return <p className="muted">No webhook endpoint received this event{endpoints.length === 0 ? ': there are no endpoints in this environment.' : ' (none subscribes to its type, or it was disabled).'}</p>;
  const urlOf = new Map(endpoints.map((e) => [e.endpoint_id, e.url]));
  return (
    <div className="stack">
      <p className="small">
        Sent to:{' '}
        {[...new Set(deliveries.map((d) => d.endpoint_id))].map((id) => (
          <code key={id} className="url">
            {urlOf.get(id) ?? id}{' '}
          </code>
        ))}
      </p>
      <DeliveryTable deliveries={deliveries} showEndpoint />
    </div>
  );
}
