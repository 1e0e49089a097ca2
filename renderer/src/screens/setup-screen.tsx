import { useState } from 'react';
import type { ConfigureCheck, SetupStatus } from '../../../shared/kiosk/calls.ts';
import { useI18n, type MessageKey } from '../i18n/index.tsx';
import { useKiosk } from '../kiosk/kiosk-context.tsx';

type Field = 'serverUrl' | 'apiKey' | 'entryPoint' | 'latitude' | 'longitude';
// Technical examples are the same in every language; the gate's name is not.
const FIELDS: { name: Field; label: MessageKey; type: string; placeholder: string | { key: MessageKey } }[] = [
  { name: 'serverUrl', label: 'setup.serverUrl', type: 'url', placeholder: 'https://tsaro.example.ng/v1/external' },
  { name: 'apiKey', label: 'setup.apiKey', type: 'password', placeholder: 'svc_live_…' },
  { name: 'entryPoint', label: 'setup.entryPoint', type: 'text', placeholder: { key: 'setup.entryPoint.example' } },
  { name: 'latitude', label: 'setup.latitude', type: 'text', placeholder: '6.5244' },
  { name: 'longitude', label: 'setup.longitude', type: 'text', placeholder: '3.3792' },
];

/**
 * The first-run step of a fresh kiosk, done once by whoever installs it (with a keyboard): the
 * core checks the URL and key against the server before it saves anything.
 */
export function SetupScreen({ setup, onSaved }: { setup: SetupStatus | null; onSaved(): void }) {
  const { t } = useI18n();
  const kiosk = useKiosk();
  const [values, setValues] = useState<Record<Field, string>>({
    serverUrl: setup?.serverUrl ?? '',
    apiKey: '',
    entryPoint: setup?.entryPoint ?? '',
    latitude: setup?.latitude?.toString() ?? '',
    longitude: setup?.longitude?.toString() ?? '',
  });
  const [checks, setChecks] = useState<ConfigureCheck[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    const latitude = Number(values.latitude);
    const longitude = Number(values.longitude);
    if (!values.latitude.trim() || !values.longitude.trim() || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
      setError(t('setup.badNumber'));
      return;
    }
    setSaving(true);
    setError(null);
    setChecks([]);
    try {
      const result = await kiosk.call('configure', {
        serverUrl: values.serverUrl.trim(),
        apiKey: values.apiKey.trim(),
        entryPoint: values.entryPoint.trim(),
        latitude,
        longitude,
      });
      setChecks(result.checks);
      if (result.saved) onSaved();
      else setError(t('setup.failed'));
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="screen setup-screen" aria-label={t('setup.title')}>
      <h1>{t('setup.title')}</h1>
      <p>{t('setup.intro')}</p>
      <form
        className="setup-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {FIELDS.map((field) => (
          <label key={field.name} className={`field field-${field.name}`}>
            <span className="field-label">{t(field.label)}</span>
            <input
              name={field.name}
              type={field.type}
              autoComplete="off"
              spellCheck={false}
              placeholder={typeof field.placeholder === 'string' ? field.placeholder : t(field.placeholder.key)}
              value={values[field.name]}
              onChange={(event) => setValues((current) => ({ ...current, [field.name]: event.target.value }))}
            />
          </label>
        ))}
        <button type="submit" className="button button-primary setup-save" disabled={saving} data-testid="setup-save">
          {saving ? t('setup.checking') : t('setup.save')}
        </button>
      </form>
      {error && (
        <p className="form-error" role="alert" data-testid="setup-error">
          {error}
        </p>
      )}
      {checks.length > 0 && (
        <ul className="setup-checks">
          {checks.map((check) => (
            <li key={check.name} className={check.ok ? 'check-ok' : 'check-failed'}>
              {check.ok ? '✓' : '✕'} {check.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
