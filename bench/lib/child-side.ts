import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
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

/**
 * Listens on 127.0.0.1 (a port the OS picks), announces `ready(origin)` once listening, exits on
 * a listen error, and on stop closes the server, then runs `after` (a pool, an agent).
 */
export function serveOnLoopback(app: Express, name: string, ready: (origin: string) => Record<string, unknown>, after?: () => Promise<void>): void {
  const server = app.listen(0, '127.0.0.1');
  server.once('listening', () => {
    const { port } = server.address() as AddressInfo;
    announceReady(ready(`http://127.0.0.1:${port}`));
  });
  server.once('error', (err) => {
    process.stderr.write(`${name} failed: ${err.message}\n`);
    process.exit(1);
  });
  stopOnSignalOrOrphan(async () => {
    await new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
    });
    await after?.();
  });
}
