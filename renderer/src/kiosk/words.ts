import type { AttentionItem, DecisionReason } from '../../../shared/kiosk/calls.ts';
import type { IncidentStatus } from '../../../shared/schemas/incidents.ts';
import type { MessageKey } from '../i18n/index.tsx';

/**
 * Which catalogue entry says each of the core's and the server's words. Typed as total maps, so a
 * reason, kind or status added to the handler map or the API fails the build here until it has
 * words of its own, rather than showing a raw code to a guard.
 */
export const REASON_TEXT: Record<DecisionReason, { headline: MessageKey; detail: MessageKey | null }> = {
  admitted: { headline: 'reason.admitted', detail: null },
  not_found: { headline: 'reason.not_found', detail: 'reason.not_found.detail' },
  revoked: { headline: 'reason.revoked', detail: 'reason.revoked.detail' },
  used_up: { headline: 'reason.used_up', detail: 'reason.used_up.detail' },
  not_yet_active: { headline: 'reason.not_yet_active', detail: 'reason.not_yet_active.detail' },
  expired: { headline: 'reason.expired', detail: 'reason.expired.detail' },
  invalid_pass: { headline: 'reason.invalid_pass', detail: 'reason.invalid_pass.detail' },
  too_many_attempts: { headline: 'reason.too_many_attempts', detail: 'reason.too_many_attempts.detail' },
  other_site: { headline: 'reason.other_site', detail: 'reason.other_site.detail' },
  other_entry_point: { headline: 'reason.other_entry_point', detail: 'reason.other_entry_point.detail' },
  // The line under it says since when and where (result-overlay.tsx); the buttons say the rest.
  already_inside: { headline: 'reason.already_inside', detail: null },
};

export const ATTENTION_TEXT: Record<AttentionItem['kind'], MessageKey> = {
  admission_refused: 'attention.admission_refused',
  refusal_overturned: 'attention.refusal_overturned',
  operation_refused: 'attention.operation_refused',
};

export const OPERATION_TEXT: Record<AttentionItem['operation'], MessageKey> = {
  validate: 'attention.op.validate',
  walk_in: 'attention.op.walk_in',
  checkout: 'attention.op.checkout',
  panic: 'attention.op.panic',
};

export const INCIDENT_STATUS_TEXT: Record<IncidentStatus, MessageKey> = {
  created: 'incident.created',
  dispatching: 'incident.dispatching',
  assigned: 'incident.assigned',
  responding: 'incident.responding',
  on_scene: 'incident.on_scene',
  escalated: 'incident.escalated',
  unresponsive: 'incident.unresponsive',
  resolved: 'incident.resolved',
  cancelled: 'incident.cancelled',
};
