/**
 * CSV for a spreadsheet: made in the browser from what the screen shows, or by the server for a
 * report asked for as CSV. A cell a partner or visitor wrote may begin with `=`, `+`, `-` or `@`, which a spreadsheet runs as a formula
 * (CSV injection): such a cell is written with a leading apostrophe, as OWASP advises. Leading
 * spaces, no-break and zero-width spaces, a byte-order mark and the full-width forms of those
 * signs do not hide one: spreadsheets skip or read them as the sign.
 */
export type Cell = string | number | boolean | null | undefined;

const FORMULA = /^[\s\u00A0\u1680\u180E\u2000-\u200F\u2028-\u202F\u205F-\u2064\u3000\uFEFF]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows as CSV text, CRLF between rows (RFC 4180), with a byte-order mark so spreadsheets read UTF-8. */
export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return `\uFEFF${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
