import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundingBox, chooseNearestResponders, distanceKm, etaMinutes } from '../../server/dispatch/nearest.ts';
import { checkProperty } from '../support/property.ts';

const lagos = { latitude: 6.5244, longitude: 3.3792 };
const abuja = { latitude: 9.0765, longitude: 7.3986 };

describe('nearest available responders', () => {
  it('measures great-circle distance: Lagos to Abuja is about 524 km', () => {
    expect(distanceKm(lagos, abuja)).toBeGreaterThan(520);
    expect(distanceKm(lagos, abuja)).toBeLessThan(530);
    expect(distanceKm(lagos, lagos)).toBe(0);
    // One degree of latitude is about 111.2 km anywhere.
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(111.2, 0);
  });

  it('chooses the nearest within the radius, nearest first, at most count', () => {
    const candidates = [
      { responderId: 'rsp_far', latitude: 6.6, longitude: 3.5 },
      { responderId: 'rsp_near', latitude: 6.525, longitude: 3.38 },
      { responderId: 'rsp_mid', latitude: 6.55, longitude: 3.4 },
      { responderId: 'rsp_abuja', ...abuja },
    ];
    const chosen = chooseNearestResponders(candidates, lagos, 20, 2);
    expect(chosen.map((c) => c.responderId)).toEqual(['rsp_near', 'rsp_mid']);
    expect(chooseNearestResponders(candidates, lagos, 20, 10).map((c) => c.responderId)).toEqual(['rsp_near', 'rsp_mid', 'rsp_far']);
    expect(chooseNearestResponders(candidates, lagos, 0.05, 10)).toHaveLength(0);
  });

  it('breaks distance ties by id, so the same data always gives the same choice', () => {
    const same = { latitude: 6.53, longitude: 3.38 };
    const chosen = chooseNearestResponders([{ responderId: 'rsp_b', ...same }, { responderId: 'rsp_a', ...same }], lagos, 10, 1);
    expect(chosen[0]!.responderId).toBe('rsp_a');
  });

  it('agrees with a brute-force search on random responders', () => {
    checkProperty(
      fc.property(
        fc.array(fc.record({ latitude: fc.double({ min: 4, max: 14, noNaN: true }), longitude: fc.double({ min: 2.6, max: 14.7, noNaN: true }) }), { maxLength: 60 }),
        fc.double({ min: 1, max: 300, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        (points, radius, count) => {
          const candidates = points.map((p, i) => ({ responderId: `rsp_${String(i).padStart(3, '0')}`, ...p }));
          const expected = candidates
            .map((c) => ({ id: c.responderId, d: distanceKm(lagos, c) }))
            .filter((c) => c.d <= radius)
            .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id))
            .slice(0, count)
            .map((c) => c.id);
          expect(chooseNearestResponders(candidates, lagos, radius, count).map((c) => c.responderId)).toEqual(expected);
        },
      ),
    );
  });

  it('the bounding box holds every point within the radius', () => {
    checkProperty(
      fc.property(
        fc.double({ min: -60, max: 60, noNaN: true }),
        fc.double({ min: -170, max: 170, noNaN: true }),
        fc.double({ min: 0.1, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (latitude, longitude, radius, bearing, fraction) => {
          const center = { latitude, longitude };
          // A point at distance fraction * radius along the bearing (small-distance approximation, kept inside).
          const d = fraction * radius * 0.99;
          const point = {
            latitude: latitude + (d / 111.195) * Math.cos(bearing),
            longitude: longitude + (d / (111.195 * Math.cos((latitude * Math.PI) / 180))) * Math.sin(bearing),
          };
          if (distanceKm(center, point) > radius) return;
          const box = boundingBox(center, radius);
          expect(point.latitude).toBeGreaterThanOrEqual(box.minLat);
          expect(point.latitude).toBeLessThanOrEqual(box.maxLat);
          expect(point.longitude).toBeGreaterThanOrEqual(box.minLng);
          expect(point.longitude).toBeLessThanOrEqual(box.maxLng);
        },
      ),
    );
  });

  it('estimates arrival at city speed, at least a minute', () => {
    expect(etaMinutes(0)).toBe(1);
    expect(etaMinutes(12.5)).toBe(30);
  });
});
