import type { ConfigureCheck, ConfigureResult, KioskCallParsed, SetupStatus } from '../../../shared/kiosk/calls.ts';
import { GATE_SCOPES } from '../../../shared/kiosk/gate-scopes.ts';
import type { Link } from '../link/link.ts';
import { createServerApi, gateCall, type ServerApi } from '../link/server-api.ts';
import { apiKeyHint, environmentOfKey, type KioskSettings } from './settings.ts';

export function setupStatus(link: Pick<Link, 'settings' | 'source'>): SetupStatus {
  const settings = link.settings;
  return {
    configured: settings !== undefined,
    source: link.source,
    serverUrl: settings?.serverUrl ?? null,
    entryPoint: settings?.entryPoint ?? null,
    latitude: settings?.latitude ?? null,
    longitude: settings?.longitude ?? null,
    apiKeyHint: settings ? apiKeyHint(settings.apiKey) : null,
    environment: settings ? environmentOfKey(settings.apiKey) : null,
    alarmPhones: settings?.alarmPhones ?? null,
  };
}

/**
 * Checks proposed settings against the server without changing anything there: the server
 * answers, the key is valid, it holds every gate scope (a write is probed with an empty body:
 * 403 without the scope, 400 with it, since scopes are checked before bodies), and it is not an
 * admin key, which would let anyone at the gate manage the organization.
 */
export async function checkSettings(settings: KioskSettings, fetchImpl: typeof fetch, timeoutMs: number): Promise<ConfigureCheck[]> {
  const api = createServerApi({ serverUrl: settings.serverUrl, apiKey: settings.apiKey, fetch: fetchImpl, timeoutMs });
  const checks: ConfigureCheck[] = [];
  if (!(await api.health()).ok) {
    checks.push({ name: 'reachable', ok: false, message: `No healthy Tsaro API answers at ${settings.serverUrl}/health${baseUrlHint(settings.serverUrl)}` });
    return checks;
  }
  checks.push({ name: 'reachable', ok: true, message: 'The server answers' });

  const probe = await api.call('get', '/access-codes/pass-keys');
  if (probe.kind === 'blocked' && probe.status !== 403) {
    checks.push({ name: 'key_valid', ok: false, message: probe.message });
    return checks;
  }
  if (probe.kind === 'unavailable' || probe.kind === 'refused') {
    checks.push({ name: 'key_valid', ok: false, message: `The server did not accept the check: ${probe.message}` });
    return checks;
  }
  checks.push({ name: 'key_valid', ok: true, message: `The key is valid (${environmentOfKey(settings.apiKey) ?? 'unknown'} environment)` });

  const missing: string[] = [];
  for (const [scope, purpose] of GATE_SCOPES) {
    if (!(await holdsScope(api, scope))) missing.push(`${scope} (to ${purpose})`);
  }
  checks.push(
    missing.length
      ? { name: 'scopes', ok: false, message: `The key lacks ${missing.join(', ')}` }
      : { name: 'scopes', ok: true, message: 'The key holds every scope a gate needs' },
  );
  const admin = await api.call('get', '/api-keys', { params: { query: { limit: 1 } } });
  // Only the server's 403 proves it: no answer is no proof, and the key is then not saved.
  checks.push(
    admin.kind === 'ok'
      ? { name: 'not_admin', ok: false, message: 'This key can manage the organization (admin scope); create a gate key with only the gate scopes' }
      : admin.kind === 'blocked' && admin.status === 403
        ? { name: 'not_admin', ok: true, message: 'The key cannot manage the organization' }
        : { name: 'not_admin', ok: false, message: `Could not check that the key cannot manage the organization: ${admin.message}` },
  );
  return checks;
}

/** The usual slip: the server's address without the API's base path. */
function baseUrlHint(serverUrl: string): string {
  try {
    const url = new URL(serverUrl);
    if (url.pathname.replace(/\/+$/, '').endsWith('/v1/external')) return '';
    return `. The address ends in /v1/external: try ${url.origin}${url.pathname.replace(/\/+$/, '')}/v1/external`;
  } catch {
    return '';
  }
}

/** Cast so the type checker lets through a body the server must refuse (400), which is the probe. */
const EMPTY_ON_PURPOSE = {} as never;

async function holdsScope(api: ServerApi, scope: (typeof GATE_SCOPES)[number][0]): Promise<boolean> {
  const walkIn = gateCall('walk_in');
  const answer = await {
    'access_codes:validate': () => api.call('get', '/access-codes/changes', { params: { query: { cursor: 0, limit: 1 } } }),
    // An empty walk-in: a 400 (the body) says the key may record walk-ins and checkouts, a 403 that
    // it may not. The empty bodies are wrong on purpose, so the document's type is set aside.
    'access_codes:write': () => api.call(walkIn.method, walkIn.path, { body: EMPTY_ON_PURPOSE }),
    'logs:read': () => api.call('get', '/access-logs/current-visitors'),
    'incidents:write': () => api.call('post', '/incidents', { body: EMPTY_ON_PURPOSE }),
    'incidents:read': () => api.call('get', '/incidents', { params: { query: { limit: 1 } } }),
  }[scope]();
  return !(answer.kind === 'blocked' && answer.status === 403);
}

export function toSettings(input: KioskCallParsed<'configure'>): KioskSettings {
  return {
    serverUrl: input.serverUrl.replace(/\/+$/, ''),
    apiKey: input.apiKey,
    entryPoint: input.entryPoint,
    latitude: input.latitude,
    longitude: input.longitude,
    ...(input.alarmPhones ? { alarmPhones: input.alarmPhones } : {}),
  };
}

export function configureResult(saved: boolean, checks: ConfigureCheck[], link: Pick<Link, 'settings' | 'source'>): ConfigureResult {
  return { saved, checks, setup: setupStatus(link) };
}
