import { describe, expect, it } from 'vitest';
import { splitDays, splitWindow } from '../../server/db/tallies.ts';

describe('a list window split into tallied whole days and partial days', () => {
  it('splits an instant-to-instant window at day boundaries', () => {
    expect(splitWindow('2026-11-01T10:00:00.000Z', '2026-11-05T06:00:00.000Z')).toEqual({
      wholeFrom: '2026-11-02T00:00:00.000Z',
      wholeBefore: '2026-11-05T00:00:00.000Z',
      edges: [
        ['2026-11-01T10:00:00.000Z', '2026-11-02T00:00:00.000Z'],
        ['2026-11-05T00:00:00.000Z', '2026-11-05T06:00:00.000Z'],
      ],
      empty: false,
    });
  });

  it('a window from inside 31 December 9999 has no whole day after it, so no tally of any earlier day counts', () => {
    // The next day would be "+010000-01-01", which sorts before "2026-..." and counted every tally (hostile-input's property found it).
    expect(splitWindow('9999-12-31T00:00:00.001Z')).toEqual({ edges: [['9999-12-31T00:00:00.001Z', undefined]], empty: true });
    expect(splitWindow('9999-12-31T12:00:00.000Z', '9999-12-31T13:00:00.000Z')).toEqual({ edges: [['9999-12-31T12:00:00.000Z', '9999-12-31T13:00:00.000Z']], empty: true });
    expect(splitWindow('9999-12-31T00:00:00.000Z')).toMatchObject({ wholeFrom: '9999-12-31T00:00:00.000Z', edges: [], empty: false });
  });

  it('whole days from inside December 9999 have no whole month after them: read by their own month, less its earlier days', () => {
    expect(splitDays('9999-12-15')).toEqual({ months: { from: '9999-12', before: undefined }, days: [], less: [['9999-12-01', '9999-12-15']] });
    expect(splitDays('9999-12-01')).toEqual({ months: { from: '9999-12', before: undefined }, days: [], less: [] });
    expect(splitDays('9999-12-15', '9999-12-20')).toEqual({ days: [['9999-12-15', '9999-12-20']], less: [] });
    expect(splitDays('2026-11-20', '2027-01-01')).toEqual({ months: { from: '2026-12', before: '2027-01' }, days: [['2026-11-20', '2026-12-01']], less: [] });
  });
});
