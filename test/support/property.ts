import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * Every property test under test/ runs through `checkProperty` instead of `fc.assert`, so a
 * failure anywhere (CI included) can be replayed exactly: the seed is chosen here (or read from
 * FC_SEED), and on failure the seed and the counterexample's path are printed as the command to
 * run. FC_PATH, with FC_SEED and the test named by `-t`, jumps straight to that counterexample.
 */
export function propertyParameters<T>(params: fc.Parameters<T> = {}, env: Record<string, string | undefined> = process.env): fc.Parameters<T> & { seed: number } {
  const fromEnv = env.FC_SEED?.trim();
  if (fromEnv && !/^-?\d+$/.test(fromEnv)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(fromEnv)}`);
  const seed = fromEnv ? Number(fromEnv) : (params.seed ?? (Date.now() ^ Math.floor(Math.random() * 0x1_0000_0000)) | 0);
  const path = fromEnv && env.FC_PATH?.trim() ? env.FC_PATH.trim() : params.path;
  return { ...params, seed, ...(path !== undefined && { path, endOnFailure: true }) };
}

/** The path fast-check reports for the shrunk counterexample (`{ seed: 1, path: "29:3:2" }`). */
export function failurePath(err: unknown): string | undefined {
  return /path: "([^"]*)"/.exec(err instanceof Error ? err.message : String(err))?.[1];
}

export function replayCommand(seed: number, path: string | undefined): string {
  const { testPath, currentTestName } = expect.getState();
  const file = testPath ? testPath.slice(testPath.lastIndexOf('/test/') + 1) : '<test file>';
  const name = currentTestName ? ` -t ${JSON.stringify(currentTestName.split(' > ').at(-1))}` : '';
  return `FC_SEED=${seed}${path ? ` FC_PATH=${path}` : ''} npx vitest run ${file}${name}`;
}

export function checkProperty<Ts>(property: fc.IAsyncProperty<Ts>, params?: fc.Parameters<Ts>): Promise<void>;
export function checkProperty<Ts>(property: fc.IProperty<Ts>, params?: fc.Parameters<Ts>): void;
export function checkProperty<Ts>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts> = {}): void | Promise<void> {
  const full = propertyParameters(params);
  const report = (err: unknown): never => {
    console.error(`Property failed with seed ${full.seed}, path ${failurePath(err) ?? '(none)'}. Replay: ${replayCommand(full.seed, failurePath(err))}`);
    throw err;
  };
  try {
    const run = fc.assert(property as fc.IProperty<Ts>, full) as void | Promise<void>;
    if (run instanceof Promise) return run.catch(report);
  } catch (err) {
    report(err);
  }
}
