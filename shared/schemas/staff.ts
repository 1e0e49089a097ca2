import { z } from 'zod';
import { Email, Password } from './console.ts';
import { Environment, Timestamp, nullMeansAbsent, queryNumber } from './common.ts';
import { IncidentCategory, IncidentSeverity, IncidentStatus, ResolutionOutcome } from './incidents.ts';
import { Responder } from './responders.ts';
import { DutyStatus } from './duty.ts';

/**
 * Tsaro's operations centre (issue #47): the service's own staff, in a realm of their own, and
 * what they see and do: the responder roster, the queue of live incidents, manual dispatch.
 */
export const STAFF_ROLES = ['controller', 'supervisor', 'network_admin'] as const;
export const StaffRole = z.enum(STAFF_ROLES).meta({
  id: 'StaffRole',
  description: '`controller`: the queue and manual dispatch; `supervisor`: a controller who also suspends responders and reads the service audit log; `network_admin`: the roster (add, verify, update, suspend, retire) and the audit log',
});
export type StaffRole = z.infer<typeof StaffRole>;

export const StaffMember = z
  .object({
    staff_id: z.string().meta({ example: 'stf_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    email: z.string(),
    name: z.string().nullable(),
    role: StaffRole,
    totp_enabled: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: 'StaffMember' });
export type StaffMember = z.infer<typeof StaffMember>;

export const StaffSession = z
  .object({
    stage: z.enum(['totp', 'enrol_totp', 'active']).meta({ description: 'A staff session is signed in (`active`) only after the second step: a code, or enrolling an authenticator. Never skipped.' }),
    staff: StaffMember,
    csrf_token: z.string(),
    expires_at: Timestamp,
    idle_expires_at: Timestamp,
  })
  .meta({ id: 'StaffSession' });
export const StaffSessionEnvelope = z.object({ session: StaffSession }).meta({ id: 'StaffSessionEnvelope' });

export const StaffInvitation = z.object({ email: z.string(), role: StaffRole, expires_at: Timestamp }).meta({ id: 'StaffInvitation' });
export const StaffJoinRequest = nullMeansAbsent(z.strictObject({ password: Password, name: z.string().trim().min(1).max(200).optional() })).meta({ id: 'StaffJoinRequest' });
export const StaffSignInRequest = z.strictObject({ email: Email, password: z.string().min(1).max(256) }).meta({ id: 'StaffSignInRequest' });
export const StaffCodeRequest = z.strictObject({ code: z.string().regex(/^\d{6}$/, 'six digits') }).meta({ id: 'StaffCodeRequest' });

// ---- The roster ----

export const STANDINGS = ['applied', 'verified', 'suspended', 'retired'] as const;
export const Standing = z.enum(STANDINGS).meta({
  id: 'ResponderStanding',
  description: 'Only `verified` responders are offered incidents. `suspended` carries its reason; `retired` is final (the token stops working).',
});
export type Standing = z.infer<typeof Standing>;

const Skill = z.string().trim().regex(/^[a-z][a-z_]{1,39}$/, 'a skill in lower case, e.g. armed_response, medical, fire, patrol');
const LicenceDate = z.iso.date('a date, YYYY-MM-DD');
const ProfileText = z.string().trim().min(1).max(200);

export const RosterResponder = Responder.extend({
  standing: Standing,
  standing_reason: z.string().nullable().meta({ description: 'Why suspended (or retired)' }),
  standing_changed_by: z.string().nullable().meta({ description: 'A staff id, or `operator` (the host\'s CLI)' }),
  standing_changed_at: Timestamp.nullable(),
  skills: z.array(z.string()),
  vehicle: z.string().nullable().meta({ description: 'The vehicle\'s type: motorbike, car, van' }),
  vehicle_plate: z.string().nullable(),
  base: z.string().nullable().meta({ description: 'Where the responder starts a shift from' }),
  licence_number: z.string().nullable().meta({ description: 'ID or licence number' }),
  licence_expires: z.string().nullable().meta({ description: 'YYYY-MM-DD' }),
}).meta({ id: 'RosterResponder' });
export type RosterResponder = z.infer<typeof RosterResponder>;
export const RosterResponderEnvelope = z.object({ responder: RosterResponder }).meta({ id: 'RosterResponderEnvelope' });

export const RosterQuery = z.object({
  standing: Standing.optional(),
  environment: Environment.optional(),
});

export const ResponderProfileChange = nullMeansAbsent(
  z.strictObject({
    name: ProfileText.optional(),
    phone: z.string().trim().regex(/^\+?[0-9 ()-]{5,32}$/, 'a phone number, e.g. +2348030000000').optional(),
    skills: z.array(Skill).max(20).optional(),
    vehicle: ProfileText.nullable().optional(),
    vehicle_plate: z.string().trim().min(1).max(20).nullable().optional(),
    base: ProfileText.nullable().optional(),
    licence_number: z.string().trim().min(1).max(60).nullable().optional(),
    licence_expires: LicenceDate.nullable().optional(),
  }),
).meta({ id: 'ResponderProfileChange' });
export type ResponderProfileChange = z.infer<typeof ResponderProfileChange>;

export const NewRosterResponder = z
  .strictObject({
    name: ProfileText,
    phone: z.string().trim().regex(/^\+?[0-9 ()-]{5,32}$/, 'a phone number, e.g. +2348030000000'),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    skills: z.array(Skill).max(20).optional(),
    vehicle: ProfileText.optional(),
    vehicle_plate: z.string().trim().min(1).max(20).optional(),
    base: ProfileText.optional(),
    licence_number: z.string().trim().min(1).max(60).optional(),
    licence_expires: LicenceDate.optional(),
  })
  .meta({ id: 'NewRosterResponder', description: 'A live responder who applied: offered nothing until a network admin verifies them' });

export const SuspendRequest = z.strictObject({ reason: z.string().trim().min(1, 'say why').max(500) }).meta({ id: 'SuspendResponderRequest' });

// ---- The queue and manual dispatch ----

/** `responder_in_danger` first: the responder pressed panic, or missed two "I'm OK" check-ins on scene (server/duty/). */
export const URGENCIES = ['responder_in_danger', 'unresponsive', 'escalated', 'window_half_spent', 'other'] as const;

export const QueueItem = z
  .object({
    incident_id: z.string(),
    organization_id: z.string(),
    organization_name: z.string(),
    status: IncidentStatus,
    category: IncidentCategory,
    severity: IncidentSeverity,
    title: z.string(),
    is_drill: z.boolean(),
    urgency: z.enum(URGENCIES).meta({ description: 'The queue\'s order: a responder in danger (their panic, or two missed check-ins on scene), unresponsive, escalated, a dispatch window half spent, then the rest' }),
    location: z.object({ latitude: z.number(), longitude: z.number(), address: z.string().nullable() }),
    created_at: Timestamp,
    updated_at: Timestamp.meta({ description: 'Its last change (a status, an offer, a decline, a note): a screen showing the incident reads it again when this moves' }),
    dispatch_deadline: Timestamp,
    escalation_deadline: Timestamp,
    responder_name: z.string().nullable(),
    owner: z.object({ staff_id: z.string(), name: z.string(), taken_at: Timestamp }).nullable().meta({ description: 'The controller who took it' }),
  })
  .meta({ id: 'QueueItem' });
export type QueueItem = z.infer<typeof QueueItem>;
export const QueueQuery = z.object({
  drills: z.enum(['true', 'false']).default('false').meta({ description: 'Drills are left out unless asked for' }),
});

export const Candidate = z
  .object({
    responder_id: z.string(),
    name: z.string(),
    phone: z.string(),
    distance_km: z.number(),
    status: z.enum(['available', 'offered', 'busy', 'off_duty']).meta({ description: '`offered`: an offer of this incident is open to them; `busy`: an incident in hand; `off_duty`: not available' }),
    duty_status: DutyStatus,
    status_since: Timestamp.nullable().meta({ description: 'When their duty status began' }),
    out_of_service_reason: z.string().nullable(),
    fix_age_s: z.int().nullable().meta({ description: 'Seconds since the position was reported' }),
    fix_stale: z.boolean().meta({ description: 'The fix is older than DISPATCH_FIX_MAX_AGE_S: the distance is where they were, never used to rank (listed after every fresh fix)' }),
    skills: z.array(z.string()),
    declined: z.object({ reason: z.string().nullable(), at: Timestamp }).nullable().meta({ description: 'Declined this incident before (they may be asked again)' }),
  })
  .meta({ id: 'DispatchCandidate' });

export const ControlOfferRequest = z.strictObject({ responder_id: z.string().min(1) }).meta({ id: 'ControlOfferRequest' });
export const ControlReasonRequest = z.strictObject({ reason: z.string().trim().min(1, 'say why').max(500) }).meta({ id: 'ControlReasonRequest' });
export const ControlNoteRequest = z.strictObject({ message: z.string().trim().min(1).max(2000) }).meta({ id: 'ControlNoteRequest' });
export const ControlCloseRequest = z.strictObject({ outcome: ResolutionOutcome, notes: z.string().trim().max(2000).optional() }).meta({ id: 'ControlCloseRequest' });

export const ServiceAuditEntry = z
  .object({
    entry_id: z.string(),
    staff_id: z.string().nullable(),
    actor: z.string(),
    action: z.string(),
    subject_type: z.string().nullable(),
    subject_id: z.string().nullable(),
    organization_id: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    at: Timestamp,
  })
  .meta({ id: 'ServiceAuditEntry' });
export const ServiceAuditQuery = z.object({
  limit: queryNumber(z.int().min(1).max(100)).default(50),
  subject_id: z.string().optional(),
});

export const ControlStandDownRequest = z
  .strictObject({ responder_id: z.string().min(1), reason: z.string().trim().min(1, 'say why').max(500) })
  .meta({ id: 'ControlStandDownRequest' });
