import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIfStale, isStale, type ViteApp } from '../../scripts/build-if-stale.ts';
import { RENDERER_APP } from '../../scripts/build-renderer.ts';

/**
 * `npm run kiosk:web` (and the UI tests) call ensureRendererBuilt(): buildIfStale on the
 * renderer. Here the same function builds a small Vite app of its own in a temporary folder,
 * whose config counts the builds, so each decision is seen in what Vite actually did.
 */
let root: string;
let app: ViteApp;
const builds = () => (existsSync(join(root, 'builds.txt')) ? readFileSync(join(root, 'builds.txt'), 'utf8').length : 0);
const built = () => join(root, 'dist', 'index.html');
/** Sets a file's modification time `secondsAgo` before now: no test waits for the clock to move. */
const touch = (path: string, secondsAgo: number) => {
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, at, at);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tsaro-build-'));
  mkdirSync(join(root, 'src', 'screens'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>gate</title><script type="module" src="./src/main.js"></script>');
  writeFileSync(join(root, 'src', 'main.js'), "import { words } from './screens/words.js';\ndocument.title = words;\n");
  writeFileSync(join(root, 'src', 'screens', 'words.js'), "export const words = 'LET IN';\n");
  writeFileSync(join(root, 'package.json'), '{"type": "module"}');
  writeFileSync(
    join(root, 'vite.config.ts'),
    `import { appendFileSync } from 'node:fs';\nexport default { logLevel: 'silent', plugins: [{ name: 'count-builds', buildStart() { appendFileSync(${JSON.stringify(join(root, 'builds.txt'))}, 'x'); } }] };\n`,
  );
  app = { root, sources: [join(root, 'src'), join(root, 'index.html'), join(root, 'vite.config.ts'), join(root, 'no-such-folder')], lock: join(root, '.build.lock') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the screens are built when missing or stale, and only then', () => {
  it('is stale with no build, fresh once built, stale when any source, however deep, changes its content, and not when it is only touched', async () => {
    expect(isStale(app)).toBe(true);
    await buildIfStale(app);
    expect(isStale(app)).toBe(false);

    // A checkout or an editor that rewrites a file unchanged: no rebuild.
    touch(join(root, 'src', 'screens', 'words.js'), -60);
    writeFileSync(join(root, 'index.html'), readFileSync(join(root, 'index.html')));
    expect(isStale(app)).toBe(false);

    // An edit, even within the same second as the build.
    writeFileSync(join(root, 'src', 'screens', 'words.js'), "export const words = 'LET IN NOW';\n");
    expect(isStale(app)).toBe(true);
    writeFileSync(join(root, 'src', 'screens', 'words.js'), "export const words = 'LET IN';\n");
    expect(isStale(app)).toBe(false);
    // A file added, or one removed.
    writeFileSync(join(root, 'src', 'screens', 'more.js'), 'export {};\n');
    expect(isStale(app)).toBe(true);
    rmSync(join(root, 'src', 'screens', 'more.js'));
    expect(isStale(app)).toBe(false);
    writeFileSync(join(root, 'vite.config.ts'), readFileSync(join(root, 'vite.config.ts'), 'utf8') + '\n// changed\n');
    expect(isStale(app)).toBe(true);
    // A build with no record of its sources (made before this rule) is stale.
    await buildIfStale(app);
    rmSync(join(root, 'dist', '.sources.sha256'));
    expect(isStale(app)).toBe(true);
  }, 60_000);

  it('builds a missing app, leaves a fresh one alone, rebuilds when a source changes, and two callers at once build it once', async () => {
    await buildIfStale(app);
    expect(builds()).toBe(1);
    expect(existsSync(built())).toBe(true);
    expect(isStale(app)).toBe(false);
    expect(existsSync(app.lock)).toBe(false);

    await buildIfStale(app);
    expect(builds()).toBe(1);

    // A source edited.
    writeFileSync(join(root, 'src', 'screens', 'words.js'), "export const words = 'DO NOT LET IN';\n");
    await Promise.all([buildIfStale(app), buildIfStale(app)]);
    expect(builds()).toBe(2);
    const bundle = readdirSync(join(root, 'dist', 'assets')).map((name) => readFileSync(join(root, 'dist', 'assets', name), 'utf8')).join('\n');
    expect(bundle).toContain('DO NOT LET IN');
  }, 60_000);

  it("the renderer's sources are all there: a source moved away would never make the build stale again", () => {
    for (const source of RENDERER_APP.sources) expect(existsSync(source), source).toBe(true);
    expect(RENDERER_APP.sources.some((source) => source.endsWith('/shared'))).toBe(true);
  });
});
