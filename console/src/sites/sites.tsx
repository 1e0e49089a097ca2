import { useState, type FormEvent } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, ErrorNote, Field, FormButtons } from '../components/ui.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { useConsole } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { useSiteScope } from './site-scope.tsx';

type Site = Schemas['Site'];
type Language = NonNullable<Site['call_list'][number]['language']>;
type Caller = { name: string; phone: string; language?: Language };

/** The languages texts are written in, each by its own name (the kiosk's three). */
const LANGUAGES: ReadonlyArray<[Language, string]> = [
  ['en', 'English'],
  ['ha', 'Hausa'],
  ['pcm', 'Pidgin'],
];

/** The call-list rows a form holds: blank rows are left out of what is sent; English is the default, not sent. */
const filled = (rows: Caller[]) =>
  rows
    .map((row) => ({ name: row.name.trim(), phone: row.phone.trim(), ...(row.language && row.language !== 'en' ? { language: row.language } : {}) }))
    .filter((row) => row.name || row.phone);

/** Who to call when nobody comes, in order: a row per number, added and removed in place. */
function CallListEditor({ rows, onChange, idPrefix }: { rows: Caller[]; onChange: (rows: Caller[]) => void; idPrefix: string }) {
  const set = (index: number, change: Partial<Caller>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="stack-tight call-list-editor">
      <legend>Call list: who to call when nobody comes, in order</legend>
      {rows.map((row, index) => (
        <p className="row" key={index}>
          <label htmlFor={`${idPrefix}-name-${index}`}>Name {index + 1}</label>
          <input id={`${idPrefix}-name-${index}`} value={row.name} maxLength={80} onChange={(e) => set(index, { name: e.target.value })} placeholder="Estate control" />
          <label htmlFor={`${idPrefix}-phone-${index}`}>Phone {index + 1}</label>
          <input id={`${idPrefix}-phone-${index}`} value={row.phone} maxLength={40} inputMode="tel" onChange={(e) => set(index, { phone: e.target.value })} placeholder="0803 123 4567" />
          <label htmlFor={`${idPrefix}-language-${index}`}>Texts in {index + 1}</label>
          <select id={`${idPrefix}-language-${index}`} value={row.language ?? 'en'} onChange={(e) => set(index, { language: e.target.value as Language })}>
            {LANGUAGES.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
          <button type="button" className="link" onClick={() => onChange(rows.filter((_, at) => at !== index))}>
            Remove
          </button>
        </p>
      ))}
      {rows.length < 10 && (
        <button type="button" onClick={() => onChange([...rows, { name: '', phone: '' }])}>
          Add a number
        </button>
      )}
    </fieldset>
  );
}

function NewSite({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const { client } = useConsole();
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [gates, setGates] = useState('');
  const [callers, setCallers] = useState<Caller[]>([{ name: '', phone: '' }]);
  const [error, setError] = useState<string | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await client.post('/sites', {
        body: {
          name: name.trim(),
          address: address.trim() || undefined,
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
      <Field label="Gates" id="site-gates" hint="One per line or separated by commas, e.g. North gate, South gate.">
        <textarea id="site-gates" rows={2} value={gates} onChange={(e) => setGates(e.target.value)} />
      </Field>
      <CallListEditor rows={callers} onChange={setCallers} idPrefix="new-caller" />
      <ErrorNote error={error} />
      <FormButtons submit="Add site" onCancel={onCancel} />
    </form>
  );
}

/** A site's call list and gates, changed in place by owners and admins. */
function EditSite({ site, onChanged, onDone }: { site: Site; onChanged: () => void; onDone: () => void }) {
  const { client, can } = useConsole();
  const [callers, setCallers] = useState<Caller[]>(site.call_list.length ? site.call_list : [{ name: '', phone: '' }]);
  const [gate, setGate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { siteId: site.site_id } } };
  const run = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <div className="inline-panel stack" data-testid="edit-site">
      <form
        className="stack-tight"
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => client.patch('/sites/{siteId}', { ...path, body: { call_list: filled(callers) } }));
        }}
      >
        <CallListEditor rows={callers} onChange={setCallers} idPrefix={`caller-${site.site_id}`} />
        <button type="submit" className="primary">
          Save call list
        </button>
      </form>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => client.post('/sites/{siteId}/entry-points', { ...path, body: { name: gate.trim() } })).then(() => setGate(''));
        }}
      >
        <label htmlFor={`gate-${site.site_id}`}>New gate</label>
        <input id={`gate-${site.site_id}`} value={gate} maxLength={200} required onChange={(e) => setGate(e.target.value)} />
        <button type="submit">Add gate</button>
      </form>
      <ErrorNote error={error} />
      <p className="row">
        {/* Archiving, as adding, is for people of every site. */}
        {!site.is_default && can('addSites') && (
          <ConfirmButton label="Archive site" question={`Archive ${site.name}? It stays listed as archived, with its history.`} onConfirm={() => run(() => client.post('/sites/{siteId}/archive', { ...path, body: {} }))} />
        )}
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
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
              </>
            ),
          },
          {
            header: 'Gates',
            cell: (site) =>
              site.entry_points.length ? (
                <ul className="chips">
                  {site.entry_points.map((entry) => (
                    <li key={entry.entry_point_id}>{entry.name}</li>
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
                      {entry.name}: <a href={`tel:${entry.phone}`}>{entry.phone}</a>
                      {entry.language && entry.language !== 'en' ? ` (texts in ${LANGUAGES.find(([code]) => code === entry.language)?.[1]})` : ''}
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
              editing === site.site_id ? (
                <EditSite site={site} onChanged={changed} onDone={() => setEditing(null)} />
              ) : (
                !site.archived_at && (
                  <button type="button" onClick={() => setEditing(site.site_id)}>
                    Edit
                  </button>
                )
              ),
          },
        ]}
      />
    </section>
  );
}
