import KDBush from 'kdbush';
import { dayNumber, type ThreatIndex } from './event-index.ts';
import { massesOn } from './model.ts';
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

/** The heatmap looks back at most this many days (the API's `days` limit). */
export const MAX_DAYS = 365;

/**
 * The events of the last 365 days (and any dated after today) in a kd-tree of their own, made
 * once a day: a year of Nigeria is then a few per cent of its events in all years.
 */
function lastYearOf(index: ThreatIndex, today: number): { tree: KDBush; ids: Int32Array } {
  return index.memo(today, 'last-year', () => {
    const { day, latitude, longitude } = index.columns;
    const ids: number[] = [];
    for (let id = 0; id < index.size; id++) if (today - day[id]! < MAX_DAYS) ids.push(id);
    const tree = new KDBush(Math.max(1, ids.length), 64, Float64Array);
    for (const id of ids) tree.add(longitude[id]!, latitude[id]!);
    if (!ids.length) tree.add(0, -90); // KDBush needs a point; its id is outside `ids` and never used
    tree.finish();
    return { tree, ids: Int32Array.from(ids) };
  });
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * The events of the last `days` days inside the box, summed per grid cell with the same event
 * mass the scores use; each cell answers at its mass-weighted centre. Heaviest cells first.
 * `laterToo`: events dated after `now`'s day count too (a window ending now); false for a
 * window that ends in the past (the heatmap's `until`).
 */
export function heatmap(index: ThreatIndex, bounds: Bounds, days: number, now: Date, laterToo = true): { points: HeatmapPoint[]; events: number } {
  const today = dayNumber(now);
  const lastYear = lastYearOf(index, today);
  const masses = massesOn(index, today);
  const cellLat = (bounds.maxLat - bounds.minLat) / GRID;
  const cellLng = (bounds.maxLng - bounds.minLng) / GRID;
  const cells = new Map<number, { mass: number; lat: number; lng: number; types: number[] }>();
  let events = 0;
  for (const found of lastYear.tree.range(bounds.minLng, bounds.minLat, bounds.maxLng, bounds.maxLat)) {
    const id = lastYear.ids[found];
    if (id === undefined || today - index.columns.day[id]! >= days) continue;
    if (!laterToo && index.columns.day[id]! > today) continue;
    const mass = masses[id]!;
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
