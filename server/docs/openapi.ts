import { createDocument } from 'zod-openapi';
import { pathsOf } from '../http/define-route.ts';
import { partnerFeatures } from '../partner-api.ts';
import { THREAT_TAG_DESCRIPTION } from '../threat/openapi.ts';
import { ATTRIBUTION, CITATIONS } from '../../shared/schemas/threat.ts';

// The data citations go last: the reference page shows this text above the operations, and it
// should open on the API.
const DESCRIPTION = `
Emergency incidents dispatched to the service's own responder network, visitor access codes
and logs, and threat intelligence for Nigeria and Sub-Saharan Africa.

**Authentication**: \`Authorization: Bearer svc_live_...\` (live) or \`svc_test_...\` (sandbox).
Data never crosses organizations or environments: another organization's resource is a 404.
Checks run in this order: 401 (key) → 402 (plan, subscription) → 403 (scope) → 429 (rate).

**Errors** are always \`{code, message}\` with \`code\` equal to the HTTP status, protocol errors
included; invalid input adds \`errors\`, every problem with its field (\`message\` is the first) (431 for headers over 16 KB; 400 for a garbage request line or for both Content-Length
and Transfer-Encoding; the connection then closes). A \`__proto__\`, \`constructor\` or
\`prototype\` key anywhere in a JSON body is a 400 naming its path.

**Rate limits**: per key, sliding one minute, by plan (starter 60, growth 300, enterprise 1,000).
An SOS (\`POST /incidents\` with \`category: sos\`) is never refused for the budget.

**Idempotency**: every POST, PATCH and DELETE takes an \`Idempotency-Key\` header (Stripe's semantics).

**Timestamps** are ISO 8601 UTC with milliseconds. **Ids** are a prefix and a sortable ULID.

**Requests**: a body is JSON (\`Content-Type: application/json\`; any other is a 400 naming Content-Type). \`null\` for an
optional body field means the field is absent; unknown fields are a 400 naming them.
Date filters and \`valid_from\`/\`valid_until\` take a date alone (\`2026-11-22\`: that day in UTC); a date-time without a
zone is UTC. Numbers in query strings are plain decimals (\`limit=0x10\`, \`1e2\` or a blank are a 400).

The same routes also answer under \`/v1/external/api/v1/...\`; the paths below are canonical.

**Threat data**: every threat answer says how current its data is
(\`data.through\`, \`data.sources\`); \`GET /threat/coverage\` lists each country's periods and gaps.
${ATTRIBUTION} Please cite:

${CITATIONS.map((citation) => `- ${citation}`).join('\n')}
`.trim();

/** The OpenAPI 3.1 document, generated from the route definitions and the zod schemas they validate with. */
export function buildOpenApiDocument(serverUrl = '/v1/external') {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Tsaro partner API', version: 'v1', description: DESCRIPTION, license: { name: 'Proprietary; threat data CC BY 4.0 (UCDP)', identifier: 'LicenseRef-Tsaro-Proprietary' } },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Health', description: 'No key: for load balancers and monitors' },
      { name: 'Incidents', description: 'Emergencies dispatched to the responder network; the service owns the status' },
      { name: 'Access codes', description: 'Time-limited visitor codes and their signed passes' },
      { name: 'Access logs', description: 'Check-ins and check-outs, walk-ins included' },
      { name: 'Gate kiosk', description: 'What an offline gate kiosk syncs: the code change feed, the pass keys, and its queued operations in one request' },
      { name: 'Threat intelligence', description: THREAT_TAG_DESCRIPTION },
      { name: 'Webhooks', description: 'Scope `admin`, and the read scope of each event type subscribed to. Signed deliveries of every event.' },
      { name: 'Events', description: 'Scope `admin`. The event log, of the types the key may read.' },
      { name: 'API keys', description: 'Scope `admin`' },
      { name: 'Organization', description: 'Scope `admin`' },
      { name: 'Audit log', description: 'Scope `admin`; in the console, owners and admins' },
      {
        name: 'Console',
        description:
          'The console at /console/ (people, not programs): invitations, sign-in with a second factor, sessions, people and roles. A session cookie also opens the routes above, as the person\'s role allows; a change then needs the console\'s own Origin and the session\'s `X-CSRF-Token`, and `Tsaro-Environment: live|sandbox` picks the environment.',
      },
    ],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_live_... or svc_test_... API key' },
      },
    },
    paths: pathsOf(partnerFeatures.flatMap((feature) => feature.routes)),
  });
}
