import { describe, expect, it } from 'vitest';
import { ucdpRow } from '../../server/threat/importers/ucdp.ts';
import { severityFromDeaths } from '../../server/threat/taxonomy.ts';

const row = (overrides: Record<string, string> = {}) => ({
  id: '17030',
  date: '1990-10-30',
  latitude: '5.007180',
  longitude: '7.031920',
  location_precision: '1',
  country: 'Nigeria',
  admin1: 'Rivers state',
  admin2: 'Etche lga',
  location: 'Umu-Etchem village',
  violence_code: '3',
  conflict_name: 'Government of Nigeria - Civilians',
  dyad_name: 'Government of Nigeria - Civilians',
  deaths_best: '80',
  source_dataset: 'UCDP GED 20.1 via HDX',
  ...overrides,
});

describe('threat event taxonomy', () => {
  it.each([
    [0, 'communal_violence', 1],
    [0, 'armed_conflict', 2],
    [1, 'communal_violence', 2],
    [1, 'violence_against_civilians', 3],
    [9, 'communal_violence', 4],
    [99, 'communal_violence', 6],
    [999, 'armed_conflict', 10],
    [48_183, 'armed_conflict', 10],
  ] as const)('%i deaths in %s is severity %i', (deaths, type, severity) => {
    expect(severityFromDeaths(deaths, type)).toBe(severity);
  });

  it('a UCDP GED row becomes one normalized public event with a stable id', () => {
    expect(ucdpRow(row(), '2026-11-22T10:00:00.000Z')).toEqual({
      event_id: 'ucdp:17030',
      source: 'public',
      dataset: 'UCDP GED 20.1 via HDX',
      occurred_on: '1990-10-30',
      latitude: 5.00718,
      longitude: 7.03192,
      precision: 1,
      type: 'violence_against_civilians',
      severity: 7,
      fatalities: 80,
      weight: 1,
      country: 'Nigeria',
      admin1: 'Rivers state',
      admin2: 'Etche lga',
      place: 'Umu-Etchem village',
      description: 'Government of Nigeria - Civilians',
      imported_at: '2026-11-22T10:00:00.000Z',
    });
  });

  it('maps the three kinds of organized violence, and treats a missing precision as within 25 km', () => {
    expect(ucdpRow(row({ violence_code: '1' }), '')!.type).toBe('armed_conflict');
    expect(ucdpRow(row({ violence_code: '2' }), '')!.type).toBe('communal_violence');
    expect(ucdpRow(row({ location_precision: '' }), '')!.precision).toBe(2);
  });

  it.each([
    [{ id: '' }],
    [{ date: '30/10/1990' }],
    [{ latitude: 'north' }],
    [{ longitude: '200' }],
    [{ violence_code: '9' }],
  ])('an unusable row %j is skipped', (overrides) => {
    expect(ucdpRow(row(overrides), '')).toBeNull();
  });
});
