import { languages, useI18n } from '../i18n/index.tsx';

/**
 * "Language" in every language the kiosk has (Language · Harshe · Langwej): a guard who reads
 * only Hausa must be able to find the control while the screen is in English.
 */
export function languageLabel(): string {
  return languages.map((module) => module.catalogue['language.label']).join(' · ');
}

/** Every language by its own name, the current one pressed: the shift screen's, the first a guard sees. */
export function LanguageSwitch({ onChosen }: { onChosen(code: string): void }) {
  const { language } = useI18n();
  const label = languageLabel();
  return (
    <div className="language-switch" role="group" aria-label={label} data-testid="language-switch">
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

/**
 * The side rail's language button: it says what it is in every language, above the current
 * language's own name, and a tap moves to the next language.
 */
export function RailLanguageButton({ onChosen }: { onChosen(code: string): void }) {
  const { language } = useI18n();
  const label = languageLabel();
  const index = languages.findIndex((module) => module.language.code === language);
  const current = languages[index]?.language;
  return (
    <button
      type="button"
      className="nav-small nav-language"
      data-testid="language"
      aria-label={`${label}: ${current?.name ?? language}`}
      onClick={() => onChosen(languages[(index + 1) % languages.length]!.language.code)}
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
  );
}
