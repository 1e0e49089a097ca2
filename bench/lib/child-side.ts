import { READY_FIELD } from './children.ts';

/** Prints the one ready line the parent waits for (see `startChild`). */
export function announceReady(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ [READY_FIELD]: true, ...fields })}\n`);
}

/**
 * Stops the child on SIGTERM/SIGINT, and when the parent goes away (its end of our stdin
 * closes), so no server outlives the benchmark. A stop that hangs is cut short after 5 s.
 */
export function stopOnSignalOrOrphan(stop: () => Promise<void>): void {
  let stopping = false;
  const run = (why: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      process.stderr.write(`bench child ${process.pid}: stop after ${why} took too long, exiting\n`);
      process.exit(1);
    }, 5_000);
    force.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`bench child ${process.pid}: stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => run('SIGTERM'));
  process.on('SIGINT', () => run('SIGINT'));
  process.stdin.on('end', () => run('parent gone'));
  process.stdin.on('error', () => run('parent gone'));
  process.stdin.resume();
}
