import { describe, expect, it } from 'vitest';
import { ageWords, dutyOf, hourIn, shiftCovers } from '../../server/duty/status.ts';
import type { DutyResponderRow, InHandRow } from '../../server/duty/store.ts';

/** A responder's status and since when, and a shift's hours (server/duty/status.ts): pure. */
const T = '2026-11-29T10:00:00.000Z';
const responder = (changes: Partial<DutyResponderRow> = {}): DutyResponderRow => ({
  responder_id: 'rsp_1', name: 'Ada', environment: 'live', status: 'active', standing: 'verified', available: 1, latitude: 6.45, longitude: 3.4, location_at: T,
  created_at: '2026-01-01T00:00:00.000Z', duty_since: T, out_of_service_reason: null, out_of_service_at: null, out_of_service_by: null, ...changes,
});
const hand = (status: string): InHandRow => ({ responder_id: 'rsp_1', incident_id: 'inc_1', organization_id: 'org_a', status, assigned_at: '2026-11-29T10:01:00.000Z', on_scene_at: status === 'on_scene' ? '2026-11-29T10:09:00.000Z' : null });

describe("a responder's duty status", () => {
  it('out of service first, then the incident in hand, then an open offer, then on or off duty, each since when it began', () => {
    expect(dutyOf(responder({ out_of_service_reason: 'Flat tyre', out_of_service_at: '2026-11-29T09:00:00.000Z' }), hand('on_scene'), T)).toEqual({ duty_status: 'out_of_service', status_since: '2026-11-29T09:00:00.000Z', out_of_service_reason: 'Flat tyre' });
    expect(dutyOf(responder(), hand('on_scene'), T)).toMatchObject({ duty_status: 'on_scene', status_since: '2026-11-29T10:09:00.000Z' });
    expect(dutyOf(responder(), hand('assigned'), T)).toMatchObject({ duty_status: 'en_route', status_since: '2026-11-29T10:01:00.000Z' });
    expect(dutyOf(responder(), hand('responding'), T)).toMatchObject({ duty_status: 'en_route', status_since: '2026-11-29T10:01:00.000Z' });
    expect(dutyOf(responder(), undefined, '2026-11-29T10:05:00.000Z')).toMatchObject({ duty_status: 'offered', status_since: '2026-11-29T10:05:00.000Z' });
    expect(dutyOf(responder(), undefined, undefined)).toMatchObject({ duty_status: 'available', status_since: T });
    expect(dutyOf(responder({ available: 0 }), undefined, undefined)).toMatchObject({ duty_status: 'off_duty', status_since: T });
    // From before migration 0050: dated from its creation.
    expect(dutyOf(responder({ duty_since: null }), undefined, undefined).status_since).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe("a shift's hours", () => {
  it('a day shift covers its start, not its end; an overnight one wraps past midnight; 24 is midnight', () => {
    const day = { start_hour: 8, end_hour: 16 };
    expect([7, 8, 15, 16].map((h) => shiftCovers(day, h))).toEqual([false, true, true, false]);
    const night = { start_hour: 22, end_hour: 6 };
    expect([21, 22, 23, 0, 5, 6].map((h) => shiftCovers(night, h))).toEqual([false, true, true, true, true, false]);
    const evening = { start_hour: 18, end_hour: 0 };
    expect([17, 18, 23, 0].map((h) => shiftCovers(evening, h))).toEqual([false, true, true, false]);
  });

  it('hours are read in the shift time zone', () => {
    expect(hourIn(new Date('2026-11-29T23:30:00.000Z'), 'Africa/Lagos')).toBe(0);
    expect(hourIn(new Date('2026-11-29T23:30:00.000Z'), 'UTC')).toBe(23);
  });

  it('ages in words', () => {
    expect([ageWords(299_000), ageWords(3_600_000), ageWords(7_500_000)]).toEqual(['4 min', '1 h', '2 h 5 min']);
  });
});
