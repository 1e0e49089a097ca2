import type { IncidentStatus, TimelineEventName } from '../../shared/schemas/incidents.ts';
import { inTransaction, type Executor, type IncidentRow, type TimelineRow } from '../db/schema.ts';
import { appendEvent, type EventDeps, type EventType } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import { appendTimelineRow, updateIncidentAtVersion } from './store.ts';

/**
 * The reference's state table, and the only place that changes an incident's status.
 * A responder may still accept an escalated or unresponsive incident (contract: late help beats
 * none). Any active status may be cancelled; terminal statuses go nowhere.
 */
export const INCIDENT_TRANSITIONS: Record<IncidentStatus, readonly IncidentStatus[]> = {
  created: ['dispatching', 'cancelled'],
  // → resolved from any active status but created: a Tsaro controller closes a case with an
  // outcome however far it got (issue #47; a responder still resolves only from on_scene,
  // dispatch/responder-actions.ts).
  dispatching: ['assigned', 'escalated', 'resolved', 'cancelled'],
  // → dispatching: a controller stands the assigned responder down and sends it back (reassign).
  assigned: ['responding', 'dispatching', 'resolved', 'cancelled'],
  responding: ['on_scene', 'dispatching', 'resolved', 'cancelled'],
  // → dispatching: a controller stands the responder on scene down (issue #47: pulled out for
  // their safety, or needed elsewhere); the incident goes back to dispatch for another, or closed.
  on_scene: ['resolved', 'dispatching', 'cancelled'],
  escalated: ['assigned', 'unresponsive', 'resolved', 'cancelled'],
  unresponsive: ['assigned', 'resolved', 'cancelled'],
  resolved: [],
  cancelled: [],
};

/** Timeline event written when an incident enters each status. */
const TIMELINE_EVENT: Record<IncidentStatus, TimelineEventName> = {
  created: 'created',
  dispatching: 'dispatched',
  assigned: 'assigned',
  responding: 'responding',
  on_scene: 'on_scene',
  escalated: 'escalated',
  unresponsive: 'unresponsive',
  resolved: 'resolved',
  cancelled: 'cancelled',
};

/** Webhook event type for entering each status (reference, "Events"). */
const WEBHOOK_EVENT: Partial<Record<IncidentStatus, EventType>> = {
  dispatching: 'incident.updated',
  assigned: 'incident.updated',
  responding: 'incident.updated',
  on_scene: 'incident.updated',
  escalated: 'incident.escalated',
  unresponsive: 'incident.unresponsive',
  resolved: 'incident.resolved',
  cancelled: 'incident.cancelled',
};

/** Timestamp columns set on entering a status. */
const STAMPS: Partial<Record<IncidentStatus, keyof IncidentRow>> = {
  assigned: 'assigned_at',
  on_scene: 'on_scene_at',
  resolved: 'resolved_at',
  cancelled: 'cancelled_at',
};

export function canTransition(from: IncidentStatus, to: IncidentStatus): boolean {
  return INCIDENT_TRANSITIONS[from].includes(to);
}

/**
 * A reported incident is created and handed to dispatch at once (reference: "created, then
 * dispatching"): the status and version it is stored with, and its first two timeline entries.
 * Written with the insert itself, so reporting an incident is one short transaction.
 */
export function openIncident(
  incidentId: string,
  at: string,
  messages: { created: string; dispatched: string },
): { status: IncidentStatus; version: number; timeline: TimelineRow[] } {
  if (!canTransition('created', 'dispatching')) throw new Error('state table no longer opens incidents into dispatch');
  return {
    status: 'dispatching',
    version: 2,
    timeline: [
      { incident_id: incidentId, seq: 1, status: 'created', event: TIMELINE_EVENT.created, message: messages.created, timestamp: at },
      { incident_id: incidentId, seq: 2, status: 'dispatching', event: TIMELINE_EVENT.dispatching, message: messages.dispatched, timestamp: at },
    ],
  };
}

/** Someone changed the incident between our read and our write; read again and retry. */
export class StaleIncidentError extends Error {}

/**
 * Runs a read-decide-write step on the incident's latest state (as `find` reads it, in the
 * transaction), again when another writer changed it first: a missing incident is a 404, and
 * five lost races in a row a 409.
 */
export async function withLatestIncident<T>(
  db: Executor,
  find: (trx: Executor) => Promise<IncidentRow | undefined>,
  step: (trx: Executor, row: IncidentRow) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(db, async (trx) => {
        const row = await find(trx);
        if (!row) throw notFound('Incident');
        return step(trx, row);
      });
    } catch (err) {
      if (!(err instanceof StaleIncidentError)) throw err;
      if (attempt >= 4) throw conflict('The incident is changing too fast; try again');
    }
  }
}

export interface TransitionOptions {
  message: string;
  /** Extra columns written with the change (resolution outcome, notes...). */
  changes?: Partial<IncidentRow>;
  /** Write the webhook event for this status; false where a wider event reports it (create). */
  emitEvent?: boolean;
  /** Builds the event's `data` (the REST incident) inside the same transaction. */
  represent: (trx: Executor, incidentId: string) => Promise<unknown>;
}

/**
 * Moves an incident to `to`: refuses what the table does not allow (409 naming the current
 * status), bumps `version`, appends the timeline entry and writes the event, all with the
 * caller's transaction.
 */
/**
 * An entry that is not a status change (a responder's decline, a controller's action): at the
 * current status, with a new version, the timeline entry and its event of its own type (the
 * incident and `extra`), in the caller's transaction. Terminal statuses: 409.
 */
export async function recordIncidentEntry(
  trx: Executor,
  deps: EventDeps,
  incident: IncidentRow,
  entry: {
    event: TimelineEventName;
    message: string;
    type: EventType;
    extra: Record<string, unknown>;
    changes?: Partial<IncidentRow>;
    represent: (trx: Executor, incidentId: string) => Promise<unknown>;
  },
): Promise<void> {
  const status = incident.status as IncidentStatus;
  if (INCIDENT_TRANSITIONS[status].length === 0) throw conflict(`Incident is already ${status}`);
  const at = deps.clock.now().toISOString();
  const changed = await updateIncidentAtVersion(trx, incident.incident_id, Number(incident.version), { ...entry.changes, version: Number(incident.version) + 1, updated_at: at });
  if (!changed) throw new StaleIncidentError();
  await appendTimelineRow(trx, { incident_id: incident.incident_id, status, event: entry.event, message: entry.message, timestamp: at });
  const data = (await entry.represent(trx, incident.incident_id)) as Record<string, unknown>;
  await appendEvent(trx, deps, { organizationId: incident.organization_id, environment: incident.environment, type: entry.type, resourceId: incident.incident_id, data: { ...data, ...entry.extra } });
}

export async function transitionIncident(
  trx: Executor,
  deps: EventDeps,
  incident: IncidentRow,
  to: IncidentStatus,
  options: TransitionOptions,
): Promise<void> {
  const from = incident.status as IncidentStatus;
  if (!canTransition(from, to)) {
    throw INCIDENT_TRANSITIONS[from].length === 0
      ? conflict(`Incident is already ${from}`)
      : conflict(`Incident cannot go from ${from} to ${to}`);
  }
  const at = deps.clock.now().toISOString();
  const stamp = STAMPS[to];
  const changed = await updateIncidentAtVersion(trx, incident.incident_id, Number(incident.version), {
    ...options.changes,
    ...(stamp && { [stamp]: at }),
    status: to,
    version: Number(incident.version) + 1,
    updated_at: at,
  });
  if (!changed) throw new StaleIncidentError();
  await appendTimelineRow(trx, {
    incident_id: incident.incident_id,
    status: to,
    event: TIMELINE_EVENT[to],
    message: options.message,
    timestamp: at,
  });
  const type = WEBHOOK_EVENT[to];
  if (type && options.emitEvent !== false) {
    await appendEvent(trx, deps, {
      organizationId: incident.organization_id,
      environment: incident.environment,
      type,
      resourceId: incident.incident_id,
      data: await options.represent(trx, incident.incident_id),
    });
  }
}
