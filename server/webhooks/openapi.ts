/** How a delivery is signed and retried: said once, in the endpoint's creation. */
export const SIGNING = [
  'Each delivery is an HTTP POST of the envelope `{id, type, created_at, data}` (`data`: the REST resource) with headers',
  '`Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (Stripe\'s scheme; one `v1` per valid secret during a rotation),',
  '`Svc-Event-Id` and `Svc-Event-Type`. Any 2xx within 10 s is success; redirects are not followed.',
  'A failed delivery is tried again at once, after 30 s, after 5 min, then hourly (± 6 min) until 72 h after the event, when it is marked failed for good. Receivers deduplicate by the envelope `id`.',
].join(' ');

/** The read scope rule for subscriptions (shared/schemas/event-scopes.ts), said where an endpoint is created or changed. */
export const SUBSCRIBING = [
  'Subscribing to a type needs its read scope, as reading it in `GET /events` does: `incident.*` types need `incidents:read`, `access_code.*` `access_codes:read`, `visitor.*` and `kiosk.*` `logs:read`,',
  'and `*` all three (it receives every type, later ones too); otherwise 403 naming the scope.',
].join(' ');
