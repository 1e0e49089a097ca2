import { useState } from 'react';
import type { ConfigureCheck, SetupStatus } from '../../../shared/kiosk/calls.ts';
import { readSetupText } from '../../../shared/kiosk/setup-text.ts';
import { CameraView } from '../components/camera-view.tsx';
import { useI18n, type MessageKey } from '../i18n/index.tsx';
import { useKiosk } from '../kiosk/kiosk-context.tsx';

type Field = 'serverUrl' | 'apiKey' | 'entryPoint' | 'latitude' | 'longitude' | 'alarmPhones';
// Technical examples are the same in every language; the gate's name is not.
const FIELDS: { name: Field; label: MessageKey; type: string; placeholder: string | { key: MessageKey } }[] = [
  { name: 'serverUrl', label: 'setup.serverUrl', type: 'url', placeholder: 'https://tsaro.example.ng/v1/external' },
  { name: 'apiKey', label: 'setup.apiKey', type: 'password', placeholder: 'svc_live_…' },
  { name: 'entryPoint', label: 'setup.entryPoint', type: 'text', placeholder: { key: 'setup.entryPoint.example' } },
  { name: 'latitude', label: 'setup.latitude', type: 'text', placeholder: '6.5244' },
  { name: 'longitude', label: 'setup.longitude', type: 'text', placeholder: '3.3792' },
  { name: 'alarmPhones', label: 'setup.alarmPhones', type: 'text', placeholder: '0803 000 0000, 112' },
];

/** Which field a failed server check is about. */
const CHECK_FIELD: Record<string, Field> = { reachable: 'serverUrl', key_valid: 'apiKey', scopes: 'apiKey', not_admin: 'apiKey' };

/** The fields a refusal is about: the failed checks', or the one a 400 names first. */
function markedFields(checks: ConfigureCheck[], error: string | null): Set<Field> {
  const marked = new Set<Field>(checks.filter((check) => !check.ok && CHECK_FIELD[check.name]).map((check) => CHECK_FIELD[check.name]!));
  const named = error ? FIELDS.find((field) => error.startsWith(field.name)) : undefined;
  if (named) marked.add(named.name);
  return marked;
}

/**
 * The first-run step of a fresh kiosk, done once by whoever installs it: the setup QR code the
 * console shows for a new gate is scanned with the kiosk's own camera (issue #48), or the values
 * are typed; the core checks the URL and key against the server before it saves anything.
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
    alarmPhones: setup?.alarmPhones ?? '',
  });
  const [checks, setChecks] = useState<ConfigureCheck[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [badNumbers, setBadNumbers] = useState<Field[]>([]);
  const [scanning, setScanning] = useState(false);
  const [scanNote, setScanNote] = useState<'scanned' | 'not-setup' | null>(null);

  /** A code the camera read: a gate's setup fills the form (nothing is saved until the check); anything else is said so. */
  const onScanned = (text: string) => {
    const read = readSetupText(text);
    if (!read) {
      setScanNote('not-setup');
      return;
    }
    setValues((current) => ({
      ...current,
      serverUrl: read.serverUrl,
      apiKey: read.apiKey,
      entryPoint: read.entryPoint,
      latitude: String(read.latitude),
      longitude: String(read.longitude),
    }));
    setChecks([]);
    setError(null);
    setBadNumbers([]);
    setScanNote('scanned');
    setScanning(false);
  };

  const save = async () => {
    const latitude = Number(values.latitude);
    const longitude = Number(values.longitude);
    const bad = (['latitude', 'longitude'] as const).filter((name) => !values[name].trim() || !Number.isFinite(Number(values[name])));
    setBadNumbers(bad);
    if (bad.length) {
      setChecks([]);
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
        ...(values.alarmPhones.trim() ? { alarmPhones: values.alarmPhones.trim() } : {}),
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

  const marked = markedFields(checks, error);
  for (const name of badNumbers) marked.add(name);
  const problemOf = (name: Field) => checks.find((check) => !check.ok && CHECK_FIELD[check.name] === name)?.message;

  return (
    <section className="screen setup-screen" aria-label={t('setup.title')}>
      <h1>{t('setup.title')}</h1>
      <p>{t('setup.intro')}</p>
      {scanning ? (
        <div className="setup-scan" data-testid="setup-camera">
          <p className="setup-scan-hint">{t('setup.scanHint')}</p>
          <div className="setup-scan-camera">
            <CameraView onDecode={onScanned} paused={false} />
          </div>
          {scanNote === 'not-setup' && (
            <p className="form-error" role="alert">
              {t('setup.notSetupQr')}
            </p>
          )}
          <button type="button" className="button button-secondary" onClick={() => setScanning(false)} data-testid="setup-type-instead">
            {t('setup.typeInstead')}
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="button button-primary setup-scan-button"
          onClick={() => {
            setScanNote(null);
            setScanning(true);
          }}
          data-testid="setup-scan"
        >
          {t('setup.scan')}
        </button>
      )}
      {scanNote === 'scanned' && !scanning && (
        <p className="setup-scanned" role="status" data-testid="setup-scanned">
          ✓ {t('setup.scanned')}
        </p>
      )}
      <form
        className="setup-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {FIELDS.map((field) => (
          <label key={field.name} className={`field field-${field.name}${marked.has(field.name) ? ' field-invalid' : ''}`}>
            <span className="field-label">{t(field.label)}</span>
            <input
              name={field.name}
              type={field.type}
              autoComplete="off"
              spellCheck={false}
              placeholder={typeof field.placeholder === 'string' ? field.placeholder : t(field.placeholder.key)}
              aria-invalid={marked.has(field.name) || undefined}
              value={values[field.name]}
              onChange={(event) => setValues((current) => ({ ...current, [field.name]: event.target.value }))}
            />
            {problemOf(field.name) && <span className="field-problem">{problemOf(field.name)}</span>}
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
