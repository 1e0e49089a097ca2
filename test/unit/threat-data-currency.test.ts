import { describe, expect, it } from 'vitest';
import { currencyOfRoute, yearGaps } from '../../server/threat/data-currency.ts';
import { dayNumber } from '../../server/threat/event-index.ts';

describe('how current threat data is', () => {
  it('names the whole calendar years without an event between the first and the last (Nigeria: 2025)', () => {
    const years = [2021, 2022, 2023, 2024, 2026];
    expect(yearGaps(years, dayNumber('2021-03-01'), dayNumber('2026-02-28'))).toEqual([{ from: '2025-01-01', to: '2025-12-31' }]);
    expect(yearGaps([2010, 2014], dayNumber('2010-05-01'), dayNumber('2014-01-02'))).toEqual([{ from: '2011-01-01', to: '2013-12-31' }]);
    expect(yearGaps([2026], dayNumber('2026-01-01'), dayNumber('2026-02-28'))).toEqual([]);
  });

  it('makes a route as current as its least current checkpoint, and unknown when one has no data', () => {
    const nigeria = { through: '2026-02-28', sources: ['ucdp-ged' as const, 'ucdp-candidate' as const], country: 'NG' };
    const ivoryCoast = { through: '2011-04-27', sources: ['ucdp-ged' as const], country: 'CI' };
    const botswana = { through: null, sources: [], country: 'BW' };
    expect(currencyOfRoute([nigeria, ivoryCoast])).toEqual({ through: '2011-04-27', sources: ['ucdp-ged', 'ucdp-candidate'], country: null });
    expect(currencyOfRoute([nigeria, botswana])).toEqual({ through: null, sources: ['ucdp-ged', 'ucdp-candidate'], country: null });
  });
});
