import { z } from 'zod';
import { PageQuery, Timestamp, paginated } from './common.ts';

export const TEXT_MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'held', 'merged', 'withdrawn'] as const;
export const TextMessageStatus = z.enum(TEXT_MESSAGE_STATUSES).meta({
  id: 'TextMessageStatus',
  description:
    "`queued`: waiting for the gateway (retried with backoff), or for its turn once over an hourly ceiling. `sent`: the gateway took it. `delivered` or `failed`: the delivery report, or failed after the last retry. `held`: a host's text over an hourly ceiling, never sent. `merged`: an alarm over an hourly ceiling that went out in another text with the number's other alarms (`merged_into`). `withdrawn`: an alarm not yet sent when the alarm ended (a false alarm, a cancellation, a resolution), never sent",
});

/** Why a text was sent (issues #35 and #48): the alarm it is part of, its all-clear, or a visit. */
export const TEXT_MESSAGE_REASONS = ['escalated', 'unresponsive', 'called_for_help', 'false_alarm', 'all_clear', 'visitor_arrived', 'visitor_pass'] as const;

export const TextMessage = z
  .object({
    message_id: z.string().meta({ example: 'sms_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    incident_id: z.string().nullable(),
    log_id: z.string().nullable().meta({ description: "The visit a host's text is about" }),
    site_id: z.string().nullable(),
    reason: z.enum(TEXT_MESSAGE_REASONS).meta({
      description:
        "Why: the incident escalated (nobody accepted in time) or turned unresponsive, or the gate's guard reported they called for help; `all_clear`: the alarm is over (the guard's false alarm, a cancellation or a resolution), sent once to each number an alarm text reached; `false_alarm`: the guard's false alarm as texted before the all-clear existed. A host's visitor arrived (`visitor_arrived`) or a visitor was sent their pass (`visitor_pass`): listed only with `logs:read`",
    }),
    recipient: z.object({ name: z.string(), phone: z.string().meta({ description: 'E.164' }) }).meta({ description: "An entry of the site's call list" }),
    body: z.string().meta({ description: 'The text as sent' }),
    status: TextMessageStatus,
    merged_into: z.string().nullable().meta({ description: 'A `merged` alarm: the text it went out in, one naming how many alarms it carries' }),
    attempts: z.int().meta({ description: 'Hand-overs tried so far' }),
    last_error: z.string().nullable().meta({ description: 'Why the last attempt or the delivery failed, or why the text was held or merged' }),
    created_at: Timestamp,
    sent_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
    failed_at: Timestamp.nullable(),
  })
  .meta({ id: 'TextMessage' });
export type TextMessage = z.infer<typeof TextMessage>;

export const TextMessagePage = paginated(TextMessage, 'TextMessagePage');
export const ListTextMessagesQuery = PageQuery.extend({
  incident_id: z.string().max(100).optional().meta({ description: "Only this incident's texts" }),
  status: TextMessageStatus.optional(),
});
export const TextMessageIdParams = z.object({ messageId: z.string().max(100) });

export const TextGateway = z
  .object({
    enabled: z.boolean().meta({ description: 'false: this server has no SMS gateway (`SMS_GATEWAY` unset) and texts nobody' }),
    gateway: z.enum(['kannel']).nullable(),
    ceilings: z
      .object({
        per_recipient_per_hour: z.int().meta({ description: 'Texts one number may be sent by the organization in any hour (`SMS_MAX_PER_RECIPIENT_HOUR`)' }),
        per_organization_per_hour: z.int().meta({ description: 'Texts the organization may send in any hour (`SMS_MAX_PER_ORGANIZATION_HOUR`)' }),
        alarm_merge_seconds: z.int().meta({ description: 'Over a ceiling, the least time between two alarm texts to one number; the alarms in between go as one text (`SMS_ALARM_MERGE_S`)' }),
      })
      .meta({ description: "Past a ceiling a host's text is held (never sent) and alarms are merged; host texts count every text, alarms count alarms only" }),
    last_hour: z
      .object({
        held: z.int().meta({ description: "Host's texts held in the last hour" }),
        merged: z.int().meta({ description: 'Alarms merged into another text in the last hour' }),
      })
      .meta({ description: 'As this caller may list texts: their sites, and host texts only with `logs:read`' }),
  })
  .meta({ id: 'TextGateway' });
export type TextGateway = z.infer<typeof TextGateway>;

/**
 * Kannel's delivery report (`dlr-url`): our message id and its token, and Kannel's `%d` status:
 * 1 delivered, 2 failed, 4 buffered, 8 accepted by the SMSC, 16 rejected by the SMSC.
 */
export const KannelDeliveryReport = z.object({
  id: z.string().max(100),
  token: z.string().max(200),
  status: z.coerce.number().int(),
  answer: z.string().max(500).optional(),
});
