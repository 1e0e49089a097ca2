import { join, resolve } from 'node:path';
import { buildIfStale, type ViteApp } from '../scripts/build-if-stale.ts';

const ROOT = resolve(import.meta.dirname, '..');
const APP = join(ROOT, 'console');

/** console/dist is what the API serves at /console/. */
const CONSOLE_APP: ViteApp = {
  root: APP,
  sources: [join(APP, 'src'), join(APP, 'public'), join(APP, 'index.html'), join(APP, 'vite.config.ts'), join(ROOT, 'shared')],
  lock: join(APP, '.build.lock'),
};

/** Builds the console when a source is newer than its build: `npm start` runs it first, and so do the tests. */
export const ensureConsoleAppBuilt = (): Promise<void> => buildIfStale(CONSOLE_APP);

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureConsoleAppBuilt();
