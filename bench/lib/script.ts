import { stopAllChildren } from './children.ts';
import { runCleanups } from './cleanup.ts';

/**
 * Runs a bench script's `main` as its own process (`node --import tsx bench/<name>.ts`): an error
 * is printed with its stack and sets exit code 1; either way every child it started is stopped and
 * every cleanup it registered runs before the process exits.
 */
export function runBenchScript(main: () => Promise<void>): void {
  main()
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    })
    .finally(async () => {
      await stopAllChildren();
      await runCleanups((line) => process.stderr.write(`${line}\n`));
      process.exit();
    });
}
