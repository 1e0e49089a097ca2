import { useState } from 'react';
import { LanguageSwitch } from '../components/language-switch.tsx';
import { OnScreenKeyboard } from '../components/on-screen-keyboard.tsx';
import { useI18n } from '../i18n/index.tsx';
import { useKiosk } from '../kiosk/kiosk-context.tsx';

type Field = 'guardName' | 'guardPhone';

/** The guard on duty says who they are: they are named on every entry and on an SOS. */
interface ShiftScreenProps {
  /** The guard's name, and whether they chose a language here (then it is theirs from now on). */
  onStarted(guardName: string, choseLanguage: boolean): void;
  /** A language chosen on this screen, before the guard has given a name. */
  onLanguage(code: string): void;
  /** Present when a guard is already on duty: changing guards can be called off. */
  onCancel?: () => void;
  onError(message: string): void;
}

export function ShiftScreen({ onStarted, onLanguage, onCancel, onError }: ShiftScreenProps) {
  const { t } = useI18n();
  const kiosk = useKiosk();
  const [values, setValues] = useState<Record<Field, string>>({ guardName: '', guardPhone: '' });
  const [active, setActive] = useState<Field>('guardName');
  const [choseLanguage, setChoseLanguage] = useState(false);

  const start = async () => {
    if (!values.guardName.trim()) return;
    try {
      await kiosk.call('startShift', {
        guardName: values.guardName.trim(),
        ...(values.guardPhone.trim() ? { guardPhone: values.guardPhone.trim() } : {}),
      });
      onStarted(values.guardName.trim(), choseLanguage);
    } catch (error) {
      onError((error as Error).message);
    }
  };

  const type = (character: string) =>
    setValues((current) => {
      const text = current[active];
      if (active === 'guardPhone') return /[0-9+ -]/.test(character) ? { ...current, guardPhone: text + character } : current;
      const startsWord = text.length === 0 || text.endsWith(' ');
      return { ...current, guardName: text + (startsWord ? character.toUpperCase() : character.toLowerCase()) };
    });

  return (
    <section className="screen shift-screen" aria-label={t('shift.title')}>
      <form
        className="shift-form"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <LanguageSwitch
          onChosen={(code) => {
            setChoseLanguage(true);
            onLanguage(code);
          }}
        />
        <h1>{t('shift.title')}</h1>
        {(['guardName', 'guardPhone'] as const).map((field) => (
          <label key={field} className={`field ${active === field ? 'field-active' : ''}`}>
            <span className="field-label">{field === 'guardName' ? t('shift.name') : t('shift.phone')}</span>
            <input
              name={field}
              type={field === 'guardPhone' ? 'tel' : 'text'}
              inputMode="none"
              autoComplete="off"
              value={values[field]}
              onFocus={() => setActive(field)}
              onChange={(event) => setValues((current) => ({ ...current, [field]: event.target.value }))}
            />
          </label>
        ))}
        <button type="submit" className="button button-primary" disabled={!values.guardName.trim()} data-testid="shift-start">
          {t('shift.start')}
        </button>
        {onCancel && (
          <button type="button" className="button button-secondary shift-cancel" onClick={onCancel}>
            {t('shift.cancel')}
          </button>
        )}
      </form>
      <OnScreenKeyboard layout="text" onKey={type} onBackspace={() => setValues((current) => ({ ...current, [active]: current[active].slice(0, -1) }))} />
    </section>
  );
}
