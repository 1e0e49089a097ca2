/**
 * The year's first rows, made by the running product through its API: the big organization's
 * sites and gates, an access code and its check-in, an SOS and a cancelled incident, their events
 * and audit entries, a webhook endpoint. The generator copies the shape of these rows (every
 * column it does not set itself comes from them), so the year holds what the product would.
 */
import { startChild } from '../lib/children.ts';

interface Ready {
  baseUrl: string;
  liveKey: string;
  sandboxKey: string;
  organizationId: string;
}

export interface Seeded {
  organizationId: string;
  liveKey: string;
  /** Every site with its gates' names (the default site first). */
  sites: { siteId: string; gates: string[] }[];
  /** The ids of the rows to copy. */
  templates: { codeId: string; logId: string; incidentId: string; cancelledIncidentId: string; endpointId: string };
}

const SITES = [
  { name: 'Admiralty Estate', gates: ['North Gate', 'South Gate', 'Service Gate'] },
  { name: 'Lekki Phase One', gates: ['Main Gate', 'Pedestrian Gate'] },
  { name: 'Victoria Island Tower', gates: ['Lobby', 'Car Park', 'Loading Bay'] },
];

async function call<T>(ready: Ready, method: string, path: string, body?: unknown, key = ready.liveKey): Promise<T> {
  const answer = await fetch(ready.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await answer.text();
  if (answer.status >= 300) throw new Error(`seeding: ${method} ${path} answered ${answer.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * Starts the server (`script`: bench/serve.ts, or an older tree's for a year on an older schema)
 * on the (fresh) database, which migrates it, and makes the seed rows through the API.
 */
export async function seedThroughApi(databaseUrl: string, log: (line: string) => void, script = 'bench/serve.ts'): Promise<Seeded> {
  const server = await startChild<Ready>('tsaro server (seeding the year)', { script, env: { DATABASE_URL: databaseUrl }, readyTimeoutMs: 600_000 });
  try {
    const ready = server.ready;
    const { results: existing } = await call<{ results: { site_id: string; is_default: boolean }[] }>(ready, 'GET', '/sites');
    const defaultSite = existing.find((site) => site.is_default) ?? existing[0]!;
    for (const gate of ['Main Gate', 'Back Gate']) await call(ready, 'POST', `/sites/${defaultSite.site_id}/entry-points`, { name: gate });
    const sites = [{ siteId: defaultSite.site_id, gates: ['Main Gate', 'Back Gate'] }];
    for (const site of SITES) {
      const made = await call<{ site: { site_id: string } }>(ready, 'POST', '/sites', { name: site.name, entry_points: site.gates });
      sites.push({ siteId: made.site.site_id, gates: site.gates });
    }
    const code = await call<{ access_code: { code_id: string; code: string } }>(ready, 'POST', '/access-codes', {
      visitor_name: 'Adaeze Okafor',
      visitor_phone: '+2348031234567',
      purpose: 'Delivery',
      max_uses: 1,
      site_id: sites[1]!.siteId,
    });
    const visit = await call<{ log_id: string }>(ready, 'POST', '/access-codes/validate', { code: code.access_code.code, entry_point: sites[1]!.gates[0] });
    const sos = await call<{ incident: { incident_id: string } }>(ready, 'POST', '/incidents', {
      category: 'medical',
      severity: 'high',
      subject: { name: 'Bola Adeyemi', phone: '+2348030000001' },
      location: { coordinates: [3.42, 6.44] },
    });
    const other = await call<{ incident: { incident_id: string } }>(ready, 'POST', '/incidents', {
      category: 'vehicle',
      severity: 'medium',
      subject: { name: 'Chidi Nwosu', phone: '+2348030000002' },
      location: { coordinates: [3.43, 6.45] },
    });
    await call(ready, 'POST', `/incidents/${other.incident.incident_id}/cancel`, { reason: 'Pressed by mistake' });
    // An endpoint on loopback (sandbox), disabled at once: the year's deliveries are history, and the bench's SOSs send none.
    const endpoint = await call<{ webhook_endpoint?: { endpoint_id: string }; endpoint?: { endpoint_id: string } }>(
      ready,
      'POST',
      '/webhook-endpoints',
      { url: 'http://127.0.0.1:9/tsaro', events: ['incident.created'] },
      ready.sandboxKey,
    );
    const endpointId = (endpoint.webhook_endpoint ?? endpoint.endpoint)!.endpoint_id;
    await call(ready, 'PATCH', `/webhook-endpoints/${endpointId}`, { status: 'disabled' }, ready.sandboxKey);
    log(`seeded through the API: ${sites.length} sites, a code, a visit, two incidents, a webhook endpoint`);
    return {
      organizationId: ready.organizationId,
      liveKey: ready.liveKey,
      sites,
      templates: { codeId: code.access_code.code_id, logId: visit.log_id, incidentId: sos.incident.incident_id, cancelledIncidentId: other.incident.incident_id, endpointId },
    };
  } finally {
    await server.stop();
  }
}
