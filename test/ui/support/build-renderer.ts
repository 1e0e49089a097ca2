import { join, resolve } from 'node:path';
import { buildIfStale } from '../../../scripts/build-if-stale.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const RENDERER = join(ROOT, 'renderer');

/**
 * Builds renderer/dist (what the browser host serves) when a source is newer than it. UI test
 * files run in parallel workers: one builds, the others wait for it and find the build fresh.
 */
export const ensureRendererBuilt = (): Promise<void> =>
  buildIfStale({
    root: RENDERER,
    sources: [join(RENDERER, 'src'), join(RENDERER, 'index.html'), join(RENDERER, 'vite.config.ts'), join(ROOT, 'shared')],
    lock: join(ROOT, 'test-artifacts', 'ui', '.renderer-build.lock'),
  });
