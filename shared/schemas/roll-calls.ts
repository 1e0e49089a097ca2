import { z } from 'zod';
import { PageQuery, SiteRef, Timestamp, nullMeansAbsent, paginated } from './common.ts';
import { KioskId } from './kiosks.ts';

export const CreateRollCallRequest = nullMeansAbsent(
  z.strictObject({
    entry_points: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(50)
      .optional()
      .meta({ description: 'Only visitors who came in at these entry points, and only these gates in `warnings`; absent: everyone on site' }),
    site_id: SiteRef.optional().meta({ description: "Only this site's visitors and gates (with `entry_points`, only those of them); absent: every site" }),
  }),
).meta({ id: 'CreateRollCallRequest' });

export const Actor = z
  .object({
    type: z.enum(['key', 'person']),
    id: z.string().meta({ description: 'The key id or the person id' }),
    label: z.string().meta({ description: "The key's name or the person's name or email" }),
  })
  .meta({ id: 'Actor' });

export const RollCallEntry = z
  .object({
    log_id: z.string().meta({ description: 'The visit (access log) the entry was taken from' }),
    visitor_name: z.string().nullable(),
    visitor_phone: z.string().nullable(),
    entry_point: z.string().nullable(),
    checked_in_at: Timestamp,
    accounted_for: z.boolean(),
    accounted_by: Actor.nullable().meta({ description: 'Who ticked the entry; null while not accounted for' }),
    accounted_at: Timestamp.nullable(),
  })
  .meta({ id: 'RollCallEntry' });

export const ROLL_CALL_WARNING_REASONS = ['offline', 'queued_operations'] as const;

export const RollCallWarning = z
  .object({
    kiosk_id: KioskId,
    name: z.string().nullable(),
    entry_point: z.string(),
    reason: z.enum(ROLL_CALL_WARNING_REASONS).meta({
      description:
        '`offline`: not heard from within KIOSK_OFFLINE_AFTER_S when the roll call was taken, so arrivals and departures there may not have reached the server; `queued_operations`: its last heartbeat said scans, walk-ins or checkouts were waiting to be sent',
    }),
    last_seen_at: Timestamp,
    queued_operations: z.int(),
    oldest_queued_at: Timestamp.nullable(),
  })
  .meta({ id: 'RollCallWarning' });

const rollCallFields = {
  roll_call_id: z.string().meta({ example: 'rcl_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
  entry_points: z.array(z.string()).nullable().meta({ description: 'The entry points asked for; null: every one' }),
  site_id: z.string().nullable().meta({ description: 'The site it was taken for; null: every site' }),
  created_at: Timestamp,
  created_by: Actor,
  total: z.int().meta({ description: 'People on the list' }),
  accounted_for: z.int().meta({ description: 'Of them, ticked as accounted for' }),
  warnings: z.array(RollCallWarning).meta({
    description: 'The gates (kiosks in service at the entry points concerned) that may have left the list incomplete when it was taken; empty: none known',
  }),
};

export const RollCall = z
  .object({ ...rollCallFields, entries: z.array(RollCallEntry).meta({ description: 'Longest on site first' }) })
  .meta({ id: 'RollCall' });
export type RollCall = z.infer<typeof RollCall>;

export const RollCallSummary = z.object(rollCallFields).meta({ id: 'RollCallSummary', description: 'A roll call without its entries' });

export const RollCallEnvelope = z.object({ roll_call: RollCall }).meta({ id: 'RollCallResponse' });
export const RollCallPage = paginated(RollCallSummary, 'RollCallPage');
export const ListRollCallsQuery = PageQuery.extend({
  site_id: SiteRef.optional().meta({ description: "Only this site's roll calls" }),
});

export const RollCallIdParams = z.object({ rollCallId: z.string().max(100) });
export const RollCallEntryParams = z.object({ rollCallId: z.string().max(100), logId: z.string().max(100) });

export const TickRollCallEntryRequest = z
  .strictObject({ accounted_for: z.boolean().meta({ description: 'true: this person is accounted for; false: undo a tick' }) })
  .meta({ id: 'TickRollCallEntryRequest' });

export const RollCallEntryEnvelope = z
  .object({ entry: RollCallEntry, roll_call: RollCallSummary })
  .meta({ id: 'RollCallEntryResponse', description: 'The entry as changed, and its roll call\'s counts' });
