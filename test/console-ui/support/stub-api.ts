import type { Page, Route } from 'playwright-core';

/**
 * Answers for the console's API calls, for screenshots of every screen while the server's console
 * routes (people, sessions, TOTP) are built elsewhere. The journeys in the other tests use the
 * real server; these only show what each screen looks like with realistic data.
 */
const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const page = <T>(results: T[]) => ({ results, page: 1, limit: 20, totalPages: 1, totalResults: results.length });

export const stubSession = (role = 'owner', stage = 'active') => ({
  stage,
  person: { person_id: 'per_01', email: 'ada@lekkishield.ng', name: 'Ada Obi', role, totp_enabled: stage === 'active' },
  organization: { organization_id: 'org_01', name: 'Lekki Shield', plan: 'growth', subscription_status: 'active' },
  csrf_token: 'csrf',
  expires_at: new Date(Date.now() + 6 * DAY).toISOString(),
  idle_expires_at: new Date(Date.now() + DAY / 2).toISOString(),
});

const keys = (env: string) =>
  page([
    { key_id: 'key_03', name: 'Gate: Admiralty main gate', scopes: ['access_codes:validate', 'access_codes:write', 'logs:read', 'incidents:write', 'incidents:read'], environment: env, secret_hint: `svc_${env === 'live' ? 'live' : 'test'}_…9fQa`, created_at: ago(3 * DAY), last_used_at: ago(60_000), revoked_at: null, expires_at: null },
    { key_id: 'key_02', name: 'Estate app backend', scopes: ['incidents:read', 'incidents:write', 'access_codes:write'], environment: env, secret_hint: `svc_${env === 'live' ? 'live' : 'test'}_…k2Lm`, created_at: ago(40 * DAY), last_used_at: ago(2 * 3_600_000), revoked_at: null, expires_at: new Date(Date.now() + 20 * 3_600_000).toISOString() },
    { key_id: 'key_01', name: 'Old Zapier import', scopes: ['access_codes:read'], environment: env, secret_hint: `svc_${env === 'live' ? 'live' : 'test'}_…77xZ`, created_at: ago(200 * DAY), last_used_at: ago(130 * DAY), revoked_at: null, expires_at: null },
    { key_id: 'key_00', name: 'Pilot', scopes: ['admin'], environment: env, secret_hint: `svc_${env === 'live' ? 'live' : 'test'}_…a1b2`, created_at: ago(300 * DAY), last_used_at: ago(280 * DAY), revoked_at: ago(250 * DAY), expires_at: null },
  ]);

const endpoints = (env: string) =>
  page([
    { endpoint_id: 'whe_01', url: 'https://hooks.lekkishield.ng/tsaro', description: 'Control room board', events: ['incident.*', 'visitor.arrived'], status: 'enabled', environment: env, secret_rotated_at: null, previous_secret_expires_at: null, secret_rotation_due: false, created_at: ago(30 * DAY), updated_at: ago(DAY) },
    { endpoint_id: 'whe_02', url: 'https://old-crm.example.ng/webhook', description: '<b>not bold</b> — text only', events: ['*'], status: 'disabled', environment: env, secret_rotated_at: ago(10 * DAY), previous_secret_expires_at: null, secret_rotation_due: true, created_at: ago(90 * DAY), updated_at: ago(2 * DAY) },
  ]);

const deliveries = (endpointId: string) =>
  page([
    { delivery_id: 'whd_3', endpoint_id: endpointId, event_id: 'evt_03', event_type: 'incident.created', attempt: 1, status: 'succeeded', response_status: 200, error: null, duration_ms: 143, attempted_at: ago(120_000), next_attempt_at: null, response_excerpt: '{"ok":true}' },
    { delivery_id: 'whd_2', endpoint_id: endpointId, event_id: 'evt_02', event_type: 'visitor.arrived', attempt: 2, status: 'failed', response_status: 503, error: null, duration_ms: 2011, attempted_at: ago(3_600_000), next_attempt_at: new Date(Date.now() + 1_800_000).toISOString(), response_excerpt: '<html>Service Unavailable</html>' },
    { delivery_id: 'whd_1', endpoint_id: endpointId, event_id: 'evt_02', event_type: 'visitor.arrived', attempt: 1, status: 'failed', response_status: null, error: 'timeout after 10 s', duration_ms: 10000, attempted_at: ago(4_000_000), next_attempt_at: null },
  ]);

const events = page([
  { id: 'evt_03', type: 'incident.created', created_at: ago(120_000), data: { incident_id: 'inc_01', status: 'dispatching', category: 'sos', subject: { name: 'Ada <script>alert(1)</script>' } } },
  { id: 'evt_02', type: 'visitor.arrived', created_at: ago(4_000_000), data: { log_id: 'log_01', visitor_name: 'Chinedu Okafor', entry_point: 'Gate A' } },
  { id: 'evt_01', type: 'access_code.created', created_at: ago(DAY), data: { code_id: 'code_01', visitor_name: 'Chinedu Okafor' } },
]);

const audit = page([
  { audit_id: 'aud_3', actor: { type: 'person', id: 'per_01', label: 'Ada Obi' }, action: 'api_key.created', resource_type: 'api_key', resource_id: 'key_03', environment: 'live', ip: '102.89.4.12', created_at: ago(3 * DAY) },
  { audit_id: 'aud_2', actor: { type: 'key', id: 'key_02', label: 'Estate app backend' }, action: 'webhook_endpoint.updated', resource_type: 'webhook_endpoint', resource_id: 'whe_01', environment: 'live', ip: '41.58.1.9', created_at: ago(DAY) },
  { audit_id: 'aud_1', actor: { type: 'person', id: 'per_01', label: 'Ada Obi' }, action: 'person.invited', resource_type: 'person', resource_id: 'per_02', environment: null, ip: '102.89.4.12', created_at: ago(2 * DAY) },
]);

const people = page([
  { person_id: 'per_01', email: 'ada@lekkishield.ng', name: 'Ada Obi', role: 'owner', totp_enabled: true, created_at: ago(60 * DAY), last_active_at: ago(60_000) },
  { person_id: 'per_02', email: 'tunde@lekkishield.ng', name: 'Tunde Bakare', role: 'developer', totp_enabled: true, created_at: ago(20 * DAY), last_active_at: ago(DAY) },
  { person_id: 'per_03', email: 'ngozi@lekkishield.ng', name: 'Ngozi Eze', role: 'viewer', totp_enabled: false, created_at: ago(5 * DAY), last_active_at: null },
]);

const invitations = page([{ invitation_id: 'inv_01', email: 'musa@lekkishield.ng', role: 'operator', expires_at: new Date(Date.now() + 6 * DAY).toISOString(), created_at: ago(DAY) }]);

const sessions = page([
  { session_id: 'ses_01', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36', ip: '102.89.4.12', created_at: ago(DAY), last_active_at: ago(60_000), current: true },
  { session_id: 'ses_02', user_agent: 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/125.0 Mobile Safari/537.36', ip: '197.210.7.3', created_at: ago(4 * DAY), last_active_at: ago(2 * DAY), current: false },
]);

export const RECOVERY_CODES = Array.from({ length: 10 }, (_, i) => `${(48213 + i * 7919).toString(36)}-${(91357 + i * 3571).toString(36)}`);

export async function stubApi(target: Page, options: { role?: string; stage?: string; signedIn?: boolean } = {}): Promise<void> {
  await target.route('**/v1/external/**', async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    const path = url.pathname.replace('/v1/external', '');
    const env = request.headers()['tsaro-environment'] ?? 'live';
    const json = (body: unknown, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    if (path === '/console/session')
      return options.signedIn === false ? json({ code: 401, message: 'Not signed in' }, 401) : json({ session: stubSession(options.role, options.stage) });
    if (path.startsWith('/console/invitations/inv_'))
      return json({ invitation: { email: 'musa@lekkishield.ng', role: 'operator', name: 'Musa Bello', organization_name: 'Lekki Shield', expires_at: new Date(Date.now() + 6 * DAY).toISOString(), kind: 'join' } });
    if (path === '/console/totp/enrolment')
      return json({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/Tsaro:ada%40lekkishield.ng?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Tsaro' });
    if (path === '/console/totp/enrolment/confirm') return json({ session: stubSession(options.role), recovery_codes: RECOVERY_CODES });
    if (path === '/console/people') return json(people);
    if (path === '/console/invitations') return json(invitations);
    if (path === '/console/sessions') return json(sessions);
    if (path === '/api-keys' && request.method() === 'GET') return json(keys(env));
    if (path === '/api-keys' && request.method() === 'POST')
      return json({ api_key: keys(env).results[0], secret: `svc_${env === 'live' ? 'live' : 'test'}_4kQ9sV2mXz7LpR8tW3yB6nC1dF5gH0jK` }, 201);
    if (path === '/webhook-endpoints') return json(endpoints(env));
    const endpoint = /^\/webhook-endpoints\/(whe_\d+)(\/deliveries)?$/.exec(path);
    if (endpoint?.[2]) return json(deliveries(endpoint[1]!));
    if (endpoint) return json({ webhook_endpoint: endpoints(env).results.find((e) => e.endpoint_id === endpoint[1]) });
    if (path === '/events') return json(events);
    const event = /^\/events\/(evt_\d+)$/.exec(path);
    if (event) return json({ event: events.results.find((e) => e.id === event[1]) });
    if (path === '/audit-log') return json(audit);
    return json({ code: 404, message: `No stub for ${request.method()} ${path}` }, 404);
  });
}
