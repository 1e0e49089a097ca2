import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'vite';

/** A Vite app built to `<root>/dist`: the kiosk's screens (renderer/), the responder app, the console. */
export interface ViteApp {
  root: string;
  /** Files and folders whose content the build is made from: a change to any makes it stale. */
  sources: string[];
  /** A directory made while building: parallel callers (test workers, `npm start`) wait on it. */
  lock: string;
}

/** A lock older than this was left by a process that died. */
const LOCK_STALE_MS = 180_000;

/** Beside the build: the hash of the sources it was made from. */
const SOURCES_HASH = '.sources.sha256';

function addTree(hash: ReturnType<typeof createHash>, root: string, path: string): void {
  const name = relative(root, path);
  if (!statSync(path).isDirectory()) {
    hash.update(`file ${name}\0`).update(readFileSync(path)).update('\0');
    return;
  }
  hash.update(`dir ${name}\0`);
  for (const entry of readdirSync(path).sort()) addTree(hash, root, join(path, entry));
}

/**
 * What the build depends on, as one hash: every source file's path and bytes. Content, not
 * modification times: a checkout, a copy or an editor that touches files without changing
 * them does not force a rebuild, and an edit within the same second still does.
 */
export function sourcesHash(app: ViteApp): string {
  const hash = createHash('sha256');
  for (const path of app.sources) if (existsSync(path)) addTree(hash, app.root, path);
  return hash.digest('hex');
}

export function isStale(app: ViteApp): boolean {
  const dist = join(app.root, 'dist');
  if (!existsSync(join(dist, 'index.html')) || !existsSync(join(dist, SOURCES_HASH))) return true;
  return readFileSync(join(dist, SOURCES_HASH), 'utf8').trim() !== sourcesHash(app);
}

/**
 * Builds the app when its sources changed since its build, under a lock directory: one caller
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
    // Taken before the build: a source edited while Vite runs leaves the build stale.
    const hash = sourcesHash(app);
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
    writeFileSync(join(app.root, 'dist', SOURCES_HASH), `${hash}\n`);
  } finally {
    rmSync(app.lock, { recursive: true, force: true });
  }
}
