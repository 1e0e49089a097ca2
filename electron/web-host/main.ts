/**
 * `npm run kiosk:web`: the kiosk core and the browser host in one process, set up from KIOSK_*
 * (see electron/README-kiosk.md). Open the printed address in Chromium in kiosk mode:
 *   chromium --kiosk --app=http://127.0.0.1:4300/
 */
import { join, resolve } from 'node:path';
import { createKioskCore } from '../core/core.ts';
import { kioskOptionsFromEnvironment, kioskPortFromEnvironment } from '../core/from-environment.ts';
import { startWebHost } from './server.ts';

const root = resolve(import.meta.dirname, '../..');
// From a checkout, the screens are built (or rebuilt, when a source changed) before the host
// serves them; an installed kiosk without Vite serves what it has.
try {
  const { ensureRendererBuilt } = await import('../../scripts/build-renderer.ts');
  await ensureRendererBuilt();
} catch (error) {
  process.stderr.write(`kiosk host: the screens could not be built (${(error as Error).message}); serving renderer/dist as it is\n`);
}
const core = createKioskCore(kioskOptionsFromEnvironment(process.env, join(root, 'data', 'kiosk')));
const host = await startWebHost({ core, port: kioskPortFromEnvironment(process.env), rendererDir: join(root, 'renderer', 'dist') });
core.start();
// One line a supervisor (or a test) can read: where the kiosk is.
process.stdout.write(`${JSON.stringify({ kiosk: host.url, kiosk_id: core.kioskId, data_dir: core.dataDir })}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await host.close();
  await core.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
