import type { LoadMeasurement, LoadSettings } from './load.ts';

/** What every section gets from `bench/run.ts`. */
export interface SectionContext {
  load: LoadSettings;
  /** A progress line on stderr (the table goes to stdout). */
  log(line: string): void;
}

/** One measured target: a row of the printed table. */
export interface ResultRow {
  target: string;
  engine: string;
  measurement: LoadMeasurement;
  /** Requests/s divided by the bare server's, measured in the same block; undefined for the baseline itself. */
  ratioToBare?: number;
}

/** A stated aim, checked against the rows. */
export interface AimCheck {
  aim: string;
  engine: string;
  actual: string;
  met: boolean;
}

/**
 * A table with the section's own columns (e.g. microseconds per call rather than requests/s),
 * printed after the rows' table, or instead of it when `rows` is empty.
 */
export interface SectionTable {
  title: string;
  header: string[];
  rows: string[][];
  /** Per column; default: the first two left-aligned, the rest right-aligned. */
  rightAligned?: boolean[];
}

export interface SectionResult {
  name: string;
  rows: ResultRow[];
  aims: AimCheck[];
  /** Printed under the table: skipped engines, caveats. */
  notes: string[];
  /** Extra tables (see `SectionTable`). */
  tables?: SectionTable[];
  /** Machine-readable figures behind `tables`, kept in the JSON report only. */
  data?: Record<string, unknown>;
}

/** A benchmark section (http-api now; webhooks, threat engine, kiosk later). */
export interface BenchSection {
  name: string;
  description: string;
  run(context: SectionContext): Promise<SectionResult>;
}
