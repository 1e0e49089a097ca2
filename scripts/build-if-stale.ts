import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'vite';

/** A Vite app built to `<root>/dist`: the kiosk's screens (renderer/) and the responder app. */
export interface ViteApp {
  root: string;
  /** Files and folders whose change makes the build stale. */
  sources: string[];
  /** A directory made while building: parallel callers (test workers, `npm start`) wait on it. */
  lock: string;
}

/** A lock older than this was left by a process that died. */
const LOCK_STALE_MS = 180_000;

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

export function isStale(app: ViteApp): boolean {
  const built = join(app.root, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return app.sources.some((path) => existsSync(path) && newestChange(path) > builtAt);
}

/**
 * Builds the app when a source is newer than its build, under a lock directory: one caller
 * builds, the others wait for it and find the build fresh. Always React's production build.
 */
export async function buildIfStale(app: ViteApp): Promise<void> {
  mkdirSync(dirname(app.lock), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(app.lock);
      break;
    } catch {
      if (existsSync(app.lock) && Date.now() - statSync(app.lock).mtimeMs > LOCK_STALE_MS) rmSync(app.lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another build held ${app.lock} for three minutes`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  try {
    if (!isStale(app)) return;
    // Vite follows NODE_ENV, and vitest sets it to `test`: that would build React's development
    // version (twice the size or more), and the next `npm start` would find it fresh.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({ root: app.root, configFile: join(app.root, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
  } finally {
    rmSync(app.lock, { recursive: true, force: true });
  }
}
