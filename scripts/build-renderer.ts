import { join, resolve } from 'node:path';
import { buildIfStale, type ViteApp } from './build-if-stale.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RENDERER = join(ROOT, 'renderer');

/** renderer/dist: the kiosk's screens, served by the browser host and loaded by Electron. */
export const RENDERER_APP: ViteApp = {
  root: RENDERER,
  sources: [join(RENDERER, 'src'), join(RENDERER, 'index.html'), join(RENDERER, 'vite.config.ts'), join(ROOT, 'shared')],
  lock: join(RENDERER, '.build.lock'),
};

/**
 * Builds the screens when they are missing or a source is newer than the build: `npm run
 * kiosk:web` on a fresh checkout shows the kiosk, not a page asking for a build. The UI tests
 * call it too; one caller builds under the lock, the others wait and find the build fresh.
 */
export const ensureRendererBuilt = (): Promise<void> => buildIfStale(RENDERER_APP);

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureRendererBuilt();
