import type { ApiKey, Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { ApiKeyRow } from '../db/schema.ts';

export function rowToApiKey(row: ApiKeyRow): ApiKey {
  return {
    key_id: row.key_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    environment: row.environment as Environment,
    secret_hint: row.secret_hint,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    expires_at: row.expires_at,
  };
}
