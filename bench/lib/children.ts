import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/lib/ → ../..): children run from here so `tsx` and the tree resolve. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A child announces itself with one line on stdout: `{"benchReady":true, ...}`. Anything else on
 * stdout (logs, banners) is drained and dropped, so a chatty child never blocks on a full pipe.
 */
export const READY_FIELD = 'benchReady';

export interface BenchChild<T> {
  name: string;
  pid: number;
  /** The ready line, parsed. */
  ready: T;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartChildOptions {
  /** Path of the script, relative to the repository root (run with `node --import tsx`). */
  script: string;
  env?: Record<string, string | undefined>;
  /** Extra node flags placed before `--import tsx` (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Last resort when the parent exits with children still running: SIGKILL each one, by its pid. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) if (!hasExited(child)) child.kill('SIGKILL');
  });
}

/** Stops every child this process started and that is still running. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((child) => stopProcess(child, 5_000)));
}

async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (hasExited(child)) {
    live.delete(child);
    return;
  }
  const exited = once(child, 'exit').then(() => undefined);
  child.kill('SIGTERM');
  const inTime = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
  if (!inTime && !hasExited(child)) {
    child.kill('SIGKILL');
    await Promise.race([exited, delay(2_000)]);
  }
  live.delete(child);
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

/**
 * Starts `node --import tsx <script>` with its own event loop and waits for its ready line. The
 * child's stdin is a pipe the child watches: if this process dies, the pipe closes and the child
 * stops by itself.
 */
export async function startChild<T extends object>(name: string, options: StartChildOptions): Promise<BenchChild<T>> {
  installExitHook();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', options.script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const stop = (graceMs = 5_000) => stopProcess(child, graceMs);

  const lines = createInterface({ input: child.stdout! });
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  try {
    const ready = await new Promise<T>((resolveReady, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no ready line within ${timeoutMs} ms`)), timeoutMs);
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
      };
      child.once('exit', onExit);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      lines.on('line', (line) => {
        if (!line.startsWith('{') || !line.includes(READY_FIELD)) return;
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed[READY_FIELD] !== true) return;
          clearTimeout(timer);
          child.off('exit', onExit);
          resolveReady(parsed as T);
        } catch {
          // a log line that happens to mention the field: not ours
        }
      });
    });
    return { name, pid: child.pid!, ready, stop };
  } catch (err) {
    await stop(1_000);
    throw err;
  }
}
