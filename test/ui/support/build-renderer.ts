import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '../../..');
const RENDERER = join(ROOT, 'renderer');
const BUILT = join(RENDERER, 'dist', 'index.html');
const LOCK = join(ROOT, 'test-artifacts', 'ui', '.renderer-build.lock');
const SOURCES = [join(RENDERER, 'src'), join(RENDERER, 'index.html'), join(RENDERER, 'vite.config.ts'), join(ROOT, 'shared')];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function isStale(): boolean {
  if (!existsSync(BUILT)) return true;
  const built = statSync(BUILT).mtimeMs;
  return SOURCES.some((path) => existsSync(path) && newestChange(path) > built);
}

/**
 * Builds renderer/dist (what the browser host serves) when a source is newer than it. UI test
 * files run in parallel workers, so the build happens under a lock directory: one worker
 * builds, the others wait for it and find the build fresh.
 */
export async function ensureRendererBuilt(): Promise<void> {
  mkdirSync(join(ROOT, 'test-artifacts', 'ui'), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock left by a worker that died more than two minutes ago is stale.
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another worker held ${LOCK} for two minutes`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  try {
    if (isStale()) await build({ root: RENDERER, configFile: join(RENDERER, 'vite.config.ts'), logLevel: 'warn' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
