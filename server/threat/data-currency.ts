import { dayText, NO_COUNTRY, type ThreatIndex } from './event-index.ts';
import { THREAT_FEEDS, type ThreatFeed } from './taxonomy.ts';
import { DAY_MS } from '../../shared/time.ts';

/**
 * How current the data behind an answer is. Every threat answer carries one, so a partner can
 * tell "quiet" (recent data, nothing near) from "no data" (the newest data is years old).
 */
export interface DataCurrency {
  /** Day (YYYY-MM-DD) of the newest event that could have counted for the place; null when none could. */
  through: string | null;
  /** The feeds behind it, in THREAT_FEEDS order. */
  sources: ThreatFeed[];
  /** ISO 3166-1 alpha-2 country of the place (a box or a route: null). */
  country: string | null;
}

/** What the events of one feed in one country (or one 1° square) cover. */
export interface FeedSpan {
  first: number;
  last: number;
  events: number;
  /** Events by calendar year. */
  years: Map<number, number>;
}

export interface DataCoverage {
  /** Country code → feed → span. */
  countries: Map<string, Map<ThreatFeed, FeedSpan>>;
  /** Every event, by feed. */
  all: Map<ThreatFeed, FeedSpan>;
  /** 1° square key → newest day and a bit per feed (for boxes). */
  squares: Map<number, { last: number; feeds: number }>;
}

const squareKey = (latitude: number, longitude: number) => (Math.floor(latitude) + 90) * 361 + (Math.floor(longitude) + 180);
const yearOf = (day: number) => new Date(day * DAY_MS).getUTCFullYear();
const NONE = -2_147_483_648;

/**
 * Coverage of a snapshot, worked out once per snapshot and day: one pass over the columns into
 * typed arrays (a million events in tens of milliseconds), then a few small maps.
 */
export function dataCoverageOf(index: ThreatIndex, today: number): DataCoverage {
  return index.memo(today, 'data-coverage', () => {
    const { day, feed, country, latitude, longitude, countries } = index.columns;
    const coverage: DataCoverage = { countries: new Map(), all: new Map(), squares: new Map() };
    if (!index.size) return coverage;
    let minDay = Infinity;
    let maxDay = -Infinity;
    for (let id = 0; id < index.size; id++) {
      if (day[id]! < minDay) minDay = day[id]!;
      if (day[id]! > maxDay) maxDay = day[id]!;
    }
    const firstYear = yearOf(minDay);
    const years = yearOf(maxDay) - firstYear + 1;
    // Year of each day in the range, so the loop below does no date arithmetic.
    const yearOfDay = new Int16Array(maxDay - minDay + 1);
    for (let year = firstYear; year < firstYear + years; year++) {
      const from = Math.max(minDay, Date.UTC(year, 0, 1) / DAY_MS);
      const to = Math.min(maxDay, Date.UTC(year + 1, 0, 1) / DAY_MS - 1);
      yearOfDay.fill(year - firstYear, from - minDay, to - minDay + 1);
    }
    // Slots: one per country, and one more (`all`) for every event; FEEDS slots each.
    const feeds = THREAT_FEEDS.length;
    const all = countries.length;
    const slots = (countries.length + 1) * feeds;
    const first = new Int32Array(slots).fill(2_147_483_647);
    const last = new Int32Array(slots).fill(NONE);
    const events = new Int32Array(slots);
    const byYear = new Int32Array(slots * years);
    const squareLast = new Int32Array(181 * 361).fill(NONE);
    const squareFeeds = new Uint8Array(181 * 361);
    const add = (slot: number, d: number) => {
      if (d < first[slot]!) first[slot] = d;
      if (d > last[slot]!) last[slot] = d;
      events[slot]!++;
      byYear[slot * years + yearOfDay[d - minDay]!]!++;
    };
    for (let id = 0; id < index.size; id++) {
      const d = day[id]!;
      const f = feed[id]!;
      add(all * feeds + f, d);
      if (country[id] !== NO_COUNTRY) add(country[id]! * feeds + f, d);
      const square = squareKey(latitude[id]!, longitude[id]!);
      if (d > squareLast[square]!) squareLast[square] = d;
      squareFeeds[square]! |= 1 << f;
    }
    const spansOf = (c: number) => {
      const spans = new Map<ThreatFeed, FeedSpan>();
      for (let f = 0; f < feeds; f++) {
        const slot = c * feeds + f;
        if (!events[slot]) continue;
        const perYear = new Map<number, number>();
        for (let y = 0; y < years; y++) if (byYear[slot * years + y]) perYear.set(firstYear + y, byYear[slot * years + y]!);
        spans.set(THREAT_FEEDS[f]!, { first: first[slot]!, last: last[slot]!, events: events[slot]!, years: perYear });
      }
      return spans;
    };
    coverage.all = spansOf(all);
    for (let c = 0; c < countries.length; c++) {
      const spans = spansOf(c);
      if (spans.size) coverage.countries.set(countries[c]!, spans);
    }
    for (let square = 0; square < squareLast.length; square++) {
      if (squareLast[square] !== NONE) coverage.squares.set(square, { last: squareLast[square]!, feeds: squareFeeds[square]! });
    }
    return coverage;
  });
}

const feedsOfMask = (mask: number): ThreatFeed[] => THREAT_FEEDS.filter((_, i) => mask & (1 << i));
const maskOf = (feeds: Iterable<ThreatFeed>) => [...feeds].reduce((mask, name) => mask | (1 << THREAT_FEEDS.indexOf(name)), 0);

/**
 * At a point: the newest event of the point's country (the data that covers the place, whether
 * or not anything happened near it) or within the answer's radius (an event over a border),
 * and the feeds of both.
 */
export function currencyAtPoint(index: ThreatIndex, today: number, country: string | null, local: { lastDay: number | null; feeds: number }): DataCurrency {
  const spans = country === null ? undefined : dataCoverageOf(index, today).countries.get(country);
  let last = local.lastDay;
  let mask = local.feeds;
  for (const [name, span] of spans ?? []) {
    if (last === null || span.last > last) last = span.last;
    mask |= maskOf([name]);
  }
  return { through: last === null ? null : dayText(last), sources: feedsOfMask(mask), country };
}

/** In a box: the newest event in the 1° squares it touches, and their feeds. */
export function currencyInBox(index: ThreatIndex, today: number, box: { minLat: number; minLng: number; maxLat: number; maxLng: number }): DataCurrency {
  const { squares } = dataCoverageOf(index, today);
  let last: number | null = null;
  let mask = 0;
  for (let lat = Math.floor(box.minLat); lat <= Math.floor(box.maxLat); lat++) {
    for (let lng = Math.floor(box.minLng); lng <= Math.floor(box.maxLng); lng++) {
      const square = squares.get(squareKey(lat, lng));
      if (!square) continue;
      if (last === null || square.last > last) last = square.last;
      mask |= square.feeds;
    }
  }
  return { through: last === null ? null : dayText(last), sources: feedsOfMask(mask), country: null };
}

/** Everywhere: the newest event in the store and every feed in it. */
export function currencyOfAll(index: ThreatIndex, today: number): DataCurrency {
  const { all } = dataCoverageOf(index, today);
  const last = Math.max(-Infinity, ...[...all.values()].map((span) => span.last));
  return { through: Number.isFinite(last) ? dayText(last) : null, sources: THREAT_FEEDS.filter((name) => all.has(name)), country: null };
}

/**
 * A route: as current as its least current checkpoint (`through` is the oldest of theirs, null
 * when one has no data), with the feeds of all of them.
 */
export function currencyOfRoute(checkpoints: readonly DataCurrency[]): DataCurrency {
  const throughs = checkpoints.map((c) => c.through);
  const through = throughs.includes(null) ? null : ([...throughs].sort()[0] ?? null);
  const sources = new Set(checkpoints.flatMap((c) => c.sources));
  return { through, sources: THREAT_FEEDS.filter((name) => sources.has(name)), country: null };
}

/** Whole calendar years from `first` to `last` (days) with no event, as day ranges. */
export function yearGaps(years: Iterable<number>, first: number, last: number): { from: string; to: string }[] {
  const seen = new Set(years);
  const gaps: { from: string; to: string }[] = [];
  let start: number | null = null;
  for (let year = yearOf(first); year <= yearOf(last) + 1; year++) {
    const empty = year <= yearOf(last) && !seen.has(year);
    if (empty && start === null) start = year;
    if (!empty && start !== null) {
      gaps.push({ from: `${start}-01-01`, to: `${year - 1}-12-31` });
      start = null;
    }
  }
  return gaps;
}

export interface SourceCoverage {
  source: ThreatFeed;
  from: string;
  through: string;
  events: number;
  events_by_year: Record<string, number>;
  gaps: { from: string; to: string }[];
}

export interface CountryCoverage {
  country: string;
  through: string;
  sources: SourceCoverage[];
  gaps: { from: string; to: string }[];
  notes: string[];
}

/**
 * Per country (by the point of each event), the period each feed covers, its events per year
 * and the whole years inside that period with none; `gaps` are the years no feed covers.
 * `notes` are what the shipped data's README says about a country (partial years, samples).
 */
export function coverageReport(index: ThreatIndex, today: number, notesOf: (country: string, feeds: ThreatFeed[]) => string[]): CountryCoverage[] {
  const { countries } = dataCoverageOf(index, today);
  return [...countries.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([country, spans]) => {
      const feeds = THREAT_FEEDS.filter((name) => spans.has(name));
      const sources = feeds.map((name) => {
        const span = spans.get(name)!;
        const years = [...span.years.entries()].sort(([a], [b]) => a - b);
        return {
          source: name,
          from: dayText(span.first),
          through: dayText(span.last),
          events: span.events,
          events_by_year: Object.fromEntries(years.map(([year, n]) => [String(year), n])),
          gaps: yearGaps(span.years.keys(), span.first, span.last),
        };
      });
      const all = [...spans.values()];
      const first = Math.min(...all.map((span) => span.first));
      const last = Math.max(...all.map((span) => span.last));
      return {
        country,
        through: dayText(last),
        sources,
        gaps: yearGaps(all.flatMap((span) => [...span.years.keys()]), first, last),
        notes: notesOf(country, feeds),
      };
    });
}
