import type { AccessCode, AccessCodeStatus } from '../../shared/schemas/access.ts';
import type { AccessCodeRow } from '../db/schema.ts';

/** The one place an access code row becomes the API's AccessCode. */
export function rowToAccessCode(row: AccessCodeRow): AccessCode {
  const maxUses = Number(row.max_uses);
  const useCount = Number(row.use_count);
  return {
    code_id: row.code_id,
    code: row.code,
    visitor_name: row.visitor_name,
    visitor_phone: row.visitor_phone,
    visitor_email: row.visitor_email,
    purpose: row.purpose,
    entry_point: row.entry_point,
    host_user_id: row.host_user_id,
    status: row.status as AccessCodeStatus,
    valid_from: row.valid_from,
    valid_until: row.valid_until,
    max_uses: maxUses,
    use_count: useCount,
    uses_remaining: row.status === 'revoked' ? 0 : Math.max(0, maxUses - useCount),
    qr_payload: row.qr_payload,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revoked_at: row.revoked_at,
    revoke_reason: row.revoke_reason,
    site_id: row.site_id ?? null,
    entry_point_id: row.entry_point_id ?? null,
    host_phone: row.host_phone ?? null,
  };
}
