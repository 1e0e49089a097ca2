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
