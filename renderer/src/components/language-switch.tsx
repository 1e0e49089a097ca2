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
