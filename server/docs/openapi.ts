import { createDocument } from 'zod-openapi';
import { accessCodePaths } from '../access-codes/openapi.ts';
import { accessLogPaths } from '../access-logs/openapi.ts';
import { apiKeyPaths } from '../auth/openapi.ts';
import { healthPaths } from '../health/routes.ts';
import { incidentPaths } from '../incidents/openapi.ts';
import { THREAT_TAG_DESCRIPTION, threatPaths } from '../threat/openapi.ts';
import { webhookPaths } from '../webhooks/openapi.ts';

const DESCRIPTION = `
Emergency incidents dispatched to the service's own responder network, visitor access codes
and logs, and threat intelligence for Nigeria and Sub-Saharan Africa.

**Authentication**: \`Authorization: Bearer svc_live_...\` (live) or \`svc_test_...\` (sandbox).
Data never crosses organizations or environments: another organization's resource is a 404.
Checks run in this order: 401 (key) → 402 (plan, subscription) → 403 (scope) → 429 (rate).

**Errors** are always \`{code, message}\` with \`code\` equal to the HTTP status.

**Rate limits**: per key, sliding one minute, by plan (starter 60, growth 300, enterprise 1,000).

**Idempotency**: every POST, PATCH and DELETE takes an \`Idempotency-Key\` header (Stripe's semantics).

**Timestamps** are ISO 8601 UTC with milliseconds. **Ids** are a prefix and a sortable ULID.

**Threat data**: contains data from the UCDP Georeferenced Event Dataset (Uppsala Conflict Data Program,
https://ucdp.uu.se), licensed CC BY 4.0; subset and column-reduced; not endorsed by UCDP.

The same routes also answer under \`/v1/external/api/v1/...\`; the paths below are canonical.
`.trim();

/** The OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function buildOpenApiDocument(serverUrl = '/v1/external') {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Tsaro partner API', version: 'v1', description: DESCRIPTION },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Health' },
      { name: 'Incidents' },
      { name: 'Access codes' },
      { name: 'Access logs' },
      { name: 'Gate kiosk', description: 'What an offline gate kiosk syncs: the code change feed and the pass keys' },
      { name: 'Threat intelligence', description: THREAT_TAG_DESCRIPTION },
      { name: 'Webhooks', description: 'Scope `admin`. Signed deliveries of every event.' },
      { name: 'Events', description: 'Scope `admin`. The event log.' },
      { name: 'API keys', description: 'Scope `admin`' },
      { name: 'Organization', description: 'Scope `admin`' },
    ],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_live_... or svc_test_... API key' },
      },
    },
    paths: { ...healthPaths, ...incidentPaths, ...accessCodePaths, ...accessLogPaths, ...threatPaths, ...webhookPaths, ...apiKeyPaths },
  });
}
