import { describe, expect, it } from 'vitest';
import { acledRow } from '../../server/threat/importers/acled.ts';
import { communityFeatures, communityReport } from '../../server/threat/importers/community.ts';
import { calendarDay } from '../../server/threat/importers/fields.ts';
import { ucdpRow } from '../../server/threat/importers/ucdp.ts';
import { isNewerRelease, ucdpRelease } from '../../server/threat/taxonomy.ts';

const AT = '2026-11-22T10:00:00.000Z';

describe('calendar days in the forms event exports use', () => {
  it.each([
    ['2024-03-15', '2024-03-15'],
    ['15 March 2024', '2024-03-15'],
    ['5-Mar-2024', '2024-03-05'],
    ['2024-03-15T23:30:00-02:00', '2024-03-16'],
    ['2024-03-15T00:30:00', '2024-03-15'], // no zone: UTC, whatever the machine's zone
    ['2024-02-30', null],
    ['31 Smarch 2024', null],
    ['', null],
    ['yesterday', null],
  ])('%s is %s', (text, day) => {
    expect(calendarDay(text)).toBe(day);
  });
});

describe('ACLED export rows', () => {
  const row = (overrides: Record<string, string> = {}) => ({
    event_id_cnty: 'NIG12345',
    event_date: '12 January 2025',
    event_type: 'Violence against civilians',
    sub_event_type: 'Attack',
    country: 'Nigeria',
    admin1: 'Zamfara',
    admin2: 'Maru',
    location: 'Dansadau',
    latitude: '11.8',
    longitude: '6.25',
    geo_precision: '1',
    fatalities: '12',
    notes: 'not kept',
    ...overrides,
  });

  it('become events in the one taxonomy, with severity from deaths', () => {
    expect(acledRow(row(), AT)).toEqual({
      event_id: 'acled:NIG12345',
      source: 'public',
      dataset: 'ACLED',
      occurred_on: '2025-01-12',
      latitude: 11.8,
      longitude: 6.25,
      precision: 1,
      type: 'violence_against_civilians',
      severity: 5,
      fatalities: 12,
      weight: 1,
      country: 'Nigeria',
      admin1: 'Zamfara',
      admin2: 'Maru',
      place: 'Dansadau',
      description: 'Violence against civilians: Attack',
      imported_at: AT,
    });
  });

  it.each([
    [{ event_type: 'Battles', sub_event_type: 'Armed clash' }, 'armed_conflict'],
    [{ event_type: 'Explosions/Remote violence', sub_event_type: 'Remote explosive/landmine/IED' }, 'armed_conflict'],
    [{ sub_event_type: 'Abduction/forced disappearance' }, 'kidnapping'],
    [{ event_type: 'Riots', sub_event_type: 'Mob violence' }, 'protest_or_riot'],
    [{ event_type: 'Protests', sub_event_type: 'Peaceful protest' }, 'protest_or_riot'],
    [{ event_type: 'Strategic developments', sub_event_type: 'Looting/property destruction' }, 'crime'],
  ])('%o is %s', (overrides, type) => {
    expect(acledRow(row(overrides), AT)!.type).toBe(type);
  });

  it('skip what is not violence or cannot be placed', () => {
    expect(acledRow(row({ event_type: 'Strategic developments', sub_event_type: 'Agreement' }), AT)).toBeNull();
    expect(acledRow(row({ latitude: '' }), AT)).toBeNull();
    expect(acledRow(row({ event_date: 'soon' }), AT)).toBeNull();
    expect(acledRow(row({ event_id_cnty: ' ' }), AT)).toBeNull();
  });

  it('map geo_precision 3 (a larger region) to a state-level point', () => {
    expect(acledRow(row({ geo_precision: '3' }), AT)!.precision).toBe(4);
  });
});

describe('community reports', () => {
  const report = { id: 'r-1', date: '2026-11-20', latitude: '6.5', longitude: '3.4', type: 'robbery at the junction', confidence: '0.8', place: 'Ojuelegba' };

  it('weigh half a public event times their confidence', () => {
    expect(communityReport(report, AT, 'community reports (x.csv)')).toMatchObject({
      event_id: 'community:r-1',
      source: 'community',
      type: 'armed_robbery',
      weight: 0.4,
      precision: 2,
      severity: 2,
      place: 'Ojuelegba',
    });
  });

  it('need a confidence between 0 and 1', () => {
    expect(communityReport({ ...report, confidence: '' }, AT, 'd')).toBeNull();
    expect(communityReport({ ...report, confidence: '80' }, AT, 'd')).toBeNull();
    expect(communityReport({ ...report, confidence: '1' }, AT, 'd')!.weight).toBe(0.5);
  });

  it('take taxonomy names as they are and anything unknown as other', () => {
    expect(communityReport({ ...report, type: 'kidnapping' }, AT, 'd')!.type).toBe('kidnapping');
    expect(communityReport({ ...report, type: 'Road Incident' }, AT, 'd')!.type).toBe('road_incident');
    expect(communityReport({ ...report, type: 'strange noises' }, AT, 'd')!.type).toBe('other');
  });

  it('read GeoJSON points with their properties', () => {
    const features = communityFeatures({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', id: 'g-1', geometry: { type: 'Point', coordinates: [3.4, 6.5] }, properties: { date: '2026-11-20', type: 'kidnap', confidence: 0.6 } }],
    });
    expect(communityReport(features![0]!, AT, 'd')).toMatchObject({ event_id: 'community:g-1', latitude: 6.5, longitude: 3.4, type: 'kidnapping', weight: 0.3 });
    expect(communityFeatures({ type: 'Feature' })).toBeNull();
  });
});

describe('rows that would poison the scores are skipped', () => {
  const ucdp = (overrides: Record<string, string> = {}) => ({
    id: '1',
    date: '2024-03-15',
    latitude: '11.8',
    longitude: '13.1',
    violence_code: '1',
    deaths_best: '3',
    location_precision: '1',
    ...overrides,
  });

  it.each([
    [{ date: '2024-13-45' }],
    [{ date: '2024-02-30' }],
    [{ deaths_best: '1e400' }],
    [{ deaths_best: '-4' }],
    [{ latitude: '' }],
  ])('UCDP %o', (overrides) => {
    expect(ucdpRow(ucdp(overrides), AT)).toBeNull();
  });

  it('a precision off the 1-7 scale is read as "within ~25 km"; deaths are capped at a million', () => {
    expect(ucdpRow(ucdp({ location_precision: '-1' }), AT)!.precision).toBe(2);
    expect(ucdpRow(ucdp({ location_precision: '1.5' }), AT)!.precision).toBe(2);
    expect(ucdpRow(ucdp({ deaths_best: '1e12' }), AT)!.fatalities).toBe(1_000_000);
  });

  it('community reports and ACLED rows with deaths that are not a number', () => {
    expect(communityReport({ id: 'x', date: '2026-11-20', latitude: '6.5', longitude: '3.4', type: 'attack', confidence: '1', fatalities: 'Infinity' }, AT, 'd')).toBeNull();
    expect(acledRow({ event_id_cnty: 'N1', event_date: '2025-01-12', event_type: 'Battles', latitude: '11.8', longitude: '6.25', fatalities: 'many' }, AT)).toBeNull();
  });
});

describe('UCDP rows: final, provisional and flagged data', () => {
  const row = (overrides: Record<string, string> = {}) => ({
    id: '540001',
    date: '2026-01-14',
    latitude: '11.85',
    longitude: '13.16',
    location_precision: '1',
    violence_code: '3',
    deaths_best: '4',
    source_dataset: 'UCDP GED 25.1 via HDX',
    ...overrides,
  });

  it.each([
    ['a GED row', {}, 1],
    ['a Candidate row', { source_dataset: 'UCDP Candidate Events 26.0.1 (January 2026, provisional)' }, 0.5],
    ['a Candidate row UCDP has cleared', { source_dataset: 'UCDP Candidate Events 26.0.1', code_status: 'Clear' }, 0.5],
    ['a Candidate row flagged for checking', { source_dataset: 'UCDP Candidate Events 26.0.1', code_status: 'Check deaths' }, 0.25],
    ['a row flagged in a check_status column', { check_status: 'check dyad' }, 0.25],
  ])('%s weighs %f', (_what, overrides, weight) => {
    expect(ucdpRow(row(overrides), AT)).toMatchObject({ event_id: 'ucdp:540001', source: 'public', weight });
  });
});

describe('UCDP releases, oldest to newest', () => {
  it('reads the release a dataset label names', () => {
    expect(ucdpRelease('UCDP GED 20.1 via HDX')).toEqual([20, 1]);
    expect(ucdpRelease('UCDP GED release to 2021 (22.1) via HDX, third-party cleaned copy')).toEqual([22, 1]);
    expect(ucdpRelease('UCDP Candidate Events 26.0.2 (February 2026, provisional)')).toEqual([26, 0, 2]);
    expect(ucdpRelease('UCDP GED release to 2021 via HDX')).toBeNull();
  });

  it('orders GED 26.1 over its Candidate previews over GED 25.1 over an unnamed release', () => {
    const order = [null, [25, 1], [26, 0, 1], [26, 0, 2], [26, 1]];
    for (let i = 0; i < order.length; i++) {
      for (let j = 0; j < order.length; j++) expect(isNewerRelease(order[i]!, order[j]!)).toBe(i > j);
    }
  });
});
