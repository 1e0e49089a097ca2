import type { AccessLog, AdmittedOffline } from '../../shared/schemas/access.ts';
import type { AccessLogRow } from '../db/schema.ts';

export function durationMinutes(checkedInAt: string, until: string | Date): number {
  const end = typeof until === 'string' ? Date.parse(until) : until.getTime();
  return Math.max(0, Math.floor((end - Date.parse(checkedInAt)) / 60_000));
}

/** The one place an access log row becomes the API's AccessLog; an open visit's duration runs to `now`. */
export function rowToAccessLog(row: AccessLogRow, now: Date): AccessLog {
  return {
    log_id: row.log_id,
    code_id: row.code_id,
    method: row.method as AccessLog['method'],
    visitor_name: row.visitor_name,
    visitor_phone: row.visitor_phone,
    entry_point: row.entry_point,
    host_user_id: row.host_user_id,
    notes: row.notes,
    status: row.status as AccessLog['status'],
    checked_in_at: row.checked_in_at,
    checked_out_at: row.checked_out_at,
    checkout_notes: row.checkout_notes,
    recorded_by: row.recorded_by,
    auto_checked_out: Boolean(row.auto_checked_out),
    already_inside_override: Boolean(row.already_inside_override),
    site_id: row.site_id ?? null,
    duration_minutes: durationMinutes(row.checked_in_at, row.checked_out_at ?? now),
    admitted_offline: row.admitted_offline ? (JSON.parse(row.admitted_offline) as AdmittedOffline) : null,
  };
}
