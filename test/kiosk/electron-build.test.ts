import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, matchesGlob, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'tsaro-electron-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function requires(file: string): string[] {
  return [...new Set([...readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]!))].sort();
}

describe('the Electron shell build', () => {
  it('bundles the main process and a sandbox-safe preload where package.json and electron-builder look for them', () => {
    execFileSync(process.execPath, ['electron/build.mjs'], { cwd: ROOT, env: { ...process.env, KIOSK_BUILD_DIR: out } });
    // The sandboxed preload may require electron and nothing else.
    expect(requires(join(out, 'preload.cjs'))).toEqual(['electron']);
    // The main process: Electron, Node's own modules and the native SQLite driver; no server code.
    const main = requires(join(out, 'main.cjs'));
    // (mDNS's multicast-dns, bundled, asks for Node's own modules without the `node:` prefix: 'dgram', 'os'.)
    expect(main.filter((name) => !name.startsWith('node:') && !builtinModules.includes(name) && name !== 'electron' && name !== 'better-sqlite3')).toEqual([]);
    expect(main).toContain('better-sqlite3');

    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // `npm run kiosk` builds, then starts Electron on the package: run its build steps as npm
    // would (into the temporary folder) and check that what Electron then loads is what they made.
    const steps = String(pkg.scripts.kiosk).split('&&').map((step) => step.trim());
    expect(steps.at(-1)).toMatch(/^electron \.$/);
    const fresh = join(out, 'from-script');
    for (const step of steps.slice(0, -1)) execSync(step, { cwd: ROOT, env: { ...process.env, KIOSK_BUILD_DIR: fresh }, stdio: 'pipe' });
    expect(existsSync(join(fresh, basename(pkg.main)))).toBe(true);
    // The main process opens its preload from the folder package.json's entry is in.
    const mainSource = readFileSync(join(fresh, 'main.cjs'), 'utf8');
    const preloadDir = dirname(pkg.main);
    expect(mainSource).toContain(`"${preloadDir}", "preload.cjs"`);
    expect(existsSync(join(fresh, 'preload.cjs'))).toBe(true);
    // electron-builder packs the entry, the preload and the built screens, for Linux and Windows.
    const packed = (file: string) => (pkg.build.files as string[]).some((glob) => !glob.startsWith('!') && matchesGlob(file, glob));
    for (const file of [pkg.main, `${preloadDir}/preload.cjs`, 'renderer/dist/index.html', 'renderer/dist/assets/index.js']) expect(packed(file), file).toBe(true);
    expect(packed('server/app.ts')).toBe(false);
    expect(Object.keys(pkg.build)).toEqual(expect.arrayContaining(['linux', 'win']));
  });
});
