import { describe, expect, it } from 'vitest';
import { describeClockSkew } from '../../console/src/kiosks/clock-skew.ts';

const YEAR_S = 365.25 * 24 * 3600;

describe("the kiosks screen's clock column", () => {
  it('says a clock within a second is in step, and a queued heartbeat told nothing', () => {
    expect(describeClockSkew(0.4)).toEqual({ text: 'in step', warn: false });
    expect(describeClockSkew(null)).toEqual({ text: 'unknown (last heartbeat was queued)', warn: false });
  });

  it('says seconds, minutes, hours and days as such, and warns past a minute', () => {
    expect(describeClockSkew(-8.5)).toEqual({ text: '8.5 s behind', warn: false });
    expect(describeClockSkew(-42)).toEqual({ text: '42 s behind', warn: false });
    expect(describeClockSkew(2.5)).toEqual({ text: '2.5 s ahead', warn: false });
    expect(describeClockSkew(61)).toEqual({ text: '1 min ahead', warn: true });
    expect(describeClockSkew(-14 * 60)).toEqual({ text: '14 min behind', warn: true });
    expect(describeClockSkew(3 * 3600 + 100)).toEqual({ text: '3 h ahead', warn: true });
    expect(describeClockSkew(-9 * 86400)).toEqual({ text: '9 days behind', warn: true });
    expect(describeClockSkew(86400)).toEqual({ text: '1 day ahead', warn: true });
  });

  it('says a clock whose battery died (1970, or 9999) in years, not billions of seconds (issue #46)', () => {
    const since1970 = (Date.parse('1970-01-01T00:00:00Z') - Date.parse('2026-11-22T10:00:00Z')) / 1000;
    expect(describeClockSkew(since1970)).toEqual({ text: '57 years behind', warn: true });
    const to9999 = (Date.parse('9999-12-31T23:59:59.900Z') - Date.parse('2026-11-22T10:00:00Z')) / 1000;
    expect(describeClockSkew(to9999)).toEqual({ text: '7,973 years ahead', warn: true });
    expect(describeClockSkew(-YEAR_S)).toEqual({ text: '1 year behind', warn: true });
  });
});
