import { z } from 'zod';
import { DateRangeQuery, Environment, PageQuery, SiteRef, Timestamp, TimestampInput, paginated, nullMeansAbsent, searchQuery } from './common.ts';

export const INCIDENT_CATEGORIES = ['sos', 'vehicle', 'location_threat', 'medical'] as const;
export const INCIDENT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const ACTIVE_INCIDENT_STATUSES = [
  'created',
  'dispatching',
  'assigned',
  'responding',
  'on_scene',
  'escalated',
  'unresponsive',
] as const;
export const TERMINAL_INCIDENT_STATUSES = ['resolved', 'cancelled'] as const;
export const INCIDENT_STATUSES = [...ACTIVE_INCIDENT_STATUSES, ...TERMINAL_INCIDENT_STATUSES] as const;
export const TIMELINE_EVENTS = [
  'created',
  'dispatched',
  'assigned',
  'responding',
  'on_scene',
  'resolved',
  'escalated',
  'unresponsive',
  'cancelled',
  'note',
  'acknowledged',
  'sms_sent',
  'sms_delivered',
  'sms_failed',
  'called_for_help',
  'false_alarm',
  'offer_declined',
  'control_taken',
  'control_offered',
  'control_reassigned',
  'control_stood_down',
  'control_note',
  'control_closed',
  'control_alert',
] as const;
export const RESOLUTION_OUTCOMES = [
  'assisted',
  'false_alarm',
  'no_action_required',
  'referred_to_authorities',
  'medical_transport',
  'unable_to_locate',
] as const;

export const IncidentCategory = z.enum(INCIDENT_CATEGORIES).meta({ id: 'IncidentCategory' });
export const IncidentSeverity = z.enum(INCIDENT_SEVERITIES).meta({ id: 'IncidentSeverity' });
export const IncidentStatus = z.enum(INCIDENT_STATUSES).meta({
  id: 'IncidentStatus',
  description:
    'Active: created, dispatching, assigned, responding, on_scene, escalated, unresponsive. Terminal: resolved, cancelled.',
});
export const TimelineEventName = z.enum(TIMELINE_EVENTS).meta({
  description:
    'The status entered (`dispatched` is entering dispatching), or `note` (a partner\'s note) or `acknowledged` (an operator has seen an escalated or unresponsive incident; the message names who), or `sms_sent`, `sms_delivered`, `sms_failed` (a text message to the site\'s call list, `GET /messages`), `offer_declined` (a responder declined, with why), or a Tsaro controller\'s action: `control_taken`, `control_offered`, `control_note`, `control_stood_down` (an open offer withdrawn; the message names "Tsaro control (first name)"), or `control_alert` (Tsaro control was alerted about the responder\'s safety: a panic, or two check-ins missed on scene), all at the current status; a controller\'s reassignment, stand-down of the assigned responder and close are the status entries `dispatched` and `resolved`, their message naming the controller',
});
export const ResolutionOutcome = z.enum(RESOLUTION_OUTCOMES).meta({ id: 'ResolutionOutcome' });

export type IncidentCategory = z.infer<typeof IncidentCategory>;
export type IncidentSeverity = z.infer<typeof IncidentSeverity>;
export type IncidentStatus = z.infer<typeof IncidentStatus>;
export type TimelineEventName = z.infer<typeof TimelineEventName>;
export type ResolutionOutcome = z.infer<typeof ResolutionOutcome>;

const Longitude = z.number().min(-180).max(180);
const Latitude = z.number().min(-90).max(90);

/**
 * `[longitude, latitude]`. zod checks it as a tuple; the document declares a two-number array
 * (what Prism and most generators understand, unlike `prefixItems` with `items: false`) and
 * states each position's range.
 */
export const Coordinates = z.tuple([Longitude, Latitude]).meta({
  description: '[longitude, latitude], GeoJSON order: longitude from -180 to 180, then latitude from -90 to 90',
  example: [3.3792, 6.5244],
  override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    for (const key of ['prefixItems', 'items', 'minItems', 'maxItems']) delete jsonSchema[key];
    Object.assign(jsonSchema, { type: 'array', items: { type: 'number', minimum: -180, maximum: 180 }, minItems: 2, maxItems: 2 });
  },
});

export const Subject = nullMeansAbsent(z.strictObject({
    name: z.string().trim().min(1).max(200).meta({ description: 'Full name' }),
    phone: z.string().trim().min(1).max(32).optional(),
    email: z.email().max(254).optional(),
    reference: z
      .string()
      .max(128)
      .optional()
      .meta({ description: "Partner's own id for this person; echoed in every response and webhook" }),
    metadata: z
      .record(z.string().min(1).max(40), z.string().max(500))
      .refine((value) => Object.keys(value).length <= 20, { message: 'at most 20 keys' })
      .optional()
      .meta({ description: 'Up to 20 string pairs; keys up to 40 characters, values up to 500' }),
  }))
  .meta({ id: 'Subject', description: "The partner's end user; needs no account with the service" });

export const IncidentLocationInput = nullMeansAbsent(z.strictObject({
    coordinates: Coordinates,
    address: z.string().max(500).optional(),
    landmark: z.string().max(500).optional(),
  }))
  .meta({ id: 'IncidentLocationInput' });

export const CreateIncidentRequest = nullMeansAbsent(z.strictObject({
    category: IncidentCategory,
    severity: IncidentSeverity,
    subject: Subject,
    location: IncidentLocationInput,
    title: z.string().trim().min(1).max(200).optional().meta({ description: 'Auto-generated when omitted' }),
    description: z.string().max(2000).optional(),
    idempotency_key: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'A second create with the same key returns the first incident (200, idempotent: true)' }),
    is_drill: z.boolean().default(false).meta({ description: 'Drills are never offered to real responders' }),
    site_id: SiteRef.optional().meta({ description: "The site (estate) it happened at, when it did: the board shows the site's call list. A gate kiosk's SOS names its site itself" }),
  }))
  .meta({ id: 'CreateIncidentRequest' });
export type CreateIncidentRequest = z.infer<typeof CreateIncidentRequest>;

export const CancelIncidentRequest = nullMeansAbsent(z.strictObject({ reason: z.string().trim().min(1).max(2000).optional() }))
  .meta({ id: 'CancelIncidentRequest' });

export const AddNoteRequest = nullMeansAbsent(z.strictObject({ message: z.string().trim().min(1).max(2000) }))
  .meta({ id: 'AddNoteRequest' });

export const GUARD_REPORTS = ['called_for_help', 'false_alarm'] as const;
export const GuardReportRequest = nullMeansAbsent(z.strictObject({
    report: z.enum(GUARD_REPORTS).meta({
      description: "`called_for_help`: the guard has called the police or the estate's list; `false_alarm`: the guard says nobody needs help. Neither changes the status: operators cancel or resolve",
    }),
    guard: z.string().trim().min(1).max(200).optional().meta({ description: 'Who reports it (the guard on duty)' }),
    note: z.string().trim().min(1).max(500).optional(),
    reported_at: TimestampInput.optional().meta({ description: 'When the guard reported it, for a kiosk that was offline: at most 7 days old, not in the future' }),
  }))
  .meta({ id: 'GuardReportRequest' });
export type GuardReportRequest = z.infer<typeof GuardReportRequest>;

/** A status, or `active`: every active status at once (the control room's board). */
export const IncidentStatusFilter = z.enum([...INCIDENT_STATUSES, 'active']).meta({
  description: 'One status, or `active` for every active status at once (created, dispatching, assigned, responding, on_scene, escalated, unresponsive)',
});

export const ListIncidentsQuery = PageQuery.extend({
  site_id: SiteRef.optional().meta({ description: 'Only the incidents of this site' }),
  search: searchQuery("Part of the subject's name or phone, any case (a text index: three characters or more are looked up; the count stops at 10,000)"),
  status: IncidentStatusFilter.optional(),
  category: IncidentCategory.optional(),
  severity: IncidentSeverity.optional(),
}).extend(DateRangeQuery.shape);

export const IncidentAnalyticsQuery = DateRangeQuery.extend({ site_id: SiteRef.optional().meta({ description: 'Only the incidents of this site' }) });

const countsOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.object(Object.fromEntries(values.map((value) => [value, z.int()])) as Record<T[number], z.ZodInt>);

/** Seconds from creation to a point of the incident's life, over the incidents that reached it. */
const durations = (description: string) =>
  z
    .object({
      count: z.int().meta({ description: 'Incidents that reached this point' }),
      median: z.int().nullable().meta({ description: 'Whole seconds; null when count is 0' }),
      p90: z.int().nullable().meta({ description: 'Whole seconds; null when count is 0' }),
      approximate: z.boolean().meta({
        description:
          'true when a duration over 10 minutes took part in `median` or `p90`: those are kept to 10 s (to an hour), a minute (to a day) or an hour beyond, so the figure is within that of the exact one. Shorter durations are kept to the second',
      }),
    })
    .meta({ description: `${description}: median and 90th percentile, interpolated between the nearest ranks (as PostgreSQL's percentile_cont) and rounded` });

export const IncidentAnalytics = z
  .object({
    from_date: Timestamp.nullable().meta({ description: 'The window applied: incidents created at or after this instant (null: from the first)' }),
    to_date: Timestamp.nullable().meta({ description: 'And before this instant (null: to now)' }),
    total: z.int(),
    by_category: countsOf(INCIDENT_CATEGORIES).meta({ description: 'Every category, zeros included' }),
    by_status: countsOf(INCIDENT_STATUSES).meta({ description: 'Current status; every status, zeros included' }),
    by_severity: countsOf(INCIDENT_SEVERITIES).meta({ description: 'Every severity, zeros included' }),
    seconds_to_assign: durations('Creation to assignment (`sla.seconds_to_assign`), over the incidents assigned'),
    seconds_to_arrive: durations('Creation to on_scene (`sla.seconds_to_arrive`), over the incidents a responder reached'),
  })
  .meta({ id: 'IncidentAnalytics' });
export type IncidentAnalytics = z.infer<typeof IncidentAnalytics>;

export const IncidentIdParams = z.object({
  incidentId: z.string().meta({ description: 'The incident_id (inc_...)', example: 'inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
});

export const TimelineEntry = z
  .object({
    status: IncidentStatus,
    event: TimelineEventName,
    message: z.string(),
    timestamp: Timestamp,
  })
  .meta({ id: 'IncidentTimelineEvent' });
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const GeoPoint = z.object({ latitude: z.number(), longitude: z.number() }).meta({ id: 'GeoPoint' });

export const ResponderAssignment = z
  .object({
    responder_id: z.string(),
    name: z.string(),
    phone: z.string(),
    location: GeoPoint.nullable(),
    eta_minutes: z.int().nullable(),
    assigned_at: Timestamp,
  })
  .meta({ id: 'ResponderAssignment' });

export const Sla = z
  .object({
    dispatch_deadline: Timestamp.meta({ description: 'A responder must accept by then or the incident escalates' }),
    escalation_deadline: Timestamp.meta({ description: 'After this an unassigned escalated incident is unresponsive' }),
    seconds_to_assign: z.int().nullable().meta({ description: 'From creation to assignment; null until assigned' }),
    seconds_to_arrive: z.int().nullable().meta({ description: 'From creation to on_scene; null until then' }),
  })
  .meta({ id: 'SLA' });

export const Incident = z
  .object({
    incident_id: z.string().meta({ example: 'inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    idempotency_key: z.string().nullable(),
    category: IncidentCategory,
    severity: IncidentSeverity,
    status: IncidentStatus,
    subject: z.object({
      name: z.string(),
      phone: z.string().nullable(),
      email: z.string().nullable(),
      reference: z.string().nullable(),
      metadata: z.record(z.string(), z.string()),
    }),
    location: z
      .object({
        coordinates: Coordinates,
        address: z.string().nullable(),
        landmark: z.string().nullable(),
      })
      .meta({ id: 'IncidentLocation' }),
    title: z.string(),
    description: z.string().nullable(),
    is_drill: z.boolean(),
    site_id: z.string().nullable().meta({ description: 'The site it was raised at or named; null for an incident anywhere else' }),
    environment: Environment,
    version: z.int().meta({ description: 'Bumped by every change; webhooks carry it so stale events can be dropped' }),
    responder: ResponderAssignment.nullable(),
    handled_by: z
      .string()
      .nullable()
      .meta({
        description:
          'Who at Tsaro is handling the incident: "Tsaro control" and the first name of the controller who took it ("Tsaro control (Kemi)"), the last to take it; null when no controller has. It stays once the incident ends (who handled it)',
        example: 'Tsaro control (Kemi)',
      }),
    sla: Sla,
    timeline: z.array(TimelineEntry).meta({ description: 'Oldest first' }),
    resolution_outcome: ResolutionOutcome.nullable(),
    resolution_notes: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    resolved_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
  })
  .meta({ id: 'Incident' });
export type Incident = z.infer<typeof Incident>;

export const IncidentEnvelope = z.object({ incident: Incident }).meta({ id: 'IncidentResponse' });
export const IdempotentIncidentEnvelope = z
  .object({ incident: Incident, idempotent: z.literal(true) })
  .meta({ id: 'IdempotentIncidentResponse' });
export const IncidentPage = paginated(Incident, 'IncidentPage');

const CATEGORY_LABELS: Record<IncidentCategory, string> = {
  sos: 'SOS',
  vehicle: 'Vehicle',
  location_threat: 'Location Threat',
  medical: 'Medical',
};

/** `[CRITICAL] SOS Emergency`: the title an incident gets when the partner sends none. */
export function defaultIncidentTitle(category: IncidentCategory, severity: IncidentSeverity): string {
  return `[${severity.toUpperCase()}] ${CATEGORY_LABELS[category]} Emergency`;
}

export function isActiveIncidentStatus(status: IncidentStatus): boolean {
  return (ACTIVE_INCIDENT_STATUSES as readonly string[]).includes(status);
}
