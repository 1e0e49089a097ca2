import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Which runtime each folder may import from: the architecture, enforced. */
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'dist-electron/', 'renderer/dist/', '.tmp/', 'bench/results/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Code shared by server and kiosk: no server, Electron or renderer internals.
    files: ['shared/**/*.ts'],
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', '**/renderer/**'], message: 'shared/ is imported by server and kiosk; it imports neither.' },
      { group: ['node:*', 'express', 'kysely', 'pg', 'better-sqlite3'], message: 'shared/ runs in the browser too.' },
    ]),
  },
  {
    files: ['server/**/*.ts'],
    rules: restrict([{ group: ['**/electron/**', '**/renderer/**', 'electron'], message: 'The server does not import kiosk code.' }]),
  },
  {
    // The kiosk core runs in plain Node: never Electron, never the page.
    files: ['electron/core/**/*.ts'],
    rules: restrict([
      { group: ['electron'], message: 'electron/core/ runs in plain Node; only electron/main.ts and preload.ts touch Electron.' },
      { group: ['**/renderer/**', '**/server/**'], message: 'The kiosk core talks to the server over HTTP only.' },
    ]),
  },
  {
    // The browser host is the core behind HTTP: plain Node too.
    files: ['electron/web-host/**/*.ts'],
    rules: restrict([
      { group: ['electron'], message: 'The browser host runs in plain Node, without Electron.' },
      { group: ['**/renderer/**', '**/server/**'], message: 'The browser host serves the built renderer and talks to the server over HTTP only.' },
    ]),
  },
  {
    // The preload runs in the sandboxed renderer: Electron's bridge and nothing else.
    files: ['electron/preload.ts'],
    rules: restrict([
      { group: ['node:*', '**/core/**', '**/server/**', '**/renderer/**', 'better-sqlite3'], message: 'The sandboxed preload may use only electron and shared/kiosk/bridge.ts.' },
    ]),
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', 'electron', 'node:*'], message: 'renderer/ imports only from shared/.' },
    ]),
  },
);
