import { useState, type FormEvent } from 'react';
import { phoneForReading } from '../../../shared/phone.ts';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, ErrorNote, Field } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { CallListEditor, filled, type Caller } from './call-list-editor.tsx';
import { LocationField, locationText, parsedLocation } from './location-field.tsx';
import { GatesEditor } from './site-gates.tsx';
import { useSiteScope } from './site-scope.tsx';

type Site = Schemas['Site'];

/** A site's name, address and position (a map pick, or typed), changed together. */
function SiteDetails({ site, onChanged }: { site: Site; onChanged: () => void }) {
  const { client } = useConsole();
  const [name, setName] = useState(site.name);
  const [address, setAddress] = useState(site.address ?? '');
  const [location, setLocation] = useState(locationText(site.location));
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = parsedLocation(location);
    setError(parsed.problem);
    setSaved(false);
    if (parsed.problem) return;
    try {
      await client.patch('/sites/{siteId}', { params: { path: { siteId: site.site_id } }, body: { name: name.trim(), address: address.trim() || null, location: parsed.location } });
      setSaved(true);
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form className="stack site-details" onSubmit={submit} aria-label={`Name, address and location of ${site.name}`} data-testid="site-details">
      <Field label="Name" id={`site-name-${site.site_id}`}>
        <input id={`site-name-${site.site_id}`} required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Address" id={`site-address-${site.site_id}`}>
        <input id={`site-address-${site.site_id}`} maxLength={300} value={address} onChange={(e) => setAddress(e.target.value)} placeholder="12 Admiralty Way, Lekki, Lagos" />
      </Field>
      <LocationField value={location} onChange={setLocation} idPrefix={`site-${site.site_id}`} name={name.trim()} />
      <ErrorNote error={error} />
      <p className="row">
        <button type="submit" className="primary">
          Save name, address and location
        </button>
        {saved && <span role="status">Saved.</span>}
      </p>
    </form>
  );
}

/**
 * Which site is the default: where a code, visit or kiosk that names no site belongs. Another
 * site can become it (owners and admins of every site); the one before may then be archived.
 */
function DefaultSite({ site, onChanged }: { site: Site; onChanged: () => void }) {
  const { client, can } = useConsole();
  const { sites } = useSiteScope();
  const [error, setError] = useState<string | null>(null);
  const current = sites.find((each) => each.is_default);
  if (site.is_default)
    return (
      <p className="muted" data-testid="default-site-note">
        <strong>The default site:</strong> codes, visits and kiosks that name no site belong here. To archive it, make another site the default first.
      </p>
    );
  if (!can('addSites') || site.archived_at) return null;
  return (
    <div className="stack-tight">
      <p className="muted">
        Codes, visits and kiosks that name no site belong to the default site{current ? `, now ${current.name}` : ''}.
      </p>
      <p className="row">
        <ConfirmButton
          label="Make this the default site"
          danger={false}
          question={`Make ${site.name} the default site? What names no site belongs here from now on${current ? `, not at ${current.name}` : ''}.`}
          confirmLabel={`Make ${site.name} the default`}
          onConfirm={async () => {
            setError(null);
            try {
              await client.patch('/sites/{siteId}', { params: { path: { siteId: site.site_id } }, body: { is_default: true } });
              onChanged();
            } catch (failure) {
              setError(describeError(failure));
            }
          }}
        />
      </p>
      <ErrorNote error={error} />
    </div>
  );
}

/** A site changed in place by owners and admins: its details, whether it is the default, its gates, its call list; archived. */
export function EditSite({ site, onChanged, onDone }: { site: Site; onChanged: () => void; onDone: () => void }) {
  const { client, can } = useConsole();
  // Numbers to edit as people write them (0803 123 4567); the server keeps them in E.164 (issue #48).
  const [callers, setCallers] = useState<Caller[]>(site.call_list.length ? site.call_list.map((entry) => ({ ...entry, phone: phoneForReading(entry.phone) })) : [{ name: '', phone: '' }]);
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
    <section className="panel stack edit-site" aria-labelledby={`edit-title-${site.site_id}`} data-testid="edit-site" data-site-id={site.site_id}>
      <h2 id={`edit-title-${site.site_id}`}>Edit {site.name}</h2>
      <SiteDetails site={site} onChanged={onChanged} />
      <DefaultSite site={site} onChanged={onChanged} />
      <GatesEditor site={site} onChanged={onChanged} />
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
      <ErrorNote error={error} />
      <p className="row">
        {/* Archiving, as adding, is for people of every site; the default site first hands over to another. */}
        {!site.is_default && can('addSites') && (
          <ConfirmButton label="Archive site" question={`Archive ${site.name}? It stays listed as archived, with its history.`} onConfirm={() => run(() => client.post('/sites/{siteId}/archive', { ...path, body: {} }))} />
        )}
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </section>
  );
}
