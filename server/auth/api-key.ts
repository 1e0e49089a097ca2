import { parseSiteIds } from '../db/tenant.ts';
import { madeBeyondGrant } from '../../shared/console/grants.ts';
import type { ApiKey, KeyMaker, Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { ApiKeyRow } from '../db/schema.ts';

/** Who makes a key: a signed-in person (with their role now), a key, or the operator's CLI. */
export type Maker = { type: 'person'; id: string; label: string; role: string } | { type: 'key'; id: string; label: string } | { type: 'operator' };

export const makerColumns = (maker: Maker): Pick<ApiKeyRow, 'created_by' | 'created_by_label' | 'created_by_role'> =>
  maker.type === 'operator'
    ? { created_by: 'operator', created_by_label: null, created_by_role: null }
    : { created_by: maker.id, created_by_label: maker.label, created_by_role: maker.type === 'person' ? maker.role : null };

function makerOf(row: ApiKeyRow): KeyMaker | null {
  if (!row.created_by) return null;
  if (row.created_by === 'operator') return { type: 'operator', id: null, name: null, role: null };
  return { type: row.created_by.startsWith('per_') ? 'person' : 'key', id: row.created_by, name: row.created_by_label, role: row.created_by_role };
}

export function rowToApiKey(row: ApiKeyRow): ApiKey {
  const scopes = JSON.parse(row.scopes) as Scope[];
  return {
    key_id: row.key_id,
    name: row.name,
    scopes,
    environment: row.environment as Environment,
    secret_hint: row.secret_hint,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    expires_at: row.expires_at,
    created_by: makerOf(row),
    needs_review: !row.revoked_at && madeBeyondGrant({ ...row, scopes }),
    reviewed_at: row.reviewed_at,
    site_ids: parseSiteIds(row.site_ids),
  };
}
