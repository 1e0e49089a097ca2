import type { Scope } from '../schemas/api-keys.ts';
import type { WEBHOOK_EVENT_TYPES, WEBHOOK_WILDCARDS } from '../schemas/webhooks.ts';

/**
 * What each scope lets a key do, in one sentence a person choosing scopes can act on. The order
 * is the order the console offers them in. Type-only imports: the page does not carry zod.
 */
export const SCOPE_SENTENCES = {
  'incidents:read': 'Read incidents: their status, responder, timeline and analytics.',
  'incidents:write': 'Report incidents (an SOS included), add notes, cancel and acknowledge them.',
  'access_codes:read': 'List and read visitor access codes.',
  'access_codes:write': 'Create, revoke and bulk-manage visitor access codes; record walk-ins and checkouts.',
  'access_codes:validate': 'Check a code at a gate and read the code feed a kiosk keeps offline.',
  'logs:read': 'Read access logs: who came in, who left, who is on site now.',
  'analytics:read': 'Read threat intelligence: risk scores, danger zones, heatmaps and safe routes.',
  admin: "Manage the organization's keys, webhook endpoints and event log. Give it to no gate or app.",
} as const satisfies Record<Scope, string>;

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];
type Wildcard = (typeof WEBHOOK_WILDCARDS)[number];

const eventSentences = {
  '*': 'Every event type, those added later included.',
  'incident.*': 'Every incident event named in the reference: created, updated, escalated, unresponsive, resolved, cancelled.',
  'incident.created': 'An incident was reported and dispatch began.',
  'incident.updated': 'An incident changed: a responder was assigned, is on the way or on scene.',
  'incident.escalated': 'Nobody accepted in time: the incident was offered wider.',
  'incident.unresponsive': 'Still nobody after escalation: the incident needs a person to act.',
  'incident.resolved': 'The responder closed the incident, with an outcome.',
  'incident.cancelled': 'The incident was cancelled.',
  'incident.note_added': 'A note was added to an incident (only when named exactly, never through incident.*).',
  'incident.responder_location': "The assigned responder's position and ETA (only when named exactly, never through incident.*).",
  'incident.offer_declined': 'A responder declined an offer, with why (only when named exactly).',
  'incident.control_taken': 'A Tsaro controller took the incident in hand (only when named exactly).',
  'incident.control_offered': 'A Tsaro controller offered the incident to a chosen responder (only when named exactly).',
  'incident.control_reassigned': 'A Tsaro controller stood the responder down and sent the incident back to dispatch (only when named exactly).',
  'incident.control_stood_down': 'A Tsaro controller stood a responder down: an open offer withdrawn, or the assigned responder released and the incident back to dispatch (only when named exactly).',
  'incident.control_note': 'A Tsaro controller noted what was done (only when named exactly).',
  'incident.control_closed': 'A Tsaro controller closed the incident with an outcome (only when named exactly).',
  'incident.control_alert': "Tsaro control was alerted about the responder's safety: a panic, or check-ins missed on scene (only when named exactly).",
  'access_code.*': 'Every access code event.',
  'access_code.created': 'A visitor access code was created.',
  'access_code.used': 'A code was accepted at a gate.',
  'access_code.expired': 'A code reached its end without being used up.',
  'access_code.revoked': 'A code was revoked.',
  'visitor.*': 'Every visitor event.',
  'visitor.arrived': 'A visitor checked in at a gate.',
  'visitor.departed': 'A visitor checked out.',
  'kiosk.*': 'Every gate kiosk event.',
  'kiosk.offline': 'A gate kiosk has not been heard from: it may be off or cut off.',
  'kiosk.online': 'A gate kiosk that was offline is heard from again.',
  'visitor.excess_use': 'A gate let a visitor in offline with a code the server then refused: its last use taken at another gate, or revoked meanwhile (only when named exactly).',
} as const;

/** Fails to compile when the catalogue gains a type or wildcard without its sentence. */
type Unexplained = Exclude<EventType | Wildcard, keyof typeof eventSentences>;
const everyTypeExplained: [Unexplained] extends [never] ? true : Unexplained = true;
void everyTypeExplained;

/** What each event type and wildcard means, for people choosing what an endpoint receives. */
export const EVENT_SENTENCES: Readonly<Record<string, string>> = eventSentences;

/** An event type's sentence, or a plain fallback for a type this build does not know yet. */
export const eventSentence = (type: string): string => EVENT_SENTENCES[type] ?? 'An event of this type.';
