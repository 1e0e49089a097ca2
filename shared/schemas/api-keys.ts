import { z } from 'zod';
import { Environment, PageQuery, SiteLimit, SiteLimitInput, Timestamp, paginated, nullMeansAbsent } from './common.ts';

/** The reference's seven scopes plus `admin`, which manages the organization's own keys and webhook endpoints. */
export const SCOPES = [
  'incidents:read',
  'incidents:write',
  'access_codes:read',
  'access_codes:write',
  'access_codes:validate',
  'logs:read',
  'analytics:read',
  'admin',
] as const;
export const Scope = z.enum(SCOPES).meta({ id: 'Scope' });
export type Scope = z.infer<typeof Scope>;

export const KeyMaker = z
  .object({
    type: z.enum(['person', 'key', 'operator']).meta({ description: '`operator`: the server\'s CLI on its host' }),
    id: z.string().nullable().meta({ description: 'The person (`per_…`) or key (`key_…`); null for the operator' }),
    name: z.string().nullable().meta({ description: 'Their name (or the key\'s) when the key was made: kept after they are gone' }),
    role: z.string().nullable().meta({ description: 'A person\'s role when they made the key; null when not known' }),
  })
  .meta({ id: 'KeyMaker' });
export type KeyMaker = z.infer<typeof KeyMaker>;

export const ApiKey = z
  .object({
    key_id: z.string().meta({ example: 'key_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    name: z.string(),
    scopes: z.array(Scope),
    environment: Environment,
    secret_hint: z
      .string()
      .meta({ description: 'Prefix and last four characters, to recognise a key; the secret itself is never shown again' }),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable().meta({ description: 'Updated at most once a minute' }),
    revoked_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable().meta({ description: 'A rolled key answers until then, then 401; null: no end' }),
    created_by: KeyMaker.nullable().meta({ description: 'Who made (or rolled) the key; null: made before makers were recorded. Keys outlive their maker' }),
    needs_review: z
      .boolean()
      .meta({ description: 'The key holds scopes its maker\'s role may not grant (a developer\'s `admin` key from before the grant rule) and no owner has kept it yet: an owner keeps or revokes it' }),
    reviewed_at: Timestamp.nullable().meta({ description: 'When an owner kept a key made beyond its maker\'s grant' }),
    site_ids: SiteLimit.meta({ description: "The sites it is limited to (a gate's key: its site): it reads and changes only their codes, visits, kiosks, roll calls, incidents and events. null: every site" }),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKey>;

export const CreateApiKeyRequest = nullMeansAbsent(z.strictObject({
    name: z.string().trim().min(1).max(100),
    scopes: z
      .array(Scope)
      .min(1)
      .max(SCOPES.length)
      .meta({ description: 'Only scopes the calling key holds itself can be granted' }),
    site_ids: SiteLimitInput,
  }))
  .meta({
    id: 'CreateApiKeyRequest',
    description: "The new key is in the calling key's environment (a sandbox key makes sandbox keys)",
  });

export const CreatedApiKey = z
  .object({
    api_key: ApiKey,
    secret: z.string().meta({ description: 'Shown once, now. Only its hash is stored.' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const RollApiKeyRequest = nullMeansAbsent(
  z.strictObject({
    expires_in_hours: z
      .int()
      .min(0)
      .max(168)
      .default(24)
      .meta({ description: 'How long the old key keeps answering, so every client can switch (0: it stops now); at most 7 days' }),
  }),
).meta({ id: 'RollApiKeyRequest' });

export const ApiKeyEnvelope = z.object({ api_key: ApiKey }).meta({ id: 'ApiKeyResponse' });
export const ApiKeyPage = paginated(ApiKey, 'ApiKeyPage');
export const ApiKeysToReview = z.object({ results: z.array(ApiKey) }).meta({ id: 'ApiKeysToReview' });
export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
export const ListApiKeysQuery = PageQuery.extend({
  status: z
    .enum(API_KEY_STATUSES)
    .optional()
    .meta({ description: '`active`: answers requests now; `expired`: past its `expires_at` (a rolled key); `revoked`. All when left out' }),
  scopes: z
    .string()
    .max(500)
    .transform((value) => value.split(',').map((scope) => scope.trim()).filter(Boolean))
    .refine((scopes) => scopes.length > 0 && scopes.every((scope) => (SCOPES as readonly string[]).includes(scope)), { message: 'must be scopes separated by commas' })
    .optional()
    .meta({ description: 'Only keys with exactly these scopes, separated by commas in any order (a gate key: `access_codes:read,access_codes:write,access_codes:validate,logs:read,incidents:read,incidents:write`)' }),
  site_id: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'a site id (site_…)').optional().meta({ description: 'Only keys that reach this site: limited to it (among others), or to no site at all' }),
});
export type ApiKeyFilter = { status?: (typeof API_KEY_STATUSES)[number]; scopes?: string[]; site_id?: string };
export const ApiKeyIdParams = z.object({ keyId: z.string() });
