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

export interface SectionResult {
  name: string;
  rows: ResultRow[];
  aims: AimCheck[];
  /** Printed under the table: skipped engines, caveats. */
  notes: string[];
}

/** A benchmark section (http-api now; webhooks, threat engine, kiosk later). */
export interface BenchSection {
  name: string;
  description: string;
  run(context: SectionContext): Promise<SectionResult>;
}
