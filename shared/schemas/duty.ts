import { z } from 'zod';
import { Timestamp, nullMeansAbsent } from './common.ts';

/**
 * Duty (issue #47): a responder's status and its age, the areas a network admin draws and the
 * shifts planned in them, the alerts staff see, and on-scene safety check-ins.
 */
export const DUTY_STATUSES = ['off_duty', 'available', 'offered', 'en_route', 'on_scene', 'out_of_service'] as const;
export const DutyStatus = z.enum(DUTY_STATUSES).meta({
  id: 'DutyStatus',
  description:
    '`off_duty`: not available; `available`: on duty, free; `offered`: an offer is open to them; `en_route`: an incident accepted, not yet there; `on_scene`: arrived; `out_of_service`: taken out by themselves or a supervisor, with a reason (offered nothing until back)',
});
export type DutyStatus = z.infer<typeof DutyStatus>;

export const Duty = z
  .object({
    duty_status: DutyStatus,
    status_since: Timestamp.nullable().meta({ description: 'When the status began (null: not known, a responder never on duty since the upgrade)' }),
    out_of_service_reason: z.string().nullable(),
  })
  .meta({ id: 'Duty' });
export type Duty = z.infer<typeof Duty>;

export const OutOfServiceRequest = z.strictObject({ reason: z.string().trim().min(1, 'say why').max(500) }).meta({ id: 'OutOfServiceRequest' });

// ---- Areas and shifts ----

const Longitude = z.number('a longitude from -180 to 180').min(-180, 'a longitude from -180 to 180').max(180, 'a longitude from -180 to 180');
const Latitude = z.number('a latitude from -90 to 90').min(-90, 'a latitude from -90 to 90').max(90, 'a latitude from -90 to 90');
/** A GeoJSON position: [longitude, latitude]. */
const Position = z.tuple([Longitude, Latitude], 'a position [longitude, latitude]');

export const CircleShape = z
  .strictObject({
    type: z.literal('Circle'),
    center: Position,
    radius_m: z.number('metres, 50 to 100000').min(50, 'metres, 50 to 100000').max(100_000, 'metres, 50 to 100000'),
  })
  .meta({ id: 'CircleShape', description: 'A circle: its centre [longitude, latitude] and radius in metres (GeoJSON has no circle; this is its Point with a radius)' });

export const PolygonShape = z
  .strictObject({
    type: z.literal('Polygon'),
    coordinates: z
      .tuple(
        [
          z
            .array(Position)
            .min(4, 'a closed ring of at least 4 positions (the last repeats the first)')
            .max(500, 'at most 500 positions')
            .refine((ring) => ring.length > 0 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1], 'a closed ring: the last position repeats the first'),
        ],
        'one ring: [[[longitude, latitude], ...]]',
      ),
  })
  .meta({ id: 'PolygonShape', description: 'A GeoJSON Polygon with one ring (no holes): positions [longitude, latitude], the last repeating the first' });

export const AreaShape = z.discriminatedUnion('type', [CircleShape, PolygonShape], 'a shape: {"type": "Circle", ...} or {"type": "Polygon", ...}').meta({ id: 'AreaShape' });
export type AreaShape = z.infer<typeof AreaShape>;

export const ServiceArea = z
  .object({ area_id: z.string(), name: z.string(), shape: AreaShape, created_by: z.string(), created_at: Timestamp, shifts: z.int().meta({ description: 'Shifts planned in it' }) })
  .meta({ id: 'ServiceArea' });
export type ServiceArea = z.infer<typeof ServiceArea>;
export const NewServiceArea = nullMeansAbsent(z.strictObject({ name: z.string().trim().min(1, '1 to 120 characters').max(120, '1 to 120 characters'), shape: AreaShape })).meta({ id: 'NewServiceArea' });

const Hour = (most: number) => z.int(`a whole hour from 0 to ${most}`).min(0, `a whole hour from 0 to ${most}`).max(most, `a whole hour from 0 to ${most}`);
export const Shift = z
  .object({
    shift_id: z.string(),
    responder_id: z.string(),
    responder_name: z.string(),
    area_id: z.string(),
    area_name: z.string(),
    start_hour: z.int(),
    end_hour: z.int(),
    on_now: z.boolean().meta({ description: 'The shift covers the present hour' }),
    created_by: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: 'Shift', description: 'Every day from `start_hour` to `end_hour` in SHIFT_TIME_ZONE; an end before the start runs overnight (22 to 6)' });
export type Shift = z.infer<typeof Shift>;
export const NewShift = z
  .strictObject({ responder_id: z.string().min(1), area_id: z.string().min(1), start_hour: Hour(23), end_hour: Hour(24) })
  .refine((shift) => shift.start_hour !== shift.end_hour % 24, { message: 'a shift ends at another hour than it starts', path: ['end_hour'] })
  .meta({ id: 'NewShift' });

// ---- Alerts ----

export const ALERT_KINDS = ['panic', 'missed_check_in', 'on_shift_off_duty', 'on_shift_outside_area', 'no_fix', 'status_overdue'] as const;
export const StaffAlert = z
  .object({
    alert_id: z.string(),
    kind: z.enum(ALERT_KINDS).meta({
      description:
        '`panic`: the responder pressed panic; `missed_check_in`: an "I\'m OK" on scene not sent in time; `on_shift_off_duty`: a shift covers this hour and they are not on duty; `on_shift_outside_area`: on shift, available, and their fresh fix is outside every area of their shifts now (more than 100 m past the edge); `no_fix`: available with no position for NO_FIX_ALERT_S; `status_overdue`: offered, en route, on scene or out of service longer than its limit',
    }),
    responder_id: z.string(),
    responder_name: z.string(),
    incident_id: z.string().nullable(),
    organization_id: z.string().nullable(),
    message: z.string(),
    raised_at: Timestamp,
    cleared_at: Timestamp.nullable().meta({ description: 'When the condition ended (null: still open)' }),
  })
  .meta({ id: 'StaffAlert' });
export type StaffAlert = z.infer<typeof StaffAlert>;
export const AlertsQuery = z.object({ state: z.enum(['open', 'all']).default('open').meta({ description: '`all`: the cleared ones too (the last 200)' }) });

// ---- Safety (the responder's app) ----

export const SafetyState = z
  .object({
    duty: Duty,
    check_in: z
      .object({ incident_id: z.string(), due_at: Timestamp, missed: z.int(), every_s: z.int() })
      .nullable()
      .meta({ description: 'On scene: when the next "I\'m OK" is due; null otherwise' }),
  })
  .meta({ id: 'ResponderDuty' });
export const PanicRequest = nullMeansAbsent(z.strictObject({ message: z.string().trim().max(500).optional().meta({ description: 'What is happening, if there is time' }) })).meta({ id: 'PanicRequest' });
export const PanicAnswer = z.object({ raised: z.string().nullable().meta({ description: 'The incident raised to the top of the staff queue, or null (none in hand: controllers are alerted)' }) }).meta({ id: 'PanicAnswer' });
