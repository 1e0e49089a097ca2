import { useState, type FormEvent } from 'react';
import { GATE_SCOPES } from '../../../shared/kiosk/gate-scopes.ts';
import { API_BASE, describeError } from '../api.ts';
import { CopyButton, EnvironmentTag, ErrorNote, Field, FormButtons, Qr, Time } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { ScreenHeader } from '../components/layout.tsx';

const GATE_SCOPE_NAMES = GATE_SCOPES.map(([scope]) => scope);

/** `6.4281,3.4216` from what people type: commas, spaces, a Google Maps pair. */
export function parseLocation(text: string): [number, number] | null {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!match) return null;
  const lat = Number(match[1]);
  const lng = Number(match[2]);
  return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : null;
}

/** The kiosk's setup values as environment lines (CONTRACT.md, operator interface). */
export function kioskSetup(origin: string, secret: string, entryPoint: string, location: [number, number]): [string, string][] {
  return [
    ['KIOSK_SERVER_URL', `${origin}${API_BASE}`],
    ['KIOSK_API_KEY', secret],
    ['KIOSK_ENTRY_POINT', entryPoint],
    ['KIOSK_LOCATION', `${location[0]},${location[1]}`],
  ];
}

function NewGate({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const { client, environment } = useConsole();
  const [name, setName] = useState('');
  const [entryPoint, setEntryPoint] = useState('');
  const [location, setLocation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [setup, setSetup] = useState<[string, string][] | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const where = parseLocation(location);
    if (!where) {
      setError('Location: latitude then longitude, e.g. 6.4281, 3.4216 (Lagos).');
      return;
    }
    setError(null);
    try {
      const created = await client.post('/api-keys', { body: { name: `Gate: ${name.trim()}`, scopes: GATE_SCOPE_NAMES } });
      setSetup(kioskSetup(window.location.origin, created.secret, entryPoint.trim(), where));
      onCreated();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  if (setup) {
    const text = setup.map(([k, v]) => `${k}=${v}`).join('\n');
    return (
      <section className="panel stack" data-testid="gate-setup">
        <h2>Set up the kiosk</h2>
        <p className="warning">
          <strong>Shown once.</strong> The key in these values is not stored anywhere readable: enter them on the kiosk now (its first-run setup, or its
          environment), or keep them somewhere safe until you do.
        </p>
        <div className="enrol-body">
          <Qr text={text} label="QR code of the kiosk setup values" />
          <div className="stack">
            <dl className="facts setup">
              {setup.map(([k, v]) => (
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
      <Field label="Gate name" id="gate-name" hint="For the key list, e.g. “Admiralty Estate main gate”.">
        <input id="gate-name" required maxLength={90} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field label="Entry point" id="gate-entry" hint="What the access log records for this gate, e.g. “Gate A”.">
        <input id="gate-entry" required maxLength={100} value={entryPoint} onChange={(e) => setEntryPoint(e.target.value)} />
      </Field>
      <Field label="Location (latitude, longitude)" id="gate-location" hint="Where responders go when the gate's panic button is pressed.">
        <input id="gate-location" required value={location} onChange={(e) => setLocation(e.target.value)} placeholder="6.4281, 3.4216" />
      </Field>
      <p className="muted small">The key gets exactly the kiosk's scopes, never admin: {GATE_SCOPES.map(([s, why]) => `${s} (${why})`).join('; ')}.</p>
      <ErrorNote error={error} />
      <FormButtons submit="Create gate key" onCancel={onCancel} />
    </form>
  );
}

export function GatesScreen() {
  const { can } = useConsole();
  const [creating, setCreating] = useState(false);
  // Gate keys are the active keys with exactly the gate's scopes: the server filters, so every page is whole.
  const keys = useList('/api-keys', { status: 'active', scopes: GATE_SCOPE_NAMES.join(',') });
  const mayWrite = can('manageIntegrations');
  return (
    <section className="stack" data-testid="screen-gates">
      <ScreenHeader
        title="Gates"
        action={
          mayWrite &&
          !creating && (
            <button type="button" className="primary" onClick={() => setCreating(true)} data-testid="new-gate-button">
              New gate
            </button>
          )
        }
      >
        A gate kiosk scans visitors' codes, records walk-ins and has a panic button. Each needs its own key with the gate scopes only.
      </ScreenHeader>
      {creating && <NewGate onCreated={keys.reload} onCancel={() => setCreating(false)} />}
      <ListTable
        list={keys}
        rowKey={(key) => key.key_id}
        empty={{
          title: 'No gate keys yet.',
          body: mayWrite ? 'Press “New gate” to make a key for a kiosk and get its setup values.' : 'An owner, admin or developer can add a gate.',
        }}
        columns={[
          { header: 'Gate key', cell: (key) => key.name },
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
      <p className="muted small">Revoke or roll a gate key under API keys.</p>
    </section>
  );
}
