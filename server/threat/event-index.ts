import KDBush from 'kdbush';
import { boundingBox, greatCircleKm } from '../geo.ts';
import { countryAt } from './coverage.ts';
import type { IndexedEventRow } from './store.ts';
import { feedOf, precisionWeight, THREAT_FEEDS, THREAT_TYPES, type ThreatSource, THREAT_SOURCES, type ThreatType } from './taxonomy.ts';
import { DAY_MS } from '../../shared/time.ts';

/** Days since 1970-01-01 (UTC) of a YYYY-MM-DD day or an instant. */
export const dayNumber = (day: string | Date): number =>
  Math.floor((typeof day === 'string' ? Date.parse(`${day.slice(0, 10)}T00:00:00Z`) : day.getTime()) / DAY_MS);
export const dayText = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Every event as columns: typed arrays that grow by doubling and are only ever appended to.
 * Snapshots share one set of columns and each reads only the ids it was made with.
 */
class EventColumns {
  size = 0;
  latitude = new Float64Array(1024);
  longitude = new Float64Array(1024);
  day = new Int32Array(1024);
  severity = new Uint8Array(1024);
  fatalities = new Int32Array(1024);
  /** Source weight × confidence × location-precision weight: what an event counts before age. */
  weight = new Float32Array(1024);
  type = new Uint8Array(1024);
  source = new Uint8Array(1024);
  /** Index into `places` of "place, admin1" (or a coarser name); -1 when the event names none. */
  place = new Int32Array(1024);
  /** Location precision as given (1 exact … 7). */
  precision = new Uint8Array(1024);
  /** Index into THREAT_FEEDS (ucdp-ged, ucdp-candidate, ...): what `data.sources` names. */
  feed = new Uint8Array(1024);
  /** Index into `countries` of the country at the event's point; NO_COUNTRY at sea. */
  country = new Uint8Array(1024);
  readonly places: string[] = [];
  private readonly placeIds = new Map<string, number>();
  readonly countries: string[] = [];
  private readonly countryIds = new Map<string, number>();
  /** Country by 0.1° cell: a million events need a few thousand lookups, not a million (country-coder takes ~10 µs a point). */
  private readonly cellCountry = new Map<number, number>();

  private grow(needed: number) {
    if (needed <= this.latitude.length) return;
    let capacity = this.latitude.length;
    while (capacity < needed) capacity *= 2;
    const copy = <T extends Float64Array | Float32Array | Int32Array | Uint8Array>(array: T): T => {
      const next = new (array.constructor as new (n: number) => T)(capacity);
      next.set(array);
      return next;
    };
    this.latitude = copy(this.latitude);
    this.longitude = copy(this.longitude);
    this.day = copy(this.day);
    this.severity = copy(this.severity);
    this.fatalities = copy(this.fatalities);
    this.weight = copy(this.weight);
    this.type = copy(this.type);
    this.source = copy(this.source);
    this.place = copy(this.place);
    this.precision = copy(this.precision);
    this.feed = copy(this.feed);
    this.country = copy(this.country);
  }

  private countryId(latitude: number, longitude: number): number {
    const row = Math.floor(latitude * 10);
    const column = Math.floor(longitude * 10);
    const key = (row + 900) * 3601 + (column + 1800);
    let id = this.cellCountry.get(key);
    if (id === undefined) {
      // A cell whose centre and four corners lie in one country (or all at sea) is that
      // country's; any other (a border, a coast) asks each event's own point.
      const codes = new Set([[0.5, 0.5], [0, 0], [0, 1], [1, 0], [1, 1]].map(([dy, dx]) => countryAt((row + dy!) / 10, (column + dx!) / 10)));
      const [only] = codes;
      if (codes.size > 1) id = BORDER_CELL;
      else id = only === null || only === undefined ? NO_COUNTRY : this.countryCode(only);
      this.cellCountry.set(key, id);
    }
    if (id !== BORDER_CELL) return id;
    const own = countryAt(latitude, longitude);
    return own === null ? NO_COUNTRY : this.countryCode(own);
  }

  private countryCode(code: string): number {
    let id = this.countryIds.get(code);
    if (id === undefined) {
      id = this.countries.length;
      this.countries.push(code);
      this.countryIds.set(code, id);
    }
    return id;
  }

  private placeId(row: IndexedEventRow): number {
    const local = row.place ?? row.admin2;
    const name = local ? (row.admin1 && row.admin1 !== local ? `${local}, ${row.admin1}` : local) : (row.admin1 ?? row.country);
    if (!name) return -1;
    let id = this.placeIds.get(name);
    if (id === undefined) {
      id = this.places.length;
      this.places.push(name);
      this.placeIds.set(name, id);
    }
    return id;
  }

  append(rows: readonly IndexedEventRow[]) {
    this.grow(this.size + rows.length);
    for (const row of rows) {
      const i = this.size++;
      this.latitude[i] = row.latitude;
      this.longitude[i] = row.longitude;
      this.day[i] = dayNumber(row.occurred_on);
      this.severity[i] = row.severity;
      this.fatalities[i] = row.fatalities;
      this.weight[i] = row.weight * precisionWeight(row.precision);
      this.type[i] = Math.max(0, THREAT_TYPES.indexOf(row.type as ThreatType));
      this.source[i] = Math.max(0, THREAT_SOURCES.indexOf(row.source as ThreatSource));
      this.place[i] = this.placeId(row);
      this.precision[i] = row.precision;
      this.feed[i] = THREAT_FEEDS.indexOf(feedOf(row.source, row.event_id, row.dataset));
      this.country[i] = this.countryId(row.latitude, row.longitude);
    }
  }
}

/** `country` of an event at sea or outside every country. */
export const NO_COUNTRY = 255;
/** A 0.1° cell that straddles a border or a coast: its events are looked up one by one. */
const BORDER_CELL = -1;

/** Events appended after the main tree was built sit in a small side tree until there are this many. */
const REBUILD_AFTER = 4096;

/**
 * An immutable view of the threat events: a kd-tree (kdbush) over the first `indexed` events
 * and a short list of later ones. Radius queries take the candidates in the circle's bounding box
 * from the tree and keep those within the great-circle distance (server/geo.ts).
 * Adding events gives a new snapshot; queries running on the old one are not disturbed.
 */
export class ThreatIndex {
  private constructor(
    readonly columns: EventColumns,
    private readonly tree: KDBush,
    private readonly indexed: number,
    readonly size: number,
    /** Raised by every write the index has loaded (migration 0008). */
    readonly revision: number,
    /** A small tree over the events after `indexed` (rebuilt with each addition: at most 4,096 points). */
    private readonly sideTree: KDBush | null = null,
  ) {}

  static build(rows: readonly IndexedEventRow[], revision: number): ThreatIndex {
    const columns = new EventColumns();
    columns.append(rows);
    return ThreatIndex.indexAll(columns, revision);
  }

  /** Builds from pages as they are read, so a million rows never sit in memory as objects at once. */
  static async fromPages(pages: AsyncIterable<readonly IndexedEventRow[]>, revision: number): Promise<ThreatIndex> {
    const columns = new EventColumns();
    for await (const page of pages) columns.append(page);
    return ThreatIndex.indexAll(columns, revision);
  }

  private static indexAll(columns: EventColumns, revision: number): ThreatIndex {
    const tree = new KDBush(Math.max(1, columns.size), 64, Float64Array);
    for (let i = 0; i < columns.size; i++) tree.add(columns.longitude[i]!, columns.latitude[i]!);
    if (columns.size === 0) tree.add(0, -90); // KDBush needs one point; it is never returned (size 0)
    tree.finish();
    return new ThreatIndex(columns, tree, columns.size, columns.size, revision);
  }

  /** A snapshot with these events too: in a small side tree, or everything re-indexed when that grows past 4,096. */
  withAdded(rows: readonly IndexedEventRow[], revision: number): ThreatIndex {
    this.requireNewest();
    this.columns.append(rows);
    return this.extended(revision);
  }

  /** As `withAdded`, a page at a time as they are read (a large import never sits in memory as objects at once). */
  async withAddedPages(pages: AsyncIterable<readonly IndexedEventRow[]>, revision: number): Promise<ThreatIndex> {
    this.requireNewest();
    for await (const page of pages) this.columns.append(page);
    return this.extended(revision);
  }

  private requireNewest() {
    if (this.columns.size !== this.size) throw new Error('ThreatIndex: only the newest snapshot can be extended');
  }

  private extended(revision: number): ThreatIndex {
    const size = this.columns.size;
    if (size - this.indexed > REBUILD_AFTER) return ThreatIndex.indexAll(this.columns, revision);
    if (size === this.indexed) return new ThreatIndex(this.columns, this.tree, this.indexed, size, revision);
    const side = new KDBush(size - this.indexed, 64, Float64Array);
    for (let id = this.indexed; id < size; id++) side.add(this.columns.longitude[id]!, this.columns.latitude[id]!);
    side.finish();
    return new ThreatIndex(this.columns, this.tree, this.indexed, size, revision, side);
  }

  /**
   * Calls `visit(id, km)` for every event within `radiusKm` (great circle) of the point: the
   * kd-tree gives the candidates in the enclosing latitude/longitude box, the great-circle
   * distance decides.
   */
  forEachWithin(latitude: number, longitude: number, radiusKm: number, visit: (id: number, km: number) => void): void {
    const { latitude: lat, longitude: lng } = this.columns;
    const check = (id: number) => {
      const km = greatCircleKm(latitude, longitude, lat[id]!, lng[id]!);
      if (km <= radiusKm) visit(id, km);
    };
    const box = boundingBox({ latitude, longitude }, radiusKm);
    if (this.indexed) for (const id of this.tree.range(box.minLng, box.minLat, box.maxLng, box.maxLat)) check(id);
    if (this.sideTree) for (const id of this.sideTree.range(box.minLng, box.minLat, box.maxLng, box.maxLat)) check(this.indexed + id);
  }

  /**
   * A value computed once per snapshot, day and name (the day's masses, area grid, last year's
   * events): snapshots are immutable, so what is derived from one stays true for it. A newer
   * day clears the older day's values; a computation still running for an older day gets its
   * values made afresh and not kept, so it never pushes out the current day's.
   */
  memo<T>(day: number, name: string, make: () => T): T {
    if (day > this.derivedDay) {
      this.derived.clear();
      this.derivedDay = day;
    }
    if (day < this.derivedDay) return make();
    if (!this.derived.has(name)) this.derived.set(name, make());
    return this.derived.get(name) as T;
  }
  private readonly derived = new Map<string, unknown>();
  private derivedDay = -Infinity;

  placeOf(id: number): string | null {
    const place = this.columns.place[id]!;
    return place < 0 ? null : this.columns.places[place]!;
  }
}

