/**
 * Background work of the kiosk core, one small object per concern: each owns its own timer and
 * runs one at a time, so no loop holds every timer of the core. `start` and `stop` are idempotent;
 * `runSoon` runs the work now (at most one run at a time, a call while one runs is dropped: the
 * next tick or caller runs it again), and answers the run under way so a caller may wait for it.
 */
export class Every {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    /** What the work is, for the log. */
    readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly logError: (error: unknown) => void,
  ) {}

  get started(): boolean {
    return this.timer !== null;
  }

  /** Runs every `intervalMs` from now on; `now`: once at once too. */
  start({ now = false }: { now?: boolean } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runSoon(), this.intervalMs);
    if (now) void this.runSoon();
  }

  /** A run now, unless one is under way or the timer is stopped; the run under way either way. */
  runSoon(): Promise<void> {
    if (!this.timer) return Promise.resolve();
    this.running ??= this.work()
      .then(() => undefined)
      .catch((error: unknown) => this.logError(error))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Stops the timer; answers the run under way, if any (never rejects). */
  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.running ?? Promise.resolve();
  }
}
