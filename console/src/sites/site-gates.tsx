import { useState, type FormEvent } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, ErrorNote, Notice } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';

type Site = Schemas['Site'];
type Gate = Site['entry_points'][number];

/** One gate: renamed in place (its old name stays its own, for kiosks set up with it), removed, or retired when codes are bound to it. */
function GateRow({ site, gate, onChanged, onNote }: { site: Site; gate: Gate; onChanged: () => void; onNote: (note: string) => void }) {
  const { client } = useConsole();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(gate.name);
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { siteId: site.site_id, entryPointId: gate.entry_point_id } } };
  async function rename(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await client.patch('/sites/{siteId}/entry-points/{entryPointId}', { ...path, body: { name: name.trim() } });
      setRenaming(false);
      onNote(`${gate.name} is now ${name.trim()}. Kiosks set up as “${gate.name}” still reach it.`);
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  async function remove() {
    setError(null);
    try {
      const answer = await client.del('/sites/{siteId}/entry-points/{entryPointId}', path);
      onNote(answer.removed ? `${gate.name} removed.` : `${gate.name} is retired rather than removed: codes admit only there. It takes no new codes; those codes still open it.`);
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <li className="gate-row" data-testid="gate-item" data-entry-point-id={gate.entry_point_id}>
      {renaming ? (
        <form className="row" onSubmit={rename}>
          <label htmlFor={`gate-name-${gate.entry_point_id}`}>New name for {gate.name}</label>
          <input id={`gate-name-${gate.entry_point_id}`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          <button type="submit" className="primary">
            Save name
          </button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <p className="row">
          <strong>{gate.name}</strong>
          {gate.retired_at && <span className="tag warn">retired: no new codes</span>}
          <button type="button" onClick={() => setRenaming(true)}>
            Rename
          </button>
          {!gate.retired_at && (
            <ConfirmButton
              label="Remove"
              question={`Remove ${gate.name}? If codes admit only at this gate, it is retired instead, and those codes still open it.`}
              onConfirm={remove}
            />
          )}
        </p>
      )}
      {gate.former_names.length > 0 && (
        <p className="muted small" data-testid="former-names">
          Kiosks set up as {gate.former_names.map((former) => `“${former}”`).join(', ')} still reach this gate.
        </p>
      )}
      <ErrorNote error={error} />
    </li>
  );
}

/** A site's gates: each renamed, removed or retired in place, and new ones added. */
export function GatesEditor({ site, onChanged }: { site: Site; onChanged: () => void }) {
  const { client } = useConsole();
  const [gate, setGate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  async function add(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await client.post('/sites/{siteId}/entry-points', { params: { path: { siteId: site.site_id } }, body: { name: gate.trim() } });
      setNote(null);
      setGate('');
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <section className="stack-tight gates-editor" aria-labelledby={`gates-title-${site.site_id}`} data-testid="site-gates">
      <h3 id={`gates-title-${site.site_id}`}>Gates</h3>
      {site.entry_points.length ? (
        <ul className="gate-list">
          {site.entry_points.map((entry) => (
            <GateRow key={`${entry.entry_point_id} ${entry.name}`} site={site} gate={entry} onChanged={onChanged} onNote={setNote} />
          ))}
        </ul>
      ) : (
        <p className="muted">No gates yet.</p>
      )}
      {note && <Notice>{note}</Notice>}
      <form className="row" onSubmit={add}>
        <label htmlFor={`gate-${site.site_id}`}>New gate</label>
        <input id={`gate-${site.site_id}`} value={gate} maxLength={200} required onChange={(e) => setGate(e.target.value)} />
        <button type="submit">Add gate</button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
