import type { Environment } from '../../shared/schemas/common.ts';
import type {
  Incident,
  IncidentCategory,
  IncidentSeverity,
  IncidentStatus,
  ResolutionOutcome,
  TimelineEntry,
  TimelineEventName,
} from '../../shared/schemas/incidents.ts';
import type { IncidentRow, TimelineRow } from '../db/schema.ts';

const secondsBetween = (from: string, to: string | null) =>
  to === null ? null : Math.round((Date.parse(to) - Date.parse(from)) / 1000);

/** The one place an incident row (and its timeline) becomes the API's Incident. */
export function rowToIncident(row: IncidentRow, timeline: TimelineRow[]): Incident {
  return {
    incident_id: row.incident_id,
    idempotency_key: row.idempotency_key,
    category: row.category as IncidentCategory,
    severity: row.severity as IncidentSeverity,
    status: row.status as IncidentStatus,
    subject: {
      name: row.subject_name,
      phone: row.subject_phone,
      email: row.subject_email,
      reference: row.subject_reference,
      metadata: JSON.parse(row.subject_metadata) as Record<string, string>,
    },
    location: {
      coordinates: [Number(row.longitude), Number(row.latitude)],
      address: row.address,
      landmark: row.landmark,
    },
    title: row.title,
    description: row.description,
    is_drill: Boolean(row.is_drill),
    site_id: row.site_id ?? null,
    environment: row.environment as Environment,
    version: Number(row.version),
    responder:
      row.responder_id === null
        ? null
        : {
            responder_id: row.responder_id,
            name: row.responder_name ?? '',
            phone: row.responder_phone ?? '',
            location:
              row.responder_latitude === null || row.responder_longitude === null
                ? null
                : { latitude: Number(row.responder_latitude), longitude: Number(row.responder_longitude) },
            eta_minutes: row.eta_minutes === null ? null : Number(row.eta_minutes),
            assigned_at: row.assigned_at ?? row.updated_at,
          },
    handled_by: row.controller_name ?? null,
    sla: {
      dispatch_deadline: row.dispatch_deadline,
      escalation_deadline: row.escalation_deadline,
      seconds_to_assign: secondsBetween(row.created_at, row.assigned_at),
      seconds_to_arrive: secondsBetween(row.created_at, row.on_scene_at),
    },
    timeline: timeline.map(rowToTimelineEntry),
    resolution_outcome: row.resolution_outcome as ResolutionOutcome | null,
    resolution_notes: row.resolution_notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
    resolved_at: row.resolved_at,
    cancelled_at: row.cancelled_at,
  };
}

function rowToTimelineEntry(row: TimelineRow): TimelineEntry {
  return {
    status: row.status as IncidentStatus,
    event: row.event as TimelineEventName,
    message: row.message,
    timestamp: row.timestamp,
  };
}
