import { useEffect, useState, type FormEvent } from 'react';
import { describeError, type Schemas } from '../api.ts';
import { ErrorNote, Field, FormButtons, Notice } from '../components/ui.tsx';
import { ScreenHeader } from '../components/layout.tsx';
import { useConsole, useLoad } from '../context.tsx';

type Organization = Schemas['Organization'];

/** What a code looks like with this prefix: the four characters are an example. */
const sampleCode = (prefix: string) => `${prefix || 'ABC'}-7K2P`;

/**
 * The organization's own name and what its codes begin with (issue #48): an estate company that
 * started as the demo, or renamed itself, says so on every pass from the next one printed.
 * Owners change them (`PATCH /organization`); codes already issued keep their prefix.
 */
export function OrganizationScreen() {
  const { client, refreshSession } = useConsole();
  const loaded = useLoad((c) => c.get('/organization'), []);
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<Organization | null>(null);
  const [busy, setBusy] = useState(false);
  const current = saved ?? loaded.data?.organization;
  useEffect(() => {
    if (!loaded.data) return;
    setName(loaded.data.organization.name);
    setPrefix(loaded.data.organization.code_prefix);
  }, [loaded.data]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!current) return;
    setError(null);
    setBusy(true);
    try {
      const changes = { ...(name.trim() !== current.name && { name: name.trim() }), ...(prefix !== current.code_prefix && { code_prefix: prefix }) };
      const answer = await client.patch('/organization', { body: changes });
      // The top bar and every pass printed from now on read the session's organization.
      await refreshSession();
      setSaved(answer.organization);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="stack" data-testid="screen-organization">
      <ScreenHeader title="Organization">Your company's name, on every visitor pass, and what its access codes begin with.</ScreenHeader>
      <ErrorNote error={loaded.error} />
      {current && (
        <div className="organization-layout">
          <form className="panel stack" onSubmit={submit} aria-label="The organization's name and code prefix" data-testid="organization-form">
            <Field label="Name" id="organization-name" hint="Shown on every visitor pass and at the top of the console, for everyone in it.">
              <input id="organization-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} aria-describedby="organization-name-hint" />
            </Field>
            <Field
              label="Code prefix"
              id="organization-prefix"
              hint={
                <>
                  2 to 6 letters, not used by another company. New codes begin <code>{sampleCode(prefix)}</code>; codes already issued keep theirs (
                  <code>{sampleCode(current.code_prefix)}</code>) and still open the gates until they expire.
                </>
              }
            >
              <input
                id="organization-prefix"
                required
                minLength={2}
                maxLength={6}
                pattern="[A-Za-z]{2,6}"
                autoCapitalize="characters"
                spellCheck={false}
                value={prefix}
                onChange={(e) => setPrefix(e.target.value.toUpperCase().replace(/[^A-Z]/g, ''))}
                aria-describedby="organization-prefix-hint"
              />
            </Field>
            <ErrorNote error={error} />
            {saved && <Notice>Saved. Passes printed from now on read “{saved.name} · visitor pass”; new codes begin {saved.code_prefix}-.</Notice>}
            <FormButtons submit="Save" busy={busy || (name.trim() === current.name && prefix === current.code_prefix)} />
          </form>
          <div className="pass-preview" aria-label="How a new pass begins" data-testid="pass-preview">
            <p className="eyebrow">{name.trim() || current.name} · visitor pass</p>
            <p className="pass-code">{sampleCode(prefix)}</p>
            <p className="muted small">How a new pass begins.</p>
          </div>
        </div>
      )}
      {current && (
        <dl className="facts" aria-label="Plan">
          <dt>Plan</dt>
          <dd>
            {current.plan} ({current.subscription_status})
          </dd>
          <dt>Organization id</dt>
          <dd>
            <code>{current.organization_id}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
