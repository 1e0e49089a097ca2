import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AddNoteRequest,
  CancelIncidentRequest,
  CreateIncidentRequest,
  IdempotentIncidentEnvelope,
  IncidentEnvelope,
  IncidentIdParams,
  IncidentPage,
  ListIncidentsQuery,
} from '../../shared/schemas/incidents.ts';
import { errors, idempotencyHeader, json, ok } from '../docs/responses.ts';

export const incidentPaths: ZodOpenApiPathsObject = {
  '/incidents': {
    post: {
      operationId: 'createIncident',
      tags: ['Incidents'],
      summary: 'Report an incident',
      description:
        'Scope `incidents:write`. The incident is answered already `dispatching`, its timeline holding `created` and `dispatched`. A body `idempotency_key` seen before answers the first incident with 200 and `idempotent: true`.',
      parameters: [idempotencyHeader],
      requestBody: json(CreateIncidentRequest),
      responses: {
        ...ok(201, 'Created and dispatching', IncidentEnvelope),
        ...ok(200, 'The incident first created with this idempotency_key', IdempotentIncidentEnvelope),
        ...errors(409),
      },
    },
    get: {
      operationId: 'listIncidents',
      tags: ['Incidents'],
      summary: 'List incidents, newest first',
      description: 'Scope `incidents:read`. Only the calling organization and environment.',
      requestParams: { query: ListIncidentsQuery },
      responses: { ...ok(200, 'One page', IncidentPage), ...errors() },
    },
  },
  '/incidents/{incidentId}': {
    get: {
      operationId: 'getIncident',
      tags: ['Incidents'],
      summary: 'Get an incident',
      description: 'Scope `incidents:read`.',
      requestParams: { path: IncidentIdParams },
      responses: { ...ok(200, 'The incident', IncidentEnvelope), ...errors(404) },
    },
  },
  '/incidents/{incidentId}/cancel': {
    post: {
      operationId: 'cancelIncident',
      tags: ['Incidents'],
      summary: 'Cancel an active incident',
      description: 'Scope `incidents:write`. The reason goes into the timeline. Not active: 409 `Incident is already <status>`.',
      requestParams: { path: IncidentIdParams },
      parameters: [idempotencyHeader],
      requestBody: json(CancelIncidentRequest),
      responses: { ...ok(200, 'Cancelled', IncidentEnvelope), ...errors(404, 409) },
    },
  },
  '/incidents/{incidentId}/notes': {
    post: {
      operationId: 'addIncidentNote',
      tags: ['Incidents'],
      summary: 'Add a note to an active incident',
      description: 'Scope `incidents:write`. A timeline entry with `event: note` at the current status. Not active: 409.',
      requestParams: { path: IncidentIdParams },
      parameters: [idempotencyHeader],
      requestBody: json(AddNoteRequest),
      responses: { ...ok(200, 'The incident with the note appended', IncidentEnvelope), ...errors(404, 409) },
    },
  },
};
