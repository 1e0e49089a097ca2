import type { Db } from '../../server/db/schema.ts';

const pick = <T>(values: readonly T[], n: number) => values[n % values.length]!;

/**
 * Rows of one organization written straight to the tables, as the product writes them, for tests
 * of lists, totals and pages at a few thousand rows: `n` visits, n/2 incidents, and with `all`
 * n/2 codes, n/2 events and n/4 audit entries; each row's time from `instant(i)` (spread over the
 * test's days), its site one of `sites` (or none) in turn.
 */
export async function bulkRows(db: Db, organizationId: string, sites: string[], n: number, instant: (i: number) => string, all = true): Promise<void> {
  const site = (i: number) => (sites.length ? pick([sites[0]!, sites[1]!, sites[0]!, null], i) : null);
  const batches = <T>(rows: T[]) => Array.from({ length: Math.ceil(rows.length / 400) }, (_, b) => rows.slice(b * 400, b * 400 + 400));
  const ids = (prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}_${organizationId.slice(-6)}${String(i).padStart(7, '0')}`);
  const visits = ids('log').map((log_id, i) => {
    const at = instant(i);
    const open = i % 9 === 0;
    return {
      log_id, organization_id: organizationId, environment: 'live', code_id: null, method: pick(['walk_in', 'code'], i), visitor_name: `Visitor ${i}`, visitor_phone: `+23480${String(i).padStart(8, '0')}`,
      entry_point: pick(['Main Gate', 'Back Gate', null], i >> 1), host_user_id: null, notes: null, status: open ? 'checked_in' : 'checked_out', checked_in_at: at,
      checked_out_at: open ? null : new Date(Date.parse(at) + (i % 300) * 60_000).toISOString(), checkout_notes: null, recorded_by: null, auto_checked_out: 0, created_at: at, updated_at: at, erased_at: null, site_id: site(i),
    };
  });
  for (const batch of batches(visits)) await db.insertInto('access_logs').values(batch).execute();
  const incidents = ids('inc').map((incident_id, i) => {
    const at = instant(i * 3 + 1);
    return {
      incident_id, organization_id: organizationId, environment: 'live', idempotency_key: null, category: pick(['sos', 'medical', 'vehicle', 'location_threat'], i), severity: pick(['high', 'low', 'critical'], i >> 1),
      status: pick(['resolved', 'cancelled', 'resolved', 'dispatching', 'escalated', 'resolved', 'on_scene'], i), title: 'SOS', description: null, is_drill: 0, subject_name: `Subject ${i}`, subject_phone: null,
      subject_email: null, subject_reference: null, subject_metadata: '{}', longitude: 3.4, latitude: 6.5, address: null, landmark: null, version: 1, dispatch_deadline: at, escalation_deadline: at,
      assigned_at: i % 2 ? new Date(Date.parse(at) + (i % 90) * 1000).toISOString() : null, on_scene_at: null, resolution_outcome: null, resolution_notes: null, created_at: at, updated_at: at,
      resolved_at: null, cancelled_at: null, responder_id: null, responder_name: null, responder_phone: null, responder_latitude: null, responder_longitude: null, eta_minutes: null,
      next_step_at: null, dispatch_round: 1, site_id: site(i + 1),
    };
  });
  for (const batch of batches(incidents.slice(0, n / 2))) await db.insertInto('incidents').values(batch as never).execute();
  if (!all) return;
  const codes = ids('code').map((code_id, i) => {
    const at = instant(i * 5 + 2);
    return {
      code_id, organization_id: organizationId, environment: 'live', code: `T-${String(i).padStart(6, '0')}`, visitor_name: `Guest ${i}`, visitor_phone: null, visitor_email: null, purpose: null, entry_point: null,
      host_user_id: null, status: pick(['used', 'expired', 'revoked', 'active', 'used'], i), valid_from: at, valid_until: '2027-12-31T00:00:00.000Z', // past the test's clock: the expiry sweep leaves the active ones alone
      max_uses: 1, use_count: i % 3 ? 1 : 0, qr_payload: 'TS1.x', change_seq: i + 1,
      created_at: at, updated_at: at, revoked_at: null, revoke_reason: null, erased_at: null, site_id: site(i + 2), entry_point_id: null,
    };
  });
  for (const batch of batches(codes.slice(0, n / 2))) await db.insertInto('access_codes').values(batch as never).execute();
  const events = ids('evt').map((event_id, i) => ({
    event_id, organization_id: organizationId, environment: 'live', type: pick(['incident.created', 'visitor.arrived', 'incident.updated'], i), resource_id: `inc_${i}`, data: '{}',
    created_at: instant(i * 11 + 3), test: i % 17 === 0 ? 1 : 0, site_id: site(i + 3),
  }));
  for (const batch of batches(events.slice(0, n / 2))) await db.insertInto('events').values(batch as never).execute();
  const audit = ids('aud').map((audit_id, i) => ({
    audit_id, organization_id: organizationId, environment: pick(['live', 'sandbox', null], i), actor_type: 'key', actor_id: 'key_1', actor_label: 'Backend', action: pick(['createIncident', 'createAccessCode', 'revokeApiKey'], i),
    resource_type: null, resource_id: null, ip: null, created_at: instant(i * 13 + 4),
  }));
  for (const batch of batches(audit.slice(0, n / 4))) await db.insertInto('audit_log').values(batch).execute();
}
