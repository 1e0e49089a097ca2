import { z } from 'zod';
import { Environment, Timestamp } from './common.ts';

export const Responder = z
  .object({
    responder_id: z.string().meta({ example: 'rsp_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    name: z.string(),
    phone: z.string(),
    environment: Environment,
    status: z.enum(['active', 'deactivated']),
    available: z.boolean(),
    location: z.object({ latitude: z.number(), longitude: z.number() }).nullable(),
    location_at: Timestamp.nullable().meta({ description: 'When the location was last reported' }),
    created_at: Timestamp,
  })
  .meta({ id: 'Responder' });
export type Responder = z.infer<typeof Responder>;

export const AvailabilityRequest = z
  .strictObject({
    available: z.boolean(),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  })
  .meta({ id: 'AvailabilityRequest', description: 'The heartbeat: send it on every location change, and at least every few minutes while on duty' });

export const ResponderEnvelope = z.object({ responder: Responder }).meta({ id: 'ResponderResponse' });
