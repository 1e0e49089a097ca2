import type { Logger } from 'pino';

/**
 * One job the runner keeps going: `runOnce` every `everyMs`. A feature describes its timer as a
 * job and registers it (server/server.ts), instead of wiring a setInterval of its own.
 */
export interface Job<T = unknown> {
  /** Named in the log when it fails, and by `run(name)` (tests, the server's `advanceDispatch()`...). */
  name: string;
  everyMs: number;
  runOnce(): Promise<T>;
  /** After a run, how soon the next one (a backlog being caught up); the default is `everyMs`. */
  nextInMs?(result: T): number;
  /** What the log says when a run fails (default: `<name> failed; the next run retries`). */
  failure?: string;
  /** false: registered but never run by a timer, only by `run(name)` (a test that moves the clock by hand). */
  timed?: boolean;
  /** Logs a run's result worth saying (the sweeps' counts). */
  report?(result: T, logger: Logger): void;
}

export interface JobRunner {
  register<T>(job: Job<T>): void;
  /** Starts every registered job's timer (a job registered after `start` starts at once). */
  start(): void;
  /**
   * Runs the job now, after any run of it in progress (never two runs of one job at once), and
   * answers its result; a failure is thrown to the caller (tests call the jobs by hand).
   */
  run<T>(name: string): Promise<T>;
  /** Names of the registered jobs (the docs and a test list them). */
  names(): string[];
  /** Stops every timer and waits for any run in progress: nothing runs after it resolves. */
  stop(): Promise<void>;
}

interface Entry {
  job: Job<unknown>;
  timer?: NodeJS.Timeout;
  /** The run in progress, or the last one (settled). */
  running: Promise<unknown>;
  busy: boolean;
}

/**
 * The server's timers as one runner: each job runs one at a time (a tick while it runs is
 * skipped, as the dispatch sweep always did), one failing is logged and the others go on, and the
 * next run is timed from the end of the last, so a slow run never piles up behind itself.
 */
export function createJobRunner(logger: Logger): JobRunner {
  const entries = new Map<string, Entry>();
  let started = false;
  let stopped = false;

  const schedule = (entry: Entry, ms: number) => {
    if (stopped) return;
    entry.timer = setTimeout(() => tick(entry), ms);
    entry.timer.unref();
  };

  const runEntry = (entry: Entry): Promise<unknown> => {
    const run = entry.running.then(async () => {
      entry.busy = true;
      try {
        return await entry.job.runOnce();
      } finally {
        entry.busy = false;
      }
    });
    entry.running = run.catch(() => undefined);
    return run;
  };

  const tick = (entry: Entry) => {
    entry.timer = undefined;
    if (stopped) return;
    if (entry.busy) return schedule(entry, entry.job.everyMs);
    runEntry(entry).then(
      (result) => {
        entry.job.report?.(result, logger);
        schedule(entry, entry.job.nextInMs?.(result) ?? entry.job.everyMs);
      },
      (err: unknown) => {
        logger.warn({ err, job: entry.job.name }, entry.job.failure ?? `${entry.job.name} failed; the next run retries`);
        schedule(entry, entry.job.everyMs);
      },
    );
  };

  return {
    register(job) {
      if (entries.has(job.name)) throw new Error(`a job named ${job.name} is registered already`);
      const entry: Entry = { job: job as Job<unknown>, running: Promise.resolve(), busy: false };
      entries.set(job.name, entry);
      if (started && job.timed !== false) schedule(entry, job.everyMs);
    },
    start() {
      started = true;
      for (const entry of entries.values()) if (!entry.timer && entry.job.timed !== false) schedule(entry, entry.job.everyMs);
    },
    run<T>(name: string): Promise<T> {
      const entry = entries.get(name);
      if (!entry) throw new Error(`no job named ${name}`);
      return runEntry(entry) as Promise<T>;
    },
    names: () => [...entries.keys()],
    async stop() {
      stopped = true;
      for (const entry of entries.values()) clearTimeout(entry.timer);
      await Promise.all([...entries.values()].map((entry) => entry.running));
    },
  };
}
