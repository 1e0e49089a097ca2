import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
    expect(main.filter((name) => !name.startsWith('node:') && name !== 'electron' && name !== 'better-sqlite3')).toEqual([]);
    expect(main).toContain('better-sqlite3');

    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.main).toBe('dist-electron/main.cjs');
    expect(pkg.scripts.kiosk).toBe('node electron/build.mjs && electron .');
    expect(pkg.scripts['kiosk:web']).toBe('node --import tsx electron/web-host/main.ts');
    expect(pkg.build.files).toEqual(expect.arrayContaining(['dist-electron/*.cjs', 'renderer/dist/**/*']));
    expect(Object.keys(pkg.build)).toEqual(expect.arrayContaining(['linux', 'win']));
  });
});
