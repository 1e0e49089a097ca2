import { URGENCIES } from '../../shared/schemas/staff.ts';

export type Urgency = (typeof URGENCIES)[number];

/**
 * How urgent a live incident is for the queue (issue #47): nobody came and the escalation window
 * ran out (`unresponsive`), nobody accepted in the dispatch window (`escalated`), a dispatch
 * window half spent with nobody yet, then the rest. Pure: the queue's one rule.
 */
export function urgencyOf(incident: { status: string; dispatch_deadline: string }, nowMs: number, dispatchWindowS: number): Urgency {
  if (incident.status === 'unresponsive') return 'unresponsive';
  if (incident.status === 'escalated') return 'escalated';
  if (incident.status === 'dispatching' && nowMs >= Date.parse(incident.dispatch_deadline) - (dispatchWindowS * 1000) / 2) return 'window_half_spent';
  return 'other';
}

/** Most urgent first; within one urgency, the oldest first (it has waited longest). */
export function queueOrder<T extends { urgency: Urgency; created_at: string; incident_id: string }>(items: T[]): T[] {
  const rank = (u: Urgency) => URGENCIES.indexOf(u);
  return [...items].sort((a, b) => rank(a.urgency) - rank(b.urgency) || a.created_at.localeCompare(b.created_at) || a.incident_id.localeCompare(b.incident_id));
}
