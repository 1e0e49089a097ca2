import { join, resolve } from 'node:path';
import { buildIfStale, type ViteApp } from '../scripts/build-if-stale.ts';

const ROOT = resolve(import.meta.dirname, '..');
const APP = join(ROOT, 'responder-app');

/** responder-app/dist is what the API serves at /responder/. */
const RESPONDER_APP: ViteApp = {
  root: APP,
  sources: [join(APP, 'src'), join(APP, 'public'), join(APP, 'index.html'), join(APP, 'vite.config.ts'), join(ROOT, 'shared', 'schemas')],
  lock: join(APP, '.build.lock'),
};

/** Builds the responder app when a source is newer than its build: `npm start` runs it first, and so do the tests. */
export const ensureResponderAppBuilt = (): Promise<void> => buildIfStale(RESPONDER_APP);

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureResponderAppBuilt();
