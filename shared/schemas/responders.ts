import { z } from 'zod';
import { Environment, Timestamp, queryNumber, nullMeansAbsent } from './common.ts';

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

/** A responder joining the network (the operator's `tsaro responder add`). */
export const NewResponderInput = z.strictObject({
  name: z.string().trim().min(1, '1 to 200 characters').max(200, '1 to 200 characters'),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()-]{5,32}$/, 'a phone number, e.g. +2348030000000'),
  latitude: z.number('a latitude from -90 to 90').min(-90, 'a latitude from -90 to 90').max(90, 'a latitude from -90 to 90'),
  longitude: z.number('a longitude from -180 to 180').min(-180, 'a longitude from -180 to 180').max(180, 'a longitude from -180 to 180'),
  environment: Environment,
});
export type NewResponderInput = z.infer<typeof NewResponderInput>;

export const AvailabilityRequest = nullMeansAbsent(z.strictObject({
    available: z.boolean(),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  }))
  .meta({ id: 'AvailabilityRequest', description: 'The heartbeat: send it on every location change, and at least every few minutes while on duty' });

export const ResponderEnvelope = z.object({ responder: Responder }).meta({ id: 'ResponderResponse' });

export const ProgressRequest = nullMeansAbsent(z.strictObject({
    status: z.enum(['responding', 'on_scene']),
    eta_minutes: z.int().min(0).max(600).optional().meta({ description: 'With `responding`: minutes to arrival' }),
  }))
  .meta({ id: 'ResponderProgressRequest' });

export const ResolveRequest = nullMeansAbsent(z.strictObject({
    outcome: z.enum(['assisted', 'false_alarm', 'no_action_required', 'referred_to_authorities', 'medical_transport', 'unable_to_locate']),
    notes: z.string().trim().max(2000).optional(),
  }))
  .meta({ id: 'ResponderResolveRequest' });

export const DeclineRequest = nullMeansAbsent(z.strictObject({
    reason: z.string().trim().min(1).max(200).optional().meta({ description: 'Why: too far, no fuel, already helping someone. Shown in the incident\'s timeline to the partner and the controller' }),
  }))
  .meta({ id: 'ResponderDeclineRequest' });

export const OffersQuery = z.object({
  wait: queryNumber(z.int().min(0).max(30)).default(0).meta({ description: 'Long poll: hold up to this many seconds until an offer arrives' }),
});

export const ResponderIncident = z
  .object({
    incident_id: z.string(),
    category: z.string(),
    severity: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.string(),
    subject: z.object({ name: z.string(), phone: z.string().nullable() }).meta({ description: 'The person to help' }),
    location: z.object({
      coordinates: z.tuple([z.number(), z.number()]).meta({ description: '[longitude, latitude]' }),
      address: z.string().nullable(),
      landmark: z.string().nullable(),
    }),
    gate: z.string().nullable().meta({ description: "The gate a kiosk's SOS came from (its `entry_point`), or null" }),
    site: z
      .object({
        name: z.string().meta({ example: 'Admiralty Estate' }),
        phone: z.string().nullable().meta({ description: "The first number on the estate's call list (E.164 or a short code), to call on the way; null: none" }),
      })
      .nullable()
      .meta({ description: 'The estate (site) the incident belongs to, or null' }),
    eta_minutes: z.int().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ResponderIncident', description: "What a responder sees of an incident: enough to find and help the person, nothing of the partner's" });
export type ResponderIncident = z.infer<typeof ResponderIncident>;

export const Offer = z
  .object({
    offer_id: z.string(),
    distance_km: z.number(),
    offered_at: Timestamp,
    answer_by: Timestamp.nullable().meta({
      description:
        'When the incident escalates (dispatching) or is given up as unresponsive (escalated) if nobody accepts; null once unresponsive. An escalated or unresponsive incident can still be accepted.',
    }),
    incident: ResponderIncident,
  })
  .meta({ id: 'Offer' });
export type Offer = z.infer<typeof Offer>;

export const OfferOutcome = z
  .object({
    offer_id: z.string(),
    incident_id: z.string(),
    status: z.string().meta({
      description: '`pending`: still open; `accepted`: this responder took it; `declined`; `lost`: another responder took it first; `withdrawn`: no longer offered (the incident ended, the responder went out of service or was suspended, or Tsaro control stood them down: see `stood_down`)',
    }),
    incident_status: z.string().meta({ description: "The incident's status now (`cancelled`: the partner cancelled it; `resolved`: it is over)" }),
    yours: z.boolean().meta({ description: "The incident is in this responder's hands now (assigned, responding or on scene)" }),
    stood_down: z
      .object({
        by: z.string().meta({ example: 'Tsaro control (Kemi)' }),
        reason: z.string().meta({ example: 'Police are handling it' }),
        at: Timestamp,
      })
      .nullable()
      .meta({ description: 'Tsaro control stood this responder down from the incident (its open offer withdrawn, or the incident taken back from them): who, why and when; null otherwise' }),
  })
  .meta({ id: 'OfferOutcome', description: 'What became of an offer made to this responder: the app says why an offer or an incident left the screen' });
export type OfferOutcome = z.infer<typeof OfferOutcome>;
