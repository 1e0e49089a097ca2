// Bundles the Electron shell (main process and preload) into dist-electron/ as CommonJS, which
// is what Electron loads: `npm run kiosk` runs this, then `electron .`. better-sqlite3 stays
// outside the bundle (a native module: electron-builder rebuilds it for Electron's ABI).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// KIOSK_BUILD_DIR: elsewhere than dist-electron/ (the tests build into a temporary folder).
const out = process.env.KIOSK_BUILD_DIR || 'dist-electron';
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node22', sourcemap: true, absWorkingDir: root, logLevel: 'warning' };

await build({ ...common, entryPoints: ['electron/main.ts'], outfile: `${out}/main.cjs`, external: ['electron', 'better-sqlite3'] });
// The preload runs sandboxed: only `electron` may be required, everything else is bundled in.
await build({ ...common, entryPoints: ['electron/preload.ts'], outfile: `${out}/preload.cjs`, external: ['electron'] });
