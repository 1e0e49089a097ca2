import { z } from 'zod';
import { PageQuery, Timestamp, paginated } from './common.ts';

export const TEXT_MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed'] as const;
export const TextMessageStatus = z.enum(TEXT_MESSAGE_STATUSES).meta({
  id: 'TextMessageStatus',
  description: '`queued`: waiting for the gateway (retried with backoff). `sent`: the gateway took it. `delivered` or `failed`: the delivery report, or failed after the last retry',
});

/** Why a text was sent (issue #35): the alarm it is part of. */
export const TEXT_MESSAGE_REASONS = ['escalated', 'unresponsive', 'called_for_help', 'false_alarm', 'visitor_arrived'] as const;

export const TextMessage = z
  .object({
    message_id: z.string().meta({ example: 'sms_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    incident_id: z.string().nullable(),
    log_id: z.string().nullable().meta({ description: "The visit a host's text is about" }),
    site_id: z.string().nullable(),
    reason: z.enum(TEXT_MESSAGE_REASONS).meta({ description: "Why: the incident escalated (nobody accepted in time) or turned unresponsive, or the gate's guard reported they called for help or that it is a false alarm; or a host's visitor arrived (`visitor_arrived`, listed only with `logs:read`)" }),
    recipient: z.object({ name: z.string(), phone: z.string().meta({ description: 'E.164' }) }).meta({ description: "An entry of the site's call list" }),
    body: z.string().meta({ description: 'The text as sent' }),
    status: TextMessageStatus,
    attempts: z.int().meta({ description: 'Hand-overs tried so far' }),
    last_error: z.string().nullable().meta({ description: 'Why the last attempt or the delivery failed' }),
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
  })
  .meta({ id: 'TextGateway' });

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
