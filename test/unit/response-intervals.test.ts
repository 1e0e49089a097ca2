import { describe, expect, it } from 'vitest';
import { incidentIntervals, intervalReport, intervalReportCsv, intervalWindow, percentile, type IntervalRow } from '../../server/incidents/intervals.ts';

/** The response intervals' arithmetic (issue #47), by hand: exact percentiles, first milestones, groups and the CSV. */
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (seconds: number | null) => (seconds === null ? null : new Date(T0 + seconds * 1000).toISOString());

function row(overrides: Partial<IntervalRow> & { id: string; times: [number | null, number | null, number | null, number | null] }): IntervalRow {
  const [firstOffer, accepted, enRoute, onScene] = overrides.times;
  return {
    incident_id: overrides.id,
    organization_id: 'org_1',
    organization_name: 'Lekki Gardens',
    site_id: null,
    site_name: null,
    responder_id: null,
    responder_name: null,
    status: 'resolved',
    latitude: 6.45,
    longitude: 3.4,
    created_at: at(0)!,
    first_offer_at: at(firstOffer),
    accepted_at: at(accepted),
    en_route_at: at(enRoute),
    on_scene_at: at(onScene),
    resolved_at: null,
    ...overrides,
  };
}

describe('percentile', () => {
  it('is exact: interpolated between the two nearest ranks, whatever the order given', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([42], 0.9)).toBe(42);
    expect(percentile([200, 120], 0.5)).toBe(160);
    expect(percentile([200, 120], 0.9)).toBe(192);
    expect(percentile([71, 10, 20], 0.9)).toBe(60.8);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5.5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9.1);
  });
});

describe('the intervals of one incident', () => {
  it('runs each interval between its two milestones, null until both happened', () => {
    expect(incidentIntervals(row({ id: 'inc_a', times: [3, 23.4, 53.4, 173.4] }))).toMatchObject({
      call_processing_s: 3,
      offer_to_accept_s: 20.4,
      turnout_s: 30,
      travel_s: 120,
      total_s: 173.4,
    });
    expect(incidentIntervals(row({ id: 'inc_b', times: [0, null, null, null] }))).toMatchObject({ call_processing_s: 0, offer_to_accept_s: null, turnout_s: null, travel_s: null, total_s: null });
  });
});

describe('the report', () => {
  it('groups by site with incidents at no site last, and writes formulas a person typed as text in the CSV', () => {
    const rows = [
      row({ id: 'inc_1', site_id: 'site_b', site_name: '=HYPERLINK("x")', times: [0, 10, 20, 60] }),
      row({ id: 'inc_2', times: [5, 15, 25, 85] }),
      row({ id: 'inc_3', site_id: 'site_a', site_name: 'Admiralty', times: [0, 30, 40, 100] }),
    ];
    const report = intervalReport(rows, { from: at(-60)!, to: at(600)! }, 'site');
    expect(report.groups.map((group) => group.label)).toEqual(['=HYPERLINK("x")', 'Admiralty', 'No site']);
    expect(report.overall.total).toEqual({ count: 3, p50_s: 85, p90_s: 97 });
    const csv = intervalReportCsv(report);
    expect(csv.startsWith('\uFEFFsite,key,incidents,')).toBe(true);
    expect(csv).toContain(`"'=HYPERLINK(""x"")",site_b,1,`);
  });

  it('takes a window of at most 92 days, 30 days to now by default', () => {
    const now = new Date(T0);
    expect(intervalWindow({}, now)).toEqual({ from: new Date(T0 - 30 * 86_400_000).toISOString(), to: now.toISOString() });
    expect(() => intervalWindow({ from_date: '2026-01-01', to_date: '2026-06-01' }, now)).toThrow(/from_date/);
    expect(() => intervalWindow({ from_date: '2026-06-01', to_date: '2026-01-01' }, now)).toThrow(/before to_date/);
  });
});
