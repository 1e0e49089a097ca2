import { useState, type FormEvent } from 'react';
import { describeError } from '../api.ts';
import { ErrorNote, Field, FormButtons, Phone } from '../components/ui.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { useConsole } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { CallListEditor, filled, LANGUAGES, type Caller } from './call-list-editor.tsx';
import { LocationField, locationText, parsedLocation } from './location-field.tsx';
import { NotTexted } from './call-list.tsx';
import { EditSite } from './site-edit.tsx';
import { useSiteScope } from './site-scope.tsx';

function NewSite({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const { client } = useConsole();
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [gates, setGates] = useState('');
  const [callers, setCallers] = useState<Caller[]>([{ name: '', phone: '' }]);
  const [location, setLocation] = useState(locationText(null));
  const [error, setError] = useState<string | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = parsedLocation(location);
    setError(parsed.problem);
    if (parsed.problem) return;
    try {
      await client.post('/sites', {
        body: {
          name: name.trim(),
          address: address.trim() || undefined,
          location: parsed.location ?? undefined,
          call_list: filled(callers),
          entry_points: gates.split(/[\n,]/).map((gate) => gate.trim()).filter(Boolean),
          time_zone: 'Africa/Lagos',
        },
      });
      onCreated();
      onCancel();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form className="panel stack" onSubmit={submit} aria-label="New site" data-testid="new-site">
      <h2>New site</h2>
      <Field label="Name" id="site-name" hint="An estate or premises, e.g. “Admiralty Estate”.">
        <input id="site-name" required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field label="Address (optional)" id="site-address">
        <input id="site-address" maxLength={300} value={address} onChange={(e) => setAddress(e.target.value)} />
      </Field>
      <LocationField value={location} onChange={setLocation} idPrefix="new-site" name={name.trim()} />
      <Field label="Gates" id="site-gates" hint="One per line or separated by commas, e.g. North gate, South gate.">
        <textarea id="site-gates" rows={2} value={gates} onChange={(e) => setGates(e.target.value)} />
      </Field>
      <CallListEditor rows={callers} onChange={setCallers} idPrefix="new-caller" />
      <ErrorNote error={error} />
      <FormButtons submit="Add site" onCancel={onCancel} />
    </form>
  );
}

/**
 * The organization's sites (issue #34): each estate with its gates and its call list, the
 * numbers people call, and text messages will reach, when nobody comes. Phones show as the
 * server keeps them (E.164) and ring on a tap from a phone.
 */
export function SitesScreen() {
  const { can } = useConsole();
  const manage = can('manageSites');
  const add = can('addSites');
  const [shown, setShown] = useState<'active' | 'archived'>('active');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const sites = useList('/sites', { status: shown });
  const scope = useSiteScope();
  // Edited above the list, at full width (its map and gates need the room); gone once archived.
  const beingEdited = sites.items.find((site) => site.site_id === editing && !site.archived_at);
  // A site added, renamed or archived here is offered (or no longer) by the switcher at once.
  const changed = () => {
    sites.reload();
    scope.reload();
  };
  return (
    <section className="stack" data-testid="screen-sites">
      <ScreenHeader
        title="Sites"
        action={
          add &&
          !creating && (
            <button type="button" className="primary" onClick={() => setCreating(true)} data-testid="new-site-button">
              New site
            </button>
          )
        }
      >
        Your estates and premises: their gates, and who to call, in order, when nobody comes.
      </ScreenHeader>
      {creating && <NewSite onCreated={changed} onCancel={() => setCreating(false)} />}
      {beingEdited && <EditSite key={beingEdited.site_id} site={beingEdited} onChanged={changed} onDone={() => setEditing(null)} />}
      <div className="filters" role="group" aria-label="Filter sites">
        <label htmlFor="site-shown">Show</label>
        <select id="site-shown" value={shown} onChange={(e) => setShown(e.target.value === 'archived' ? 'archived' : 'active')}>
          <option value="active">Active sites</option>
          <option value="archived">Archived sites</option>
        </select>
      </div>
      <ListTable
        list={sites}
        label="Sites"
        rowKey={(site) => site.site_id}
        rowProps={(site) => ({ 'data-testid': 'site-row', 'data-site-id': site.site_id })}
        empty={{ title: shown === 'archived' ? 'No archived sites.' : 'No sites yet.' }}
        columns={[
          {
            header: 'Site',
            cell: (site) => (
              <>
                <strong>{site.name}</strong> {site.is_default && <span className="tag">default</span>}
                {site.address && <div className="muted small">{site.address}</div>}
                {site.location ? (
                  <div className="muted small" data-testid="site-location">
                    {site.location.latitude.toFixed(4)}, {site.location.longitude.toFixed(4)}
                  </div>
                ) : (
                  <div className="tone-warn small">No location: responders and the map need it</div>
                )}
              </>
            ),
          },
          {
            header: 'Gates',
            cell: (site) =>
              site.entry_points.length ? (
                <ul className="chips">
                  {site.entry_points.map((entry) => (
                    <li key={entry.entry_point_id} className={entry.retired_at ? 'retired' : undefined} title={entry.retired_at ? 'Retired: no new codes' : undefined}>
                      {entry.name}
                      {entry.retired_at ? ' (retired)' : ''}
                    </li>
                  ))}
                </ul>
              ) : (
                <span className="muted">None yet</span>
              ),
          },
          {
            header: 'Call list',
            cell: (site) =>
              site.call_list.length ? (
                <ol className="call-list" data-testid="call-list">
                  {site.call_list.map((entry, index) => (
                    <li key={index}>
                      {entry.name}: <Phone phone={entry.phone} />
                      {entry.texted
                        ? entry.language && entry.language !== 'en'
                          ? ` (texts in ${LANGUAGES.find(([code]) => code === entry.language)?.[1]})`
                          : ''
                        : <NotTexted reason={entry.not_texted_reason} />}
                    </li>
                  ))}
                </ol>
              ) : (
                <span className="tone-warn">No numbers: add who to call when nobody comes</span>
              ),
          },
          {
            header: 'Actions',
            shown: manage,
            className: 'actions-cell',
            cell: (site) =>
              !site.archived_at && (
                <button
                  type="button"
                  aria-pressed={editing === site.site_id}
                  onClick={() => {
                    setEditing(site.site_id);
                    window.scrollTo(0, 0);
                  }}
                >
                  Edit
                </button>
              ),
          },
        ]}
      />
    </section>
  );
}
