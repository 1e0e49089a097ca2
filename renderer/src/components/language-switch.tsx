import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { languages, useI18n } from '../i18n/index.tsx';

/**
 * "Language" in every language the kiosk has (Language · Harshe · Langwej): a guard who reads
 * only Hausa must be able to find the control while the screen is in English.
 */
export function languageLabel(): string {
  return languages.map((module) => module.catalogue['language.label']).join(' · ');
}

interface LanguageSwitchProps {
  onChosen(code: string): void;
  testId?: string;
}

/**
 * Every language by its own name, the current one pressed (and ticked: never colour alone), one
 * tap to pick: the shift screen's, the first a guard sees, and the rail's list.
 */
export function LanguageSwitch({ onChosen, testId = 'language-switch' }: LanguageSwitchProps) {
  const { language } = useI18n();
  const label = languageLabel();
  return (
    <div className="language-switch" role="group" aria-label={label} data-testid={testId}>
      <span className="language-switch-label" aria-hidden="true">
        {label}
      </span>
      <div className="language-switch-options">
        {languages.map((module) => (
          <button
            type="button"
            key={module.language.code}
            lang={module.language.code}
            className={`button language-option ${module.language.code === language ? 'language-current' : ''}`}
            aria-pressed={module.language.code === language}
            data-language={module.language.code}
            onClick={() => onChosen(module.language.code)}
          >
            {module.language.name}
          </button>
        ))}
      </div>
    </div>
  );
}

/** Beside the rail's button: to its right with the rail on the left, above it with the rail along the bottom (upright). */
function placeBeside(button: HTMLElement): CSSProperties {
  const rect = button.getBoundingClientRect();
  const gap = 8;
  if (window.matchMedia('(orientation: portrait)').matches) {
    return { left: Math.max(gap, rect.left), bottom: window.innerHeight - rect.top + gap };
  }
  return { left: rect.right + gap, bottom: Math.max(gap, window.innerHeight - rect.bottom) };
}

/**
 * The side rail's language button: it says what it is in every language, above the current
 * language's own name. A tap opens the list of every language, each in its own name (the
 * shift screen's LanguageSwitch), and one tap on a name picks it: a guard never goes round
 * the others to reach theirs. A tap anywhere else closes the list and still does what it was
 * for (nothing waits behind it, the panic button least of all).
 */
export function RailLanguageButton({ onChosen }: { onChosen(code: string): void }) {
  const { language } = useI18n();
  const label = languageLabel();
  const current = languages.find((module) => module.language.code === language)?.language;
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState<CSSProperties | null>(null);
  const open = place !== null;

  useEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      const target = event.target as Node;
      if (!listRef.current?.contains(target) && !buttonRef.current?.contains(target)) setPlace(null);
    };
    const escape = (event: KeyboardEvent) => event.key === 'Escape' && setPlace(null);
    // The screen turned or resized: the button moved, and the list with it.
    const moved = () => buttonRef.current && setPlace(placeBeside(buttonRef.current));
    document.addEventListener('pointerdown', outside, true);
    document.addEventListener('keydown', escape);
    window.addEventListener('resize', moved);
    return () => {
      document.removeEventListener('pointerdown', outside, true);
      document.removeEventListener('keydown', escape);
      window.removeEventListener('resize', moved);
    };
  }, [open]);

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="nav-small nav-language"
        data-testid="language"
        aria-label={`${label}: ${current?.name ?? language}`}
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setPlace(open ? null : placeBeside(buttonRef.current!))}
      >
        <span className="nav-language-label" aria-hidden="true">
          {languages.map((module, at) => (
            <span key={module.language.code} lang={module.language.code}>
              {module.catalogue['language.label']}
              {at < languages.length - 1 ? ' · ' : ''}
            </span>
          ))}
        </span>
        <span className="nav-language-current" lang={current?.code}>
          {current?.name ?? language}
        </span>
      </button>
      {place && (
        <div className="language-choices" ref={listRef} style={place}>
          <LanguageSwitch
            testId="language-choices"
            onChosen={(code) => {
              setPlace(null);
              onChosen(code);
            }}
          />
        </div>
      )}
    </>
  );
}
