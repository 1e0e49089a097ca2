import type { Incident } from './incidents.ts';

/**
 * An incident in the words the control room uses rather than the API's field names (issue #48):
 * what and where, each status and timeline entry, the details a kiosk or a partner attached.
 * Pure, so the board and the incident page say the same thing.
 */

export const CATEGORY_TEXT: Record<Incident['category'], string> = { sos: 'SOS', vehicle: 'Vehicle', location_threat: 'Location threat', medical: 'Medical' };

export const SEVERITY_TEXT: Record<Incident['severity'], string> = { low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' };

export const STATUS_TEXT: Record<Incident['status'], string> = {
  created: 'Created',
  dispatching: 'Offering to responders',
  assigned: 'Assigned',
  responding: 'Responding',
  on_scene: 'On scene',
  escalated: 'Escalated: nobody accepted',
  unresponsive: 'Unresponsive: still nobody',
  resolved: 'Resolved',
  cancelled: 'Cancelled',
};

const EVENT_TEXT: Record<string, string> = {
  created: 'Raised',
  dispatched: 'Offered to responders',
  assigned: 'Responder assigned',
  responding: 'Responder on the way',
  on_scene: 'Responder on scene',
  resolved: 'Resolved',
  escalated: 'Escalated',
  unresponsive: 'Unresponsive',
  cancelled: 'Cancelled',
  note: 'Note',
  acknowledged: 'Acknowledged',
  sms_sent: 'Text sent',
  sms_delivered: 'Text delivered',
  sms_failed: 'Text failed',
  called_for_help: 'Guard called for help',
  false_alarm: 'Guard: false alarm',
};

/** A timeline entry's event in words; one this console does not know yet, its name read as words. */
export const eventText = (event: string): string => EVENT_TEXT[event] ?? sentenceCase(event);

const sentenceCase = (name: string): string => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * Where the incident is, as its card's title and its page's heading say it: the gate and the
 * estate ("Main gate, Admiralty Estate"), else the address or landmark; the partner's own title
 * only when nothing says where. The API's `title` stays as the reference has it.
 */
export function whereOf(incident: Pick<Incident, 'title' | 'subject' | 'location'>, siteName: string | undefined): string {
  const gate = incident.subject.metadata.entry_point;
  const place = [gate, siteName].filter((part): part is string => Boolean(part?.trim()));
  if (place.length) return place.join(', ');
  return incident.location.address ?? incident.location.landmark ?? incident.title;
}

/** One detail a kiosk or a partner attached, labelled in words; `instant` when the value is a time to show as one. */
export interface Detail {
  key: string;
  label: string;
  value: string;
  instant: boolean;
}

const DETAIL_LABEL: Record<string, string> = {
  entry_point: 'Gate',
  kiosk_id: 'Kiosk',
  pressed_at: 'Button pressed',
  guard: 'Guard on duty',
  guard_name: 'Guard on duty',
};

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The subject's metadata as details: known keys in words, others read as words, times marked to show as times. */
export function detailsOf(metadata: Record<string, string>, leaveOut: readonly string[] = []): Detail[] {
  return Object.entries(metadata)
    .filter(([key]) => !leaveOut.includes(key))
    .map(([key, value]) => ({ key, label: DETAIL_LABEL[key] ?? sentenceCase(key), value, instant: INSTANT.test(value) && !Number.isNaN(Date.parse(value)) }));
}
