import { describe, expect, it } from 'vitest';
import { areaCentre, areaGaps, covers, distanceWords, metresOutside, type PlacedResponder } from '../../server/duty/area-geometry.ts';
import type { AreaShape } from '../../shared/schemas/duty.ts';

/** Where a responder stands against an area (server/duty/area-geometry.ts): pure. */
const AT = { latitude: 6.45, longitude: 3.4 };
const KM_PER_DEGREE_LAT = 111.1951;
const north = (km: number) => ({ latitude: AT.latitude + km / KM_PER_DEGREE_LAT, longitude: AT.longitude });
const circle: AreaShape = { type: 'Circle', center: [AT.longitude, AT.latitude], radius_m: 1000 };
// An L: the square 0..0.02° with its north-east quarter cut away.
const l: AreaShape = {
  type: 'Polygon',
  coordinates: [
    [
      [3.4, 6.45],
      [3.42, 6.45],
      [3.42, 6.46],
      [3.41, 6.46],
      [3.41, 6.47],
      [3.4, 6.47],
      [3.4, 6.45],
    ],
  ],
};

describe('an area against a fix', () => {
  it("a circle: zero inside, the distance past its edge outside; a phone's 100 m of error still covers", () => {
    expect(metresOutside(circle, AT)).toBe(0);
    expect(metresOutside(circle, north(0.999))).toBe(0);
    expect(metresOutside(circle, north(1.5))).toBeCloseTo(500, 0);
    expect(covers(circle, north(1.09))).toBe(true);
    expect(covers(circle, north(1.11))).toBe(false);
  });

  it('a polygon: inside an L is inside, its cut-away corner is outside by the distance to the nearest edge', () => {
    expect(metresOutside(l, { latitude: 6.455, longitude: 3.405 })).toBe(0);
    expect(metresOutside(l, { latitude: 6.465, longitude: 3.405 })).toBe(0);
    // In the cut-away quarter, 0.002° (about 221 m) east of the L's inner edge and 0.004° from its other.
    const notch = metresOutside(l, { latitude: 6.466, longitude: 3.412 });
    expect(notch).toBeGreaterThan(215);
    expect(notch).toBeLessThan(225);
    // South of it: straight down to its south edge, 0.01° of latitude (about 1.11 km).
    expect(metresOutside(l, { latitude: 6.44, longitude: 3.41 })).toBeCloseTo(1112, -1);
    // Its corners averaged (the label's place, not the centre of mass).
    expect(areaCentre(l)).toEqual({ latitude: expect.closeTo(6.46, 6), longitude: expect.closeTo(3.41, 6) });
  });

  it('distances in words', () => {
    expect([distanceWords(47), distanceWords(467), distanceWords(2834)]).toEqual(['50 m', '470 m', '2.8 km']);
  });
});

describe('areas with nobody to send', () => {
  const person = (id: string, changes: Partial<PlacedResponder>): PlacedResponder => ({ responder_id: id, name: id, duty_status: 'available', latitude: AT.latitude, longitude: AT.longitude, reachable: true, ...changes });
  const areas = [{ area_id: 'area_1', name: 'Lekki', shape: circle }];

  it('an area with a shift now is covered by any available responder with a fresh fix inside it, on shift there or not', () => {
    const stranger = new Map([['rsp_b', person('rsp_b', {})], ['rsp_a', person('rsp_a', { duty_status: 'off_duty', reachable: false })]]);
    expect(areaGaps(areas, [{ area_id: 'area_1', responder_id: 'rsp_a' }], stranger)).toEqual([]);
  });

  it('otherwise it is listed, with the nearest reachable responder from its edge and where each on shift is', () => {
    const responders = new Map([
      ['rsp_a', person('rsp_a', { name: 'Ada', ...north(3) })],
      ['rsp_b', person('rsp_b', { name: 'Bayo', duty_status: 'en_route', reachable: false })],
      ['rsp_c', person('rsp_c', { name: 'Chi', reachable: false })],
    ]);
    const shifts = ['rsp_a', 'rsp_b', 'rsp_c', 'rsp_gone'].map((responder_id) => ({ area_id: 'area_1', responder_id }));
    expect(areaGaps(areas, shifts, responders)).toEqual([
      { area_id: 'area_1', name: 'Lekki', centre: AT, nearest_km: 2, note: 'On shift: Ada (available, 2.0 km outside), Bayo (en route), Chi (available, no fresh fix)' },
    ]);
  });

  it('an area with no shift now is planned to be empty: not listed', () => {
    expect(areaGaps(areas, [], new Map())).toEqual([]);
  });
});
