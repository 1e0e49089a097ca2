import type { Scope } from './api-keys.ts';
import { WEBHOOK_EVENT_TYPES, coversType } from './webhooks.ts';

/**
 * Which read scope shows which events: the one rule for GET /events, webhook subscriptions,
 * the payloads in the deliveries list and the event stream. An event carries the resource it
 * reports (an incident's subject, a visitor's name and phone), so seeing the event is reading
 * that resource. A family missing here is read by nobody (mayReadEventType); a new family
 * (the stream's `kiosk.*`, with `logs:read`) is added here before it is subscribable.
 */
export const EVENT_READ_SCOPES = {
  incident: 'incidents:read',
  access_code: 'access_codes:read',
  visitor: 'logs:read',
  // A gate kiosk's health (server/kiosks/): read with the visits it records.
  kiosk: 'logs:read',
} as const satisfies Record<string, Scope>;

const familyOf = (typeOrPattern: string) => typeOrPattern.split('.')[0] ?? '';

/**
 * The read scopes an event type, a family wildcard (`incident.*`) or `*` needs. `*` needs every
 * read scope: it receives every type, including types added later.
 */
export function readScopesFor(typeOrPattern: string): Scope[] {
  if (typeOrPattern === '*') return [...new Set(Object.values(EVENT_READ_SCOPES))];
  const scope = (EVENT_READ_SCOPES as Record<string, Scope>)[familyOf(typeOrPattern)];
  return scope ? [scope] : [];
}

/** Whether a caller holding `scopes` may see events of this type. */
export function mayReadEventType(scopes: ReadonlySet<string>, type: string): boolean {
  const needed = readScopesFor(type);
  return needed.length > 0 && needed.every((scope) => scopes.has(scope));
}

/**
 * The first read scope `scopes` lacks for any of these types or patterns, with the pattern that
 * needs it; undefined when every one may be read.
 */
export function missingReadScope(scopes: ReadonlySet<string>, patterns: readonly string[]): { scope: Scope; pattern: string } | undefined {
  for (const pattern of patterns) {
    const scope = readScopesFor(pattern).find((needed) => !scopes.has(needed));
    if (scope) return { scope, pattern };
  }
  return undefined;
}

/** The event types a caller may see, narrowed to those `pattern` (a type or wildcard, the whole family) covers. */
export function readableEventTypes(scopes: ReadonlySet<string>, pattern = '*'): (typeof WEBHOOK_EVENT_TYPES)[number][] {
  return WEBHOOK_EVENT_TYPES.filter((type) => coversType(pattern, type) && mayReadEventType(scopes, type));
}

/** The read scopes that show any event at all: holding one of them opens the event stream. */
export const EVENT_STREAM_SCOPES: readonly Scope[] = [...new Set(Object.values(EVENT_READ_SCOPES))];
