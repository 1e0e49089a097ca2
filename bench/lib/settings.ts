/** What every section reads from the environment, the same way. */

export type Engine = 'sqlite' | 'postgres';

/** An integer setting; a value below `min` or not a whole number stops the run naming the variable. */
export function intFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return value;
}

/** BENCH_ENGINES (`sqlite,postgres` by default). */
export function enginesWanted(): Engine[] {
  const raw = process.env.BENCH_ENGINES?.trim();
  if (!raw) return ['sqlite', 'postgres'];
  const engines = raw.split(',').map((e) => e.trim()).filter(Boolean);
  for (const engine of engines) {
    if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine ${engine}`);
  }
  return engines as Engine[];
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** The sealing key every bench server holds (a fixed, public test key: benchmarks keep no secrets). */
export const BENCH_SECRETS_KEY = '62656e6368206b6579206e6f742061207365637265742030313233343536373'.padEnd(64, '8');
