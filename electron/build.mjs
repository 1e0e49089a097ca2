// Bundles the Electron shell (main process and preload) into dist-electron/ as CommonJS, which
// is what Electron loads: `npm run kiosk` runs this, then `electron .`. better-sqlite3 stays
// outside the bundle (a native module: electron-builder rebuilds it for Electron's ABI).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node22', sourcemap: true, absWorkingDir: root, logLevel: 'warning' };

await build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist-electron/main.cjs', external: ['electron', 'better-sqlite3'] });
// The preload runs sandboxed: only `electron` may be required, everything else is bundled in.
await build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist-electron/preload.cjs', external: ['electron'] });
