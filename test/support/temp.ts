import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The machine's temporary folder as vitest found it (vitest.config.ts passes it down), never a
 * folder a browser stack pointed TMPDIR at: workers keep their modules between files, so a
 * module that read `tmpdir()` after another file's stack had changed TMPDIR would nest its
 * folders inside that one, past a Unix socket's 107 bytes (Chromium's SingletonSocket).
 */
export const SYSTEM_TMP = process.env.TSARO_SYSTEM_TMPDIR || tmpdir();

export interface BrowserTmp {
  dir: string;
  /** TMPDIR as it was before, and the folder removed. */
  restore(): void;
}

/**
 * A short folder of a browser stack's own in the system's temporary folder, made TMPDIR (where
 * Playwright puts the profile and Chromium its socket) until `restore()`.
 */
export function browserTmp(prefix: string): BrowserTmp {
  const dir = mkdtempSync(join(SYSTEM_TMP, prefix));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return {
    dir,
    restore() {
      if (process.env.TMPDIR === dir) {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
