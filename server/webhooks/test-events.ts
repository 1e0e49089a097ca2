import type { AccessCode, AccessLog } from '../../shared/schemas/access.ts';
import type { Incident } from '../../shared/schemas/incidents.ts';
import type { Kiosk } from '../../shared/schemas/kiosks.ts';
import type { EventType } from '../events/service.ts';

/**
 * Sample data for a test event of each type, shaped exactly as the real resource (a test checks
 * each against the zod schema), so a receiver's parsing is tried, not only its signature check.
 * Names and ids say they are tests.
 */
export function sampleEventData(type: EventType, environment: 'live' | 'sandbox', now: Date): Incident | AccessCode | AccessLog | Kiosk {
  const at = now.toISOString();
  const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
  if (type.startsWith('incident.')) {
    const statuses: Record<string, Incident['status']> = {
      'incident.created': 'dispatching',
      'incident.updated': 'assigned',
      'incident.escalated': 'escalated',
      'incident.unresponsive': 'unresponsive',
      'incident.resolved': 'resolved',
      'incident.cancelled': 'cancelled',
      'incident.note_added': 'dispatching',
      'incident.responder_location': 'responding',
      'incident.offer_declined': 'dispatching',
      'incident.control_taken': 'escalated',
      'incident.control_offered': 'escalated',
      'incident.control_reassigned': 'dispatching',
      'incident.control_stood_down': 'dispatching',
      'incident.control_note': 'escalated',
      'incident.control_closed': 'resolved',
      'incident.control_alert': 'on_scene',
    };
    const status = statuses[type]!;
    const assigned = status === 'assigned' || status === 'responding' || status === 'resolved';
    // The two types beyond the reference's carry the incident and what happened (events/payloads.ts).
    const extra =
      type === 'incident.note_added'
        ? { note: { message: 'A test note: no one needs help.', timestamp: at } }
        : type === 'incident.responder_location'
          ? { responder_location: { latitude: 6.521, longitude: 3.381, eta_minutes: 5, reported_at: at } }
          : type === 'incident.offer_declined'
            ? { declined: { responder_name: 'Test Responder', reason: 'A test: too far', at } }
            : type.startsWith('incident.control_')
              ? { control: { action: type.slice('incident.control_'.length), by: 'Tsaro control (Test)', message: 'A test: no one needs help.', at } }
              : {};
    return {
      ...extra,
      incident_id: 'inc_TEST0000000000000000000000',
      idempotency_key: null,
      category: 'sos',
      severity: 'critical',
      status,
      subject: { name: 'Test Subject', phone: '+2348000000000', email: null, reference: 'test-event', metadata: {} },
      location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki (test)', landmark: null },
      title: '[CRITICAL] SOS Emergency',
      description: 'A test event: no one needs help.',
      is_drill: true,
      environment,
      version: 1,
      responder: assigned
        ? { responder_id: 'rsp_TEST0000000000000000000000', name: 'Test Responder', phone: '+2348000000001', location: { latitude: 6.52, longitude: 3.38 }, eta_minutes: 7, assigned_at: at }
        : null,
      handled_by: type.startsWith('incident.control_') ? 'Tsaro control (Test)' : null,
      sla: { dispatch_deadline: later(1), escalation_deadline: later(6), seconds_to_assign: assigned ? 42 : null, seconds_to_arrive: status === 'resolved' ? 540 : null },
      timeline: [{ status: 'created', event: 'created', message: 'Test event', timestamp: at }],
      resolution_outcome: status === 'resolved' ? 'false_alarm' : null,
      resolution_notes: null,
      created_at: at,
      updated_at: at,
      resolved_at: status === 'resolved' ? at : null,
      cancelled_at: status === 'cancelled' ? at : null,
      site_id: 'site_TEST0000000000000000000000',
    };
  }
  if (type.startsWith('access_code.')) {
    const statuses: Record<string, AccessCode['status']> = { 'access_code.created': 'active', 'access_code.used': 'used', 'access_code.expired': 'expired', 'access_code.revoked': 'revoked' };
    const status = statuses[type]!;
    return {
      code_id: 'code_TEST0000000000000000000000',
      code: 'TEST-2345',
      visitor_name: 'Test Visitor',
      visitor_phone: '+2348000000002',
      visitor_email: null,
      purpose: 'Test event',
      entry_point: 'Gate A',
      host_user_id: null,
      status,
      valid_from: at,
      valid_until: later(24 * 60),
      max_uses: 1,
      use_count: status === 'used' ? 1 : 0,
      uses_remaining: status === 'active' ? 1 : 0,
      qr_payload: 'TS1.test-event',
      created_at: at,
      updated_at: at,
      revoked_at: status === 'revoked' ? at : null,
      revoke_reason: status === 'revoked' ? 'Test event' : null,
      site_id: 'site_TEST0000000000000000000000',
      entry_point_id: null,
      host_phone: null,
    };
  }
  if (type === 'kiosk.offline' || type === 'kiosk.online') {
    const offline = type === 'kiosk.offline';
    const earlier = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
    const kiosk: Kiosk = {
      kiosk_id: 'kiosk_TEST0000000000000000000000',
      name: 'Test kiosk',
      status: offline ? 'offline' : 'online',
      entry_point: 'Gate A',
      app_version: '0.0.0-test',
      queued_operations: offline ? 3 : 0,
      oldest_queued_at: offline ? earlier(4) : null,
      last_sync_at: earlier(offline ? 5 : 0),
      needs_attention: 0,
      clock: offline ? earlier(3) : at,
      clock_skew_seconds: 0.4,
      last_seen_at: offline ? earlier(3) : at,
      offline_since: offline ? at : null,
      first_seen_at: earlier(60 * 24),
      retired_at: null,
      site_id: 'site_TEST0000000000000000000000',
      certificate_expires_at: new Date(now.getTime() + 20 * 60 * 60_000).toISOString(),
    };
    const back: Kiosk & { was_offline_since: string } = { ...kiosk, was_offline_since: earlier(10) };
    return offline ? kiosk : back;
  }
  const departed = type === 'visitor.departed';
  return {
    log_id: 'log_TEST0000000000000000000000',
    code_id: null,
    method: 'walk_in',
    visitor_name: 'Test Visitor',
    visitor_phone: '+2348000000002',
    entry_point: 'Gate A',
    host_user_id: null,
    notes: 'Test event',
    status: departed ? 'checked_out' : 'checked_in',
    checked_in_at: at,
    checked_out_at: departed ? later(45) : null,
    checkout_notes: null,
    recorded_by: 'Test Guard',
    auto_checked_out: false,
    already_inside_override: false,
    site_id: 'site_TEST0000000000000000000000',
    duration_minutes: departed ? 45 : 0,
    // visitor.excess_use: the walk-in a gate recorded for a visitor it let in offline with a code the server then refused.
    admitted_offline: type === 'visitor.excess_use' ? { code: 'TEST-0000', scanned_at: at, server_said: 'Maximum uses reached' } : null,
  };
}
