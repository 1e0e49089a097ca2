import { useRef, useState } from 'react';
import type { WalkInResult } from '../../../shared/kiosk/calls.ts';
import { OnScreenKeyboard } from '../components/on-screen-keyboard.tsx';
import { addCharacter } from '../kiosk/format.ts';
import { useI18n, type MessageKey } from '../i18n/index.tsx';
import { useKiosk } from '../kiosk/kiosk-context.tsx';

type Field = 'visitorName' | 'visitorPhone' | 'hostUserId' | 'notes';
const FIELDS: { name: Field; label: MessageKey; required: boolean; type: string }[] = [
  { name: 'visitorName', label: 'walkIn.name', required: true, type: 'text' },
  { name: 'visitorPhone', label: 'walkIn.phone', required: true, type: 'tel' },
  { name: 'hostUserId', label: 'walkIn.host', required: true, type: 'text' },
  { name: 'notes', label: 'walkIn.notes', required: false, type: 'text' },
];
const EMPTY: Record<Field, string> = { visitorName: '', visitorPhone: '', hostUserId: '', notes: '' };

interface WalkInScreenProps {
  onDone(result: WalkInResult, name: string): void;
  onError(message: string): void;
}

/** A visitor without a pass: four fields, typed on the screen's own keyboard, then one tap. */
export function WalkInScreen({ onDone, onError }: WalkInScreenProps) {
  const { t } = useI18n();
  const kiosk = useKiosk();
  const [values, setValues] = useState(EMPTY);
  const [active, setActive] = useState<Field>('visitorName');
  const [missing, setMissing] = useState<Field[]>([]);
  const [saving, setSaving] = useState(false);
  const inputs = useRef<Partial<Record<Field, HTMLInputElement | null>>>({});

  const set = (field: Field, value: string) => {
    setValues((current) => ({ ...current, [field]: value }));
    setMissing((current) => current.filter((name) => name !== field));
  };

  const submit = async () => {
    const empty = FIELDS.filter((field) => field.required && !values[field.name].trim()).map((field) => field.name);
    setMissing(empty);
    if (empty.length) {
      setActive(empty[0]!);
      inputs.current[empty[0]!]?.focus();
      return;
    }
    setSaving(true);
    try {
      const result = await kiosk.call('walkIn', {
        visitorName: values.visitorName.trim(),
        visitorPhone: values.visitorPhone.trim(),
        hostUserId: values.hostUserId.trim(),
        ...(values.notes.trim() ? { notes: values.notes.trim() } : {}),
      });
      onDone(result, values.visitorName.trim());
      setValues(EMPTY);
      setActive('visitorName');
    } catch (error) {
      onError((error as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="screen walk-in-screen" aria-label={t('walkIn.title')}>
      <form
        className="walk-in-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        {FIELDS.map((field) => (
          <label key={field.name} className={`field ${active === field.name ? 'field-active' : ''} ${missing.includes(field.name) ? 'field-missing' : ''}`}>
            <span className="field-label">{t(field.label)}</span>
            <input
              ref={(element) => {
                inputs.current[field.name] = element;
              }}
              name={field.name}
              type={field.type}
              inputMode="none"
              autoComplete="off"
              value={values[field.name]}
              onFocus={() => setActive(field.name)}
              onChange={(event) => set(field.name, event.target.value)}
            />
          </label>
        ))}
        <button type="submit" className="button button-primary walk-in-submit" disabled={saving} data-testid="walk-in-submit">
          {t('walkIn.submit')}
        </button>
      </form>
      {missing.length > 0 && (
        <p className="form-error" role="alert">
          {t('walkIn.missing', { fields: missing.map((name) => t(FIELDS.find((field) => field.name === name)!.label)).join(', ') })}
        </p>
      )}
      <OnScreenKeyboard
        layout="text"
        onKey={(character) => set(active, addCharacter(values[active], character, active))}
        onBackspace={() => set(active, values[active].slice(0, -1))}
      />
    </section>
  );
}
