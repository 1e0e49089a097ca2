import { toCsv, type Cell } from './csv.ts';

/** Saves the CSV as a file: a download made in the page, nothing sent anywhere. */
export function downloadCsv(filename: string, header: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const url = URL.createObjectURL(new Blob([toCsv(header, rows)], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
