import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { ErrorBody } from '../../shared/schemas/common.ts';
import { AvailabilityRequest, Offer, OffersQuery, ProgressRequest, ResolveRequest, ResponderEnvelope, ResponderIncident } from '../../shared/schemas/responders.ts';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json(ErrorBody) });
const authErrors = { 401: error('Missing, unknown or deactivated responder token') };
const incidentAnswer = { 200: { description: 'The incident as the responder now sees it', ...json(z.object({ incident: ResponderIncident })) } };
const OfferParams = z.object({ offerId: z.string() });
const IncidentParams = z.object({ incidentId: z.string() });

/** The responder API's own document: a responder's phone app is not a partner integration. */
export function buildResponderOpenApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tsaro responder API',
      version: 'v1',
      description:
        "For the service's own responders' phone apps. Authenticate with the token the operator's `tsaro responder add` printed: `Authorization: Bearer rtk_...`. Send the availability heartbeat while on duty; long-poll `/offers?wait=25` to hear of an incident at once; the first to accept is assigned (exactly once); report `responding`, `on_scene`, then resolve with an outcome.",
    },
    servers: [{ url: '/v1/responder' }],
    security: [{ responderToken: [] }],
    components: { securitySchemes: { responderToken: { type: 'http', scheme: 'bearer', description: 'rtk_... responder token' } } },
    paths: {
      '/me': { get: { operationId: 'me', summary: 'This responder', responses: { 200: { description: 'The responder', ...json(ResponderEnvelope) }, ...authErrors } } },
      '/availability': {
        put: {
          operationId: 'reportAvailability',
          summary: 'Heartbeat: available or not, and where',
          requestBody: json(AvailabilityRequest),
          responses: { 200: { description: 'Recorded', ...json(ResponderEnvelope) }, 400: error('Invalid body'), ...authErrors },
        },
      },
      '/offers': {
        get: {
          operationId: 'offers',
          summary: 'Incidents offered to this responder, still open',
          requestParams: { query: OffersQuery },
          responses: { 200: { description: 'Open offers', ...json(z.object({ offers: z.array(Offer) })) }, ...authErrors },
        },
      },
      '/offers/{offerId}/accept': {
        post: {
          operationId: 'acceptOffer',
          summary: 'Take the incident',
          description: 'The first to accept is assigned; the others get 409. An escalated or unresponsive incident can still be taken.',
          requestParams: { path: OfferParams },
          responses: { ...incidentAnswer, 404: error('No such offer for this responder'), 409: error('Taken by another responder, cancelled, or already answered'), ...authErrors },
        },
      },
      '/offers/{offerId}/decline': {
        post: {
          operationId: 'declineOffer',
          summary: 'Decline an offer',
          requestParams: { path: OfferParams },
          responses: {
            200: { description: 'Declined', ...json(z.object({ offer: z.object({ offer_id: z.string(), status: z.literal('declined') }) })) },
            404: error('No such offer'),
            409: error('Already answered'),
            ...authErrors,
          },
        },
      },
      '/assignments': {
        get: {
          operationId: 'assignments',
          summary: "This responder's open incidents, and any closed in the last day",
          description: 'A partner cancelling an assigned incident shows here as status `cancelled`.',
          responses: { 200: { description: 'Incidents', ...json(z.object({ incidents: z.array(ResponderIncident) })) }, ...authErrors },
        },
      },
      '/incidents/{incidentId}/status': {
        post: {
          operationId: 'reportProgress',
          summary: 'On the way (`responding`, with an ETA) or arrived (`on_scene`)',
          requestParams: { path: IncidentParams },
          requestBody: json(ProgressRequest),
          responses: { ...incidentAnswer, 400: error('Invalid body'), 404: error('Not assigned to this responder'), 409: error('Not allowed from the current status'), ...authErrors },
        },
      },
      '/incidents/{incidentId}/resolve': {
        post: {
          operationId: 'resolve',
          summary: 'Close the incident with an outcome',
          requestParams: { path: IncidentParams },
          requestBody: json(ResolveRequest),
          responses: { ...incidentAnswer, 400: error('Invalid body'), 404: error('Not assigned to this responder'), 409: error('Not on scene yet'), ...authErrors },
        },
      },
    },
  });
}
