import { dayNumber, type ThreatIndex } from './event-index.ts';
import { eventMass } from './model.ts';
import { THREAT_TYPES, type ThreatType } from './taxonomy.ts';

/** The box is cut into at most GRID × GRID cells: 4,900 points at most, under the 5,000 limit. */
export const GRID = 70;

export interface Bounds {
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
}

export interface HeatmapPoint {
  lat: number;
  lng: number;
  /** The cell's threat mass over the heaviest cell's: (0, 1]. */
  weight: number;
  /** The most frequent type in the cell. */
  type: ThreatType;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * The events of the last `days` days inside the box, summed per grid cell with the same event
 * mass the scores use; each cell answers at its mass-weighted centre. Heaviest cells first.
 */
export function heatmap(index: ThreatIndex, bounds: Bounds, days: number, now: Date): { points: HeatmapPoint[]; events: number } {
  const today = dayNumber(now);
  const cellLat = (bounds.maxLat - bounds.minLat) / GRID;
  const cellLng = (bounds.maxLng - bounds.minLng) / GRID;
  const cells = new Map<number, { mass: number; lat: number; lng: number; types: number[] }>();
  let events = 0;
  for (const id of index.inBox(bounds.minLat, bounds.minLng, bounds.maxLat, bounds.maxLng)) {
    if (today - index.columns.day[id]! >= days) continue;
    const mass = eventMass(index, id, today);
    if (mass <= 0) continue;
    events++;
    const lat = index.columns.latitude[id]!;
    const lng = index.columns.longitude[id]!;
    const row = Math.min(GRID - 1, Math.floor((lat - bounds.minLat) / cellLat));
    const column = Math.min(GRID - 1, Math.floor((lng - bounds.minLng) / cellLng));
    const key = row * GRID + column;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { mass: 0, lat: 0, lng: 0, types: new Array<number>(THREAT_TYPES.length).fill(0) }));
    cell.mass += mass;
    cell.lat += lat * mass;
    cell.lng += lng * mass;
    cell.types[index.columns.type[id]!]!++;
  }
  const heaviest = Math.max(0, ...[...cells.values()].map((cell) => cell.mass));
  const points = [...cells.values()]
    .map((cell) => {
      let top = 0;
      cell.types.forEach((n, i) => {
        if (n > cell.types[top]!) top = i;
      });
      return {
        lat: round(cell.lat / cell.mass, 5),
        lng: round(cell.lng / cell.mass, 5),
        weight: Math.max(0.001, round(cell.mass / heaviest, 3)),
        type: THREAT_TYPES[top]!,
      };
    })
    .sort((a, b) => b.weight - a.weight || a.lat - b.lat || a.lng - b.lng);
  return { points, events };
}
