import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  ApiKeyEnvelope,
  ApiKeyIdParams,
  ApiKeyPage,
  CreateApiKeyRequest,
  CreatedApiKey,
  ListApiKeysQuery,
} from '../../shared/schemas/api-keys.ts';
import { errors, idempotencyHeader, json, ok } from '../docs/responses.ts';

export const apiKeyPaths: ZodOpenApiPathsObject = {
  '/api-keys': {
    post: {
      operationId: 'createApiKey',
      tags: ['API keys'],
      summary: 'Create an API key',
      description:
        "Scope `admin`. The key is made in the caller's environment with only scopes the caller holds (403 otherwise). The secret is in this answer and never again.",
      parameters: [idempotencyHeader],
      requestBody: json(CreateApiKeyRequest),
      responses: { ...ok(201, 'Created; keep the secret now', CreatedApiKey), ...errors() },
    },
    get: {
      operationId: 'listApiKeys',
      tags: ['API keys'],
      summary: "List the organization's keys in this environment",
      description: 'Scope `admin`. Secrets are never listed, only a hint.',
      requestParams: { query: ListApiKeysQuery },
      responses: { ...ok(200, 'One page', ApiKeyPage), ...errors() },
    },
  },
  '/api-keys/{keyId}': {
    delete: {
      operationId: 'revokeApiKey',
      tags: ['API keys'],
      summary: 'Revoke an API key',
      description: 'Scope `admin`. The key answers 401 from now on. Already revoked: 409.',
      requestParams: { path: ApiKeyIdParams },
      parameters: [idempotencyHeader],
      responses: { ...ok(200, 'Revoked', ApiKeyEnvelope), ...errors(404, 409) },
    },
  },
};
