import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `npm install` on a fresh clone must leave package-lock.json as it is (issue #48): npm writes
 * `hasInstallScript: true` for every package with an install step (an install, preinstall or
 * postinstall script, or a binding.gyp, which npm builds with node-gyp), and rewrites a lock
 * file that says otherwise. Read against the packages installed here.
 */
describe('package-lock.json as npm install writes it', () => {
  it('marks exactly the installed packages that have an install step', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean; link?: boolean }> };
    const wrong: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path.startsWith('node_modules/') || entry.link) continue;
      const folder = join(ROOT, path);
      if (!existsSync(join(folder, 'package.json'))) continue; // an optional package for another platform
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
      const scripts = manifest.scripts ?? {};
      const installs = Boolean(scripts.install || scripts.preinstall || scripts.postinstall || existsSync(join(folder, 'binding.gyp')));
      if (installs !== Boolean(entry.hasInstallScript)) wrong.push(`${path}: has an install step ${installs}, the lock says ${Boolean(entry.hasInstallScript)}`);
    }
    expect(wrong).toEqual([]);
  });
});
