import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Catalogue, Params, Translate } from './en.ts';

export type { MessageKey, Params, Translate } from './en.ts';

interface LanguageModule {
  language: { code: string; name: string };
  catalogue: Catalogue;
}

// Every catalogue beside this file is picked up: adding a language is adding one file.
const modules = import.meta.glob<LanguageModule>(['./*.ts'], { eager: true });
export const languages: LanguageModule[] = Object.values(modules).filter((module) => module.catalogue && module.language);

const LANGUAGE_KEY = 'tsaro.language';

interface I18n {
  t: Translate;
  language: string;
  setLanguage(code: string): void;
}

const I18nContext = createContext<I18n | null>(null);

export function fill(text: string, params: Params = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState(() => localStorage.getItem(LANGUAGE_KEY) ?? 'en');
  const catalogue = (languages.find((module) => module.language.code === language) ?? languages.find((module) => module.language.code === 'en'))!.catalogue;
  const t = useCallback<Translate>((key, params) => fill(catalogue[key] ?? key, params), [catalogue]);
  const setLanguage = useCallback((code: string) => {
    localStorage.setItem(LANGUAGE_KEY, code);
    setLanguageState(code);
  }, []);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  const value = useMemo(() => ({ t, language, setLanguage }), [t, language, setLanguage]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
