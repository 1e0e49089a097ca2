import { describe, expect, it } from 'vitest';
import { batches, readVisitorCsv } from '../../console/src/visitors/visitor-csv.ts';

describe("the console's guest-list CSV", () => {
  it('reads a header row with the API names or a spreadsheet’s plain ones', () => {
    const list = readVisitorCsv('\uFEFFName,Phone,Gate,max_uses\r\n"Obi, Ada",+2348030000001,North gate,2\r\nMusa Bello,08030000002,,\r\n');
    expect(list.problems).toEqual([]);
    expect(list.visitors).toEqual([
      { visitor_name: 'Obi, Ada', visitor_phone: '+2348030000001', entry_point: 'North gate', max_uses: 2 },
      { visitor_name: 'Musa Bello', visitor_phone: '08030000002' },
    ]);
  });

  it('checks the whole file by the server’s rules and sends nothing when any row is bad, naming each row and field', () => {
    const list = readVisitorCsv('visitor_name,visitor_phone,visitor_email\nAda,+2348030000001,ada@example.ng\n,+2348030000002,\nChidi,1,not-an-email\n');
    expect(list.visitors).toEqual([]);
    expect(list.problems).toEqual([
      expect.stringMatching(/^Row 3: visitor_name: /),
      expect.stringMatching(/^Row 4: visitor_phone: /),
      expect.stringMatching(/^Row 4: visitor_email: /),
    ]);
  });

  it('refuses unknown columns, a missing name or phone column, and an empty list', () => {
    expect(readVisitorCsv('visitor_name,car\nAda,KJA-123\n').problems).toEqual([
      expect.stringContaining('Unknown columns: car'),
      'The header must name visitor_name and visitor_phone.',
    ]);
    expect(readVisitorCsv('visitor_name,visitor_phone\n').problems).toEqual(['The file has a header and no visitors.']);
    expect(readVisitorCsv('').problems).toEqual(['The file is empty.']);
  });

  it('sends a list of 120 as batches of 50, 50 and 20, in order', () => {
    const list = Array.from({ length: 120 }, (_, i) => i);
    expect(batches(list).map((batch) => batch.length)).toEqual([50, 50, 20]);
    expect(batches(list).flat()).toEqual(list);
  });
});
