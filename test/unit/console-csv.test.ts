import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '../../console/src/csv.ts';

describe("the console's CSV export", () => {
  it('quotes commas, quotes and line breaks, and writes a missing value as an empty cell', () => {
    expect(csvCell('Gate 2, North')).toBe('"Gate 2, North"');
    expect(csvCell('The "main" gate')).toBe('"The ""main"" gate"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('defuses a cell a visitor wrote that a spreadsheet would run as a formula', () => {
    for (const text of ['=HYPERLINK("http://evil.example","x")', '+2348030000000', '-1+1', '@SUM(A1)'])
      expect(csvCell(text).replace(/^"|"$/g, '').startsWith("'")).toBe(true);
    // A number the screen made (not text someone wrote) stays a number.
    expect(csvCell(-3)).toBe('-3');
  });

  it('a formula behind spaces, no-break or zero-width spaces, a byte-order mark, or in full-width signs is defused too', () => {
    for (const text of [' =1+1', '\u00A0=1+1', '\u200B=1+1', '\uFEFF=1+1', '\u3000@SUM(A1)', '\t\t-2', '\uFF1D1+1', '\uFF20SUM(A1)', '\u2060+1'])
      expect(csvCell(text).replace(/^"|"$/g, '').startsWith("'"), JSON.stringify(text)).toBe(true);
    // Ordinary text that merely contains a sign later is left as it is.
    expect(csvCell('Musa = plumber')).toBe('Musa = plumber');
    expect(csvCell(' Gate A')).toBe(' Gate A');
  });

  it('starts with a byte-order mark and ends each row with CRLF', () => {
    const text = toCsv(['Entry point', 'Check-ins'], [['North gate', 3], ['Ọ̀fà', 1]]);
    expect(text).toBe('\uFEFFEntry point,Check-ins\r\nNorth gate,3\r\nỌ̀fà,1\r\n');
  });
});
