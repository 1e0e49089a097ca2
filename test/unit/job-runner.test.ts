import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJobRunner } from '../../server/jobs/runner.ts';

/** The server's timers as one runner (server/jobs/runner.ts): fake timers, so nothing here waits on the clock. */
describe('the job runner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const silent = () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'silent' });
    logger.warn = ((obj: { job?: string }, msg?: string) => void warnings.push(`${obj.job}: ${msg}`)) as never;
    return { logger, warnings };
  };

  it('runs each job every everyMs; one failing is logged and neither it nor the others stop', async () => {
    const { logger, warnings } = silent();
    const runner = createJobRunner(logger);
    let good = 0;
    let bad = 0;
    runner.register({ name: 'good', everyMs: 1000, runOnce: async () => ++good });
    runner.register({ name: 'bad', everyMs: 1000, runOnce: async () => { bad++; throw new Error('database gone'); }, failure: 'bad failed; retrying' });
    runner.start();
    await vi.advanceTimersByTimeAsync(3500);
    expect(good).toBe(3);
    expect(bad).toBe(3);
    expect(warnings).toEqual(['bad: bad failed; retrying', 'bad: bad failed; retrying', 'bad: bad failed; retrying']);
    await runner.stop();
  });

  it('never runs a job twice at once: a tick while it runs is skipped, and run(name) waits for the run in progress', async () => {
    const runner = createJobRunner(silent().logger);
    let running = 0;
    let most = 0;
    let release!: () => void;
    let runs = 0;
    runner.register({
      name: 'slow',
      everyMs: 100,
      runOnce: async () => {
        running++;
        most = Math.max(most, running);
        runs++;
        await new Promise<void>((resolve) => (release = resolve));
        running--;
        return runs;
      },
    });
    runner.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
    const byHand = runner.run<number>('slow');
    release();
    await vi.advanceTimersByTimeAsync(0);
    release();
    expect(await byHand).toBe(2);
    expect(most).toBe(1);
    const stopping = runner.stop();
    await vi.advanceTimersByTimeAsync(0);
    release?.();
    await stopping;
  });

  it('stop() waits for the run in progress, and nothing runs after it', async () => {
    const runner = createJobRunner(silent().logger);
    let finished = false;
    let started = 0;
    let release!: () => void;
    runner.register({ name: 'job', everyMs: 100, runOnce: async () => { started++; await new Promise<void>((resolve) => (release = resolve)); finished = true; } });
    runner.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(1);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toBe(1);
  });

  it('an untimed job runs only when asked; nextInMs sets the next run (a backlog caught up sooner)', async () => {
    const runner = createJobRunner(silent().logger);
    let manual = 0;
    const times: number[] = [];
    runner.register({ name: 'manual', everyMs: 10, timed: false, runOnce: async () => ++manual });
    runner.register({ name: 'backlog', everyMs: 1000, runOnce: async () => times.push(Date.now()), nextInMs: (n) => (n < 3 ? 20 : 1000) });
    runner.start();
    const t0 = Date.now();
    await vi.advanceTimersByTimeAsync(1100);
    expect(manual).toBe(0);
    expect(times.map((t) => t - t0)).toEqual([1000, 1020, 1040]);
    expect(await runner.run('manual')).toBe(1);
    expect(() => runner.run('nobody')).toThrow('no job named nobody');
    expect(runner.names()).toEqual(['manual', 'backlog']);
    await runner.stop();
  });
});
