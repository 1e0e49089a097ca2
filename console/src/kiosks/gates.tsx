import { useState, type FormEvent } from 'react';
import { GATE_SCOPES } from '../../../shared/kiosk/gate-scopes.ts';
import { setupLines } from '../../../shared/kiosk/setup-text.ts';
import { API_BASE, describeError, type Schemas } from '../api.ts';
import { CopyButton, EnvironmentTag, ErrorNote, Field, FormButtons, Qr, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { readAllPages } from '../lists/read-all-pages.ts';
import type { List } from '../lists/use-list.ts';
import { ScreenHeader } from '../components/layout.tsx';
import { useSiteForNew } from '../sites/site-field.tsx';
import { SitesOf } from '../sites/site-limit.tsx';
import { useSiteScope } from '../sites/site-scope.tsx';

type ApiKey = Schemas['ApiKey'];

const GATE_SCOPE_NAMES = GATE_SCOPES.map(([scope]) => scope);
/** More gate keys than a company has gates. */
const MOST_GATE_KEYS = 1_000;

/**
 * The gate keys a site's list shows: those limited to it, and those of every site (made before a
 * gate's key named its site), which admit its codes too. A key limited to other sites is not its.
 */
export const gateKeysAt = (keys: readonly ApiKey[], siteId: string | undefined): ApiKey[] =>
  keys.filter((key) => !siteId || key.site_ids === null || key.site_ids.includes(siteId));

/** `6.4281,3.4216` from what people type: commas, spaces, a Google Maps pair. */
export function parseLocation(text: string): [number, number] | null {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!match) return null;
  const lat = Number(match[1]);
  const lng = Number(match[2]);
  return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : null;
}

/** The kiosk's setup values as environment lines (CONTRACT.md, operator interface; shared/kiosk/setup-text.ts, which the kiosk reads back). */
export function kioskSetup(origin: string, secret: string, entryPoint: string, location: [number, number]): [string, string][] {
  return setupLines({ serverUrl: `${origin}${API_BASE}`, apiKey: secret, entryPoint, latitude: location[0], longitude: location[1] });
}

function NewGate({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const { client, environment } = useConsole();
  const { sites } = useSiteScope();
  // A gate is at one site and its key reaches that site only: its codes, visits and kiosks.
  const site = useSiteForNew({ named: true, note: 'its key reaches this site only.' });
  const [name, setName] = useState('');
  const [entryPoint, setEntryPoint] = useState('');
  const [location, setLocation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [setup, setSetup] = useState<{ values: [string, string][]; site: string | null } | null>(null);
  const siteOfGate = sites.find((each) => each.site_id === site.siteId);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const where = parseLocation(location);
    if (!where) {
      setError('Location: latitude then longitude, e.g. 6.4281, 3.4216 (Lagos).');
      return;
    }
    setError(null);
    try {
      const created = await client.post('/api-keys', {
        body: { name: `Gate: ${name.trim()}`, scopes: GATE_SCOPE_NAMES, ...(site.siteId ? { site_ids: [site.siteId] } : {}) },
      });
      setSetup({ values: kioskSetup(window.location.origin, created.secret, entryPoint.trim(), where), site: siteOfGate?.name ?? null });
      onCreated();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  if (setup) {
    const text = setup.values.map(([k, v]) => `${k}=${v}`).join('\n');
    return (
      <section className="panel stack" data-testid="gate-setup">
        <h2>Set up the kiosk{setup.site && ` at ${setup.site}`}</h2>
        <p className="warning">
          <strong>Shown once.</strong> The key in these values is not stored anywhere readable: enter them on the kiosk now (its first-run setup, or its
          environment), or keep them somewhere safe until you do.
        </p>
        <div className="enrol-body">
          <div className="stack-tight qr-with-hint">
            <Qr text={text} label="QR code of the kiosk setup values" />
            <p className="muted small">On the kiosk's setup screen, press “Scan the setup QR code” and hold this screen up to its camera.</p>
          </div>
          <div className="stack">
            <dl className="facts setup">
              {setup.values.map(([k, v]) => (
                <div key={k}>
                  <dt>
                    <code>{k}</code>
                  </dt>
                  <dd>
                    <code className="wrap" data-testid={`setup-${k}`}>
                      {v}
                    </code>
                  </dd>
                </div>
              ))}
            </dl>
            {setup.site && (
              <p className="muted small" data-testid="setup-site">
                The key is limited to {setup.site}: the kiosk learns the site, its name and its call list from the server.
              </p>
            )}
            <p className="row">
              <CopyButton text={text} label="Copy all as environment lines" />
            </p>
          </div>
        </div>
        <button type="button" onClick={onCancel}>
          Done
        </button>
      </section>
    );
  }
  return (
    <form className="panel stack" onSubmit={submit} data-testid="new-gate">
      <h2>New {environment} gate</h2>
      {site.field}
      <Field label="Gate name" id="gate-name" hint="For the key list, e.g. “Admiralty Estate main gate”.">
        <input id="gate-name" required maxLength={90} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field label="Entry point" id="gate-entry" hint="What the access log records for this gate, e.g. “Gate A”: one of the site's gates, or a new name.">
        <input id="gate-entry" required maxLength={100} value={entryPoint} onChange={(e) => setEntryPoint(e.target.value)} list="gate-entry-points" />
      </Field>
      <datalist id="gate-entry-points">
        {siteOfGate?.entry_points
          .filter((entry) => !entry.retired_at)
          .map((entry) => (
            <option key={entry.entry_point_id} value={entry.name} />
          ))}
      </datalist>
      <Field label="Location (latitude, longitude)" id="gate-location" hint="Where responders go when the gate's panic button is pressed.">
        <input id="gate-location" required value={location} onChange={(e) => setLocation(e.target.value)} placeholder="6.4281, 3.4216" />
      </Field>
      <p className="muted small">The key gets exactly the kiosk's scopes, never admin: {GATE_SCOPES.map(([s, why]) => `${s} (${why})`).join('; ')}.</p>
      <ErrorNote error={error} />
      <FormButtons submit="Create gate key" onCancel={onCancel} />
    </form>
  );
}

/**
 * The gate keys (active keys with exactly the gate's scopes, filtered by the server), read whole
 * and kept to the chosen site's: `GET /api-keys` takes no site, and a company's gate keys are
 * a few dozen, so the list says when it read only part of them rather than paging a filter.
 */
function useGateKeys(siteId: string | undefined): { list: List<ApiKey>; leftOut: number } {
  const loaded = useLoad((client) => readAllPages(client, '/api-keys', { status: 'active', scopes: GATE_SCOPE_NAMES.join(',') }, MOST_GATE_KEYS), []);
  const items = loaded.data ? gateKeysAt(loaded.data.items, siteId) : [];
  return {
    list: {
      page: loaded.data && { results: items, page: 1, totalPages: 1, totalResults: items.length },
      items,
      error: loaded.error,
      loading: loaded.loading,
      reload: loaded.reload,
      setPage: () => undefined,
    },
    leftOut: loaded.data ? loaded.data.total - loaded.data.items.length : 0,
  };
}

export function GatesScreen() {
  const { can } = useConsole();
  const { chosen, siteId } = useSiteScope();
  const [creating, setCreating] = useState(false);
  const { list: keys, leftOut } = useGateKeys(siteId);
  const mayWrite = can('manageIntegrations');
  const everySite = keys.items.some((key) => key.site_ids === null);
  return (
    <section className="stack" data-testid="screen-gates">
      <ScreenHeader
        title={chosen ? `Gates of ${chosen.name}` : 'Gates'}
        action={
          mayWrite &&
          !creating && (
            <button type="button" className="primary" onClick={() => setCreating(true)} data-testid="new-gate-button">
              New gate
            </button>
          )
        }
      >
        A gate kiosk scans visitors' codes, records walk-ins and has a panic button. Each needs its own key with the gate scopes only, limited to its site.
      </ScreenHeader>
      {creating && <NewGate onCreated={keys.reload} onCancel={() => setCreating(false)} />}
      {leftOut > 0 && (
        <p className="warning" role="status">
          Only the first {MOST_GATE_KEYS} gate keys were read; {leftOut} more are under API keys.
        </p>
      )}
      <ListTable
        list={keys}
        rowKey={(key) => key.key_id}
        rowProps={(key) => ({ 'data-testid': 'gate-row', 'data-key-id': key.key_id })}
        empty={{
          title: chosen ? `No gate keys at ${chosen.name} yet.` : 'No gate keys yet.',
          body: mayWrite ? 'Press “New gate” to make a key for a kiosk and get its setup values.' : 'An owner, admin or developer can add a gate.',
        }}
        columns={[
          { header: 'Gate key', cell: (key) => key.name },
          { header: 'Site', cell: (key) => <SitesOf limit={key.site_ids} /> },
          {
            header: 'Key',
            cell: (key) => (
              <>
                <code>{key.secret_hint}</code> <EnvironmentTag environment={key.environment} />
              </>
            ),
          },
          { header: 'Created', cell: (key) => <Time iso={key.created_at} /> },
          { header: 'Last used', cell: (key) => <Time iso={key.last_used_at} relative /> },
        ]}
      />
      {everySite && (
        <p className="muted small" data-testid="every-site-note">
          A key marked “Every site” (made before a gate's key named its site) admits every site's codes{chosen ? `, ${chosen.name}'s among them` : ''}. To tie its
          gate to one site, make the gate again here and revoke the old key under API keys.
        </p>
      )}
      <p className="muted small">Revoke or roll a gate key under API keys.</p>
    </section>
  );
}
