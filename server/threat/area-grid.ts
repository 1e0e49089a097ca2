import KDBush from 'kdbush';
import { boundingBox, greatCircleKm } from '../geo.ts';
import type { ThreatIndex } from './event-index.ts';

/** Cell size of the area grid in degrees: about 5.5 km. */
export const AREA_CELL_DEGREES = 0.05;

/**
 * The day's event mass summed per 0.05° cell, each cell placed at its events' centre of mass.
 * The model's 50 km area term sums these cells instead of up to ~75,000 single events at the
 * busiest places (measured: 57 ms p99 per score over a million events; about 0.2 ms this way).
 */
export class AreaGrid {
  private constructor(
    private readonly tree: KDBush,
    private readonly latitude: Float64Array,
    private readonly longitude: Float64Array,
    private readonly mass: Float64Array,
  ) {}

  /** Built from every event of the snapshot with `massOf(id)` (the day's mass); cells without mass are left out. */
  static build(index: ThreatIndex, massOf: (id: number) => number): AreaGrid {
    const cells = new Map<number, { mass: number; lat: number; lng: number }>();
    const { latitude, longitude } = index.columns;
    for (let id = 0; id < index.size; id++) {
      const mass = massOf(id);
      if (mass <= 0) continue;
      // Row and column in a 0.05° grid (latitude -90..90 → 3,600 rows; longitude → 7,200 columns).
      const key = Math.floor((latitude[id]! + 90) / AREA_CELL_DEGREES) * 8000 + Math.floor((longitude[id]! + 180) / AREA_CELL_DEGREES);
      let cell = cells.get(key);
      if (!cell) cells.set(key, (cell = { mass: 0, lat: 0, lng: 0 }));
      cell.mass += mass;
      cell.lat += latitude[id]! * mass;
      cell.lng += longitude[id]! * mass;
    }
    // Cells in key order, so the same events always give the same grid.
    const ordered = [...cells.entries()].sort((a, b) => a[0] - b[0]).map(([, cell]) => cell);
    const tree = new KDBush(Math.max(1, ordered.length), 64, Float64Array);
    const lat = new Float64Array(ordered.length);
    const lng = new Float64Array(ordered.length);
    const mass = new Float64Array(ordered.length);
    ordered.forEach((cell, i) => {
      lat[i] = cell.lat / cell.mass;
      lng[i] = cell.lng / cell.mass;
      mass[i] = cell.mass;
      tree.add(lng[i]!, lat[i]!);
    });
    if (!ordered.length) tree.add(0, -90); // KDBush needs a point; never counted (no mass)
    tree.finish();
    return new AreaGrid(tree, lat, lng, mass);
  }

  /** The mass of the cells whose centre of mass is within `radiusKm` of the point. */
  massWithin(latitude: number, longitude: number, radiusKm: number): number {
    const box = boundingBox({ latitude, longitude }, radiusKm);
    let total = 0;
    for (const cell of this.tree.range(box.minLng, box.minLat, box.maxLng, box.maxLat)) {
      if (cell < this.mass.length && greatCircleKm(latitude, longitude, this.latitude[cell]!, this.longitude[cell]!) <= radiusKm) total += this.mass[cell]!;
    }
    return total;
  }
}
