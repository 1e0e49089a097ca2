import type { Schemas } from '../api.ts';

type Site = Schemas['Site'];
export type Language = NonNullable<Site['call_list'][number]['language']>;
export type Caller = { name: string; phone: string; language?: Language };

/** The languages texts are written in, each by its own name (the kiosk's three). */
export const LANGUAGES: ReadonlyArray<[Language, string]> = [
  ['en', 'English'],
  ['ha', 'Hausa'],
  ['pcm', 'Pidgin'],
];

/** The call-list rows a form holds: blank rows are left out of what is sent; English is the default, not sent. */
export const filled = (rows: Caller[]) =>
  rows
    .map((row) => ({ name: row.name.trim(), phone: row.phone.trim(), ...(row.language && row.language !== 'en' ? { language: row.language } : {}) }))
    .filter((row) => row.name || row.phone);

/** Who to call when nobody comes, in order: a row per number, added and removed in place. */
export function CallListEditor({ rows, onChange, idPrefix }: { rows: Caller[]; onChange: (rows: Caller[]) => void; idPrefix: string }) {
  const set = (index: number, change: Partial<Caller>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="stack-tight call-list-editor">
      <legend>Call list: who to call when nobody comes, in order</legend>
      {rows.map((row, index) => (
        <p className="row" key={index}>
          <label htmlFor={`${idPrefix}-name-${index}`}>Name {index + 1}</label>
          <input id={`${idPrefix}-name-${index}`} value={row.name} maxLength={80} onChange={(e) => set(index, { name: e.target.value })} placeholder="Estate control" />
          <label htmlFor={`${idPrefix}-phone-${index}`}>Phone {index + 1}</label>
          <input id={`${idPrefix}-phone-${index}`} value={row.phone} maxLength={40} inputMode="tel" onChange={(e) => set(index, { phone: e.target.value })} placeholder="0803 123 4567" />
          <label htmlFor={`${idPrefix}-language-${index}`}>Texts in {index + 1}</label>
          <select id={`${idPrefix}-language-${index}`} value={row.language ?? 'en'} onChange={(e) => set(index, { language: e.target.value as Language })}>
            {LANGUAGES.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
          <button type="button" className="link" onClick={() => onChange(rows.filter((_, at) => at !== index))}>
            Remove
          </button>
        </p>
      ))}
      {rows.length < 10 && (
        <button type="button" onClick={() => onChange([...rows, { name: '', phone: '' }])}>
          Add a number
        </button>
      )}
    </fieldset>
  );
}
