/**
 * Every example request of the README (and docs/) and of the reference's endpoint table, as a partner sends
 * them, in an order where each can use what an earlier one made (ids, codes). Run through Prism
 * as a mock server and as a validating proxy in front of the real server.
 */
export interface ExampleRequest {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** What the real server answers (the mock answers the documented success instead). */
  status: number;
  /** Remembers what later requests need from the answer. */
  keep?: (body: any, made: Made) => void;
}

export interface Made {
  incidentId: string;
  cancelledIncidentId: string;
  codeId: string;
  code: string;
  /** A code nobody used, to revoke. */
  spareCodeId: string;
  logId: string;
  endpointId: string;
  /** A webhook URL the server accepts for this run (the README's own for the mock). */
  webhookUrl: string;
}

export function exampleRequests(): Array<(made: Made) => ExampleRequest> {
  const incident = {
    category: 'sos',
    severity: 'critical',
    subject: { name: 'Ada Obi', phone: '+2348012345678' },
    location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki' },
  };
  return [
    () => ({ name: 'health', method: 'GET', path: '/health', status: 200 }),
    // README: the first incident, then the reference's create with every optional field.
    () => ({
      name: 'README create incident',
      method: 'POST',
      path: '/incidents',
      headers: { 'Idempotency-Key': 'panic-2026-11-22-0001' },
      body: incident,
      status: 201,
      keep: (body, m) => void (m.incidentId = body.incident.incident_id),
    }),
    () => ({
      name: 'reference create incident, every field, nulls for absent ones',
      method: 'POST',
      path: '/incidents',
      body: {
        category: 'vehicle',
        severity: 'high',
        subject: { name: 'Chinedu Eze', phone: null, email: 'chinedu@example.ng', reference: 'user-42', metadata: { plan: 'gold' } },
        location: { coordinates: [7.3986, 9.0765], address: null, landmark: 'Opposite the filling station' },
        title: 'Car hijack on Airport Road',
        description: null,
        idempotency_key: 'partner-req-0001',
        is_drill: true,
      },
      status: 201,
      keep: (body, m) => void (m.cancelledIncidentId = body.incident.incident_id),
    }),
    () => ({ name: 'README list incidents', method: 'GET', path: '/incidents?status=dispatching&limit=5', status: 200 }),
    () => ({ name: 'reference list incidents, every filter', method: 'GET', path: '/incidents?status=dispatching&category=sos&severity=critical&from_date=2026-11-01&to_date=2026-11-30T23:00:00Z&page=1&limit=20', status: 200 }),
    (m) => ({ name: 'get incident', method: 'GET', path: `/incidents/${m.incidentId}`, status: 200 }),
    (m) => ({ name: 'README add note', method: 'POST', path: `/incidents/${m.incidentId}/notes`, body: { message: 'Caller is at gate B' }, status: 200 }),
    (m) => ({ name: 'README cancel', method: 'POST', path: `/incidents/${m.cancelledIncidentId}/cancel`, body: { reason: 'False alarm' }, status: 200 }),
    () => ({
      name: 'README generate access code',
      method: 'POST',
      path: '/access-codes',
      body: { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing', host_user_id: '14B' },
      status: 201,
      keep: (body, m) => {
        m.codeId = body.access_code.code_id;
        m.code = body.access_code.code;
      },
    }),
    () => ({
      name: 'reference generate access code, every field',
      method: 'POST',
      path: '/access-codes',
      body: {
        visitor_name: 'Ngozi Okafor',
        visitor_phone: '+2348030000002',
        visitor_email: 'ngozi@example.ng',
        purpose: 'Delivery',
        entry_point: 'Gate A',
        host_user_id: 'resident-14B',
        valid_from: '2026-11-22T09:00:00Z',
        valid_until: '2026-11-23',
        max_uses: 2,
      },
      status: 201,
      keep: (body, m) => void (m.spareCodeId = body.access_code.code_id),
    }),
    () => ({
      name: 'reference bulk generate',
      method: 'POST',
      path: '/access-codes/bulk',
      body: {
        visitors: [
          { visitor_name: 'Emeka Nwosu', visitor_phone: '+2348030000003' },
          { visitor_name: 'Fatima Sani', visitor_phone: '+2348030000004' },
        ],
        purpose: 'Wedding guests',
        valid_from: '2026-11-22T10:00:00Z',
        valid_until: '2026-11-22T23:00:00Z',
      },
      status: 201,
    }),
    (m) => ({ name: 'README QR', method: 'GET', path: `/access-codes/${m.codeId}/qr`, status: 200 }),
    (m) => ({
      name: 'README validate',
      method: 'POST',
      path: '/access-codes/validate',
      body: { code: m.code.toLowerCase(), validated_by: 'Guard Sani', entry_point: 'Gate A' },
      status: 200,
    }),
    () => ({ name: 'reference validate, unknown code', method: 'POST', path: '/access-codes/validate', body: { code: 'ZZZZ-9999' }, status: 200 }),
    () => ({ name: 'reference list access codes', method: 'GET', path: '/access-codes?status=active&visitor_phone=%2B2348030000002&search=ngozi&from_date=2026-11-22&to_date=2026-11-22&page=1&limit=20', status: 200 }),
    (m) => ({ name: 'reference get access code', method: 'GET', path: `/access-codes/${m.codeId}`, status: 200 }),
    () => ({ name: 'reference access code stats', method: 'GET', path: '/access-codes/stats?from_date=2026-11-01&to_date=2026-11-30', status: 200 }),
    () => ({
      name: 'reference create access log',
      method: 'POST',
      path: '/access-logs',
      body: { visitor_name: 'Dangote Cement delivery', visitor_phone: '+2348030000005', entry_point: 'Gate B', host_user_id: 'store', notes: 'Two pallets' },
      status: 201,
      keep: (body, m) => void (m.logId = body.access_log.log_id),
    }),
    () => ({ name: 'reference list access logs', method: 'GET', path: '/access-logs?status=checked_in&visitor_phone=%2B2348030000005&entry_point=Gate%20B&from_date=2026-11-22&to_date=2026-11-22&search=cement&page=1&limit=20', status: 200 }),
    () => ({ name: 'README current visitors', method: 'GET', path: '/access-logs/current-visitors', status: 200 }),
    (m) => ({ name: 'README checkout', method: 'PATCH', path: `/access-logs/${m.logId}/checkout`, body: {}, status: 200 }),
    () => ({ name: 'reference access log stats', method: 'GET', path: '/access-logs/stats?from_date=2026-11-22&to_date=2026-11-22', status: 200 }),
    (m) => ({ name: 'reference revoke access code', method: 'DELETE', path: `/access-codes/${m.spareCodeId}`, body: { reason: 'Visit cancelled' }, status: 200 }),
    () => ({ name: 'README safety score', method: 'GET', path: '/safety/score?latitude=11.8311&longitude=13.151', status: 200 }),
    () => ({ name: 'reference safety score with radius', method: 'GET', path: '/safety/score?latitude=6.4541&longitude=3.3947&radius_km=2', status: 200 }),
    () => ({ name: 'README route', method: 'GET', path: '/safety/route?from_lat=9.0765&from_lng=7.3986&to_lat=11.8311&to_lng=13.151&checkpoints=10', status: 200 }),
    () => ({ name: 'README danger analytics', method: 'GET', path: '/danger-zones/analytics?latitude=11.8311&longitude=13.151', status: 200 }),
    () => ({ name: 'README heatmap', method: 'GET', path: '/danger-zones/heatmap?bounds=4,2.6,14,14.7&days=365', status: 200 }),
    () => ({ name: 'README danger zones', method: 'GET', path: '/danger-zones?severity_min=8&latitude=11.83&longitude=13.15&radius_km=100', status: 200 }),
    () => ({ name: 'reference danger zones, every filter', method: 'GET', path: '/danger-zones?incident_type=kidnapping&severity_min=1&from_date=2025-01-01&to_date=2026-11-22&page=1&limit=20', status: 200 }),
    (m) => ({
      name: 'README webhook endpoint',
      method: 'POST',
      path: '/webhook-endpoints',
      body: { url: m.webhookUrl, events: ['incident.*', 'visitor.arrived'] },
      status: 201,
      keep: (body, made) => void (made.endpointId = body.webhook_endpoint.endpoint_id),
    }),
  ];
}
