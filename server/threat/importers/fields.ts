/** Field readers every importer shares. */

export const blank = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
};

/** A number from a text field; NaN when blank (Number('') would be 0, a real place in the ocean). */
export const numberField = (value: unknown): number => (blank(value) === null ? NaN : Number(value));

export const validPoint = (latitude: number, longitude: number) =>
  Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 && !(latitude === 0 && longitude === 0);

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * A calendar day as YYYY-MM-DD from the forms event exports use: `2024-03-15`, an ISO
 * timestamp (its UTC day), `15 March 2024` (ACLED's export) or `15-Mar-2024`. Null otherwise.
 */
export function calendarDay(value: unknown): string | null {
  const text = blank(value);
  if (!text) return null;
  let year: number, month: number, day: number;
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(text);
  const named = /^(\d{1,2})[\s-]+([A-Za-z]+)[\s-]+(\d{4})$/.exec(text);
  if (iso && text.length > 10) {
    // A timestamp without a zone is read as UTC, whatever the importing machine's zone.
    const at = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
    if (Number.isNaN(at.getTime())) return null;
    return at.toISOString().slice(0, 10);
  } else if (iso) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (named) {
    const index = MONTHS.findIndex((name) => name.startsWith(named[2]!.toLowerCase()) && named[2]!.length >= 3);
    if (index < 0) return null;
    [year, month, day] = [Number(named[3]), index + 1, Number(named[1])];
  } else {
    return null;
  }
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

/** Deaths as a whole number; 0 when blank; null when not a finite number (the row is unusable). Capped at 1,000,000. */
export function deathsField(value: unknown): number | null {
  const text = blank(value);
  if (text === null) return 0;
  const deaths = Number(text);
  if (!Number.isFinite(deaths) || deaths < 0) return null;
  return Math.min(1_000_000, Math.round(deaths));
}

/** A location precision on UCDP's 1-7 scale; anything else (blank, -1, 1.5) is the fallback. */
export function precisionField(value: unknown, fallback: number): number {
  const precision = Number(blank(value) ?? NaN);
  return Number.isInteger(precision) && precision >= 1 && precision <= 7 ? precision : fallback;
}
