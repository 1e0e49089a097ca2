import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Which runtime each folder may import from: the architecture, enforced. */
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/**
 * The stores own their tables (docs/architecture.md). A feature is a folder of server/; its
 * store.ts is the only SQL on its tables, and only that feature imports it: another feature
 * calls its service. Flat config replaces a rule's options per file rather than merging them,
 * so every server block below repeats the kiosk line.
 * One exception, by name: rate-limit/store.ts is the limiter's storage interface (memory or
 * Redis), not a table store.
 */
const serverFolders = readdirSync(new URL('./server', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const noKioskCode = { group: ['**/electron/**', '**/renderer/**', 'electron'], message: 'The server does not import kiosk code.' };
/** Any store.ts, the feature's own included (`./store.ts`, `../store.ts`, `../x/store.ts`). */
const anyStore = (message) => ({ regex: '(^|/)(?<!rate-limit/)store\\.ts$', message });
/** Another feature's store.ts: `<feature>/store.ts` where the folder is not `own`. */
const storeOfAnotherThan = (own, message) => ({ regex: `(^|/)(?!${own ? `${own}/|` : ''}rate-limit/)[\\w-]+/store\\.ts$`, message });
/**
 * The tenant rule: a query reaches one organization's rows, through `whereTenant` / `fromTenant`
 * (server/db/tenant.ts). The one exception, by name: the operations centre's store
 * (server/operations/store.ts), whose staff read live incidents and the responder network across
 * every organization, through `acrossOrganizations`, which nothing else may import.
 */
const crossTenant = {
  group: ['**/db/tenant.ts', './tenant.ts'],
  importNames: ['acrossOrganizations'],
  message: 'The tenant rule: only server/operations/store.ts reads across organizations (acrossOrganizations); everything else goes through whereTenant / fromTenant.',
};
const serverBoundaries = [
  {
    // Wiring at the top of server/ (app, server, sweeps, demo) reaches features through their services.
    files: ['server/*.ts'],
    rules: restrict([noKioskCode, crossTenant, storeOfAnotherThan(undefined, "Call the feature's service: only the feature itself imports its store.ts.")]),
  },
  ...serverFolders.map((feature) => ({
    files: [`server/${feature}/**/*.ts`],
    rules: restrict([noKioskCode, crossTenant, storeOfAnotherThan(feature, `server/${feature}/ imports its own store.ts only: call the other feature's service.`)]),
  })),
  {
    // The tenant rule's one exception (crossTenant, above): the operations centre's cross-organization reads.
    files: ['server/operations/store.ts'],
    rules: restrict([noKioskCode, storeOfAnotherThan('operations', 'server/operations/ imports its own store.ts only: call the other feature\'s service.')]),
  },
  {
    // A route parses, calls the service and answers: no SQL, no store, not even its own.
    files: ['server/**/routes.ts'],
    rules: restrict([
      noKioskCode,
      crossTenant,
      anyStore('routes.ts calls its service, never a store.'),
      { group: ['kysely', 'kysely/*'], message: 'routes.ts holds no SQL: it calls its service.' },
    ]),
  },
  {
    // The health check's `select 1` is the one query a route runs itself: it asks the database, not a table.
    files: ['server/health/routes.ts'],
    rules: restrict([noKioskCode, crossTenant, anyStore('routes.ts calls its service, never a store.')]),
  },
];

/**
 * The rules sit below the screens: shared/ holds what a screen shows (the scopes, the grant rule,
 * their sentences), and the console and the responder app import it, never the reverse. The
 * console's code is under console/src/ (shared/console/ is shared/'s own folder of those rules).
 */
const noScreens = {
  group: ['**/console/src', '**/console/src/**', '**/responder-app/**'],
  message: 'shared/ sits below the screens: move what both need into shared/ and import it from the screen.',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'dist-electron/', 'renderer/dist/', 'responder-app/dist/', 'console/dist/', '.tmp/', 'bench/results/', 'test-artifacts/'] },
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
    ignores: ['shared/node/**'],
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', '**/renderer/**'], message: 'shared/ is imported by server and kiosk; it imports neither.' },
      noScreens,
      { group: ['node:*', 'express', 'kysely', 'pg', 'better-sqlite3'], message: 'shared/ runs in the browser too.' },
    ]),
  },
  {
    // shared/node/: code the server and the kiosk core share that needs Node (files), never the page.
    files: ['shared/node/**/*.ts'],
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', '**/renderer/**'], message: 'shared/ is imported by server and kiosk; it imports neither.' },
      noScreens,
      { group: ['express', 'kysely', 'pg', 'better-sqlite3'], message: 'shared/node/ is plain Node.' },
    ]),
  },
  {
    // The TypeScript client is a package partners can take away: it stands alone.
    files: ['clients/typescript/src/**/*.ts'],
    rules: restrict([
      { group: ['**/server/**', '**/shared/**', '**/electron/**', '**/renderer/**', 'node:*'], message: 'clients/typescript/src runs wherever partners run it: openapi-fetch and web standards only.' },
    ]),
  },
  ...serverBoundaries,
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
      { group: ['**/server/**', '**/electron/**', 'electron', 'node:*', '**/shared/node/**'], message: 'renderer/ imports only from shared/ (not shared/node/).' },
    ]),
  },
  {
    // The responder app runs on a responder's phone: browser code that imports only from shared/.
    files: ['responder-app/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', '**/renderer/**', 'electron', 'node:*', '**/shared/node/**'], message: 'responder-app/ imports only from shared/ (not shared/node/).' },
    ]),
  },
  {
    // The console runs in a person's browser: browser code that imports only from shared/.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict([
      { group: ['**/server/**', '**/electron/**', '**/renderer/**', '**/responder-app/**', 'electron', 'node:*', '**/shared/node/**'], message: 'console/ imports only from shared/ (not shared/node/).' },
    ]),
  },
  {
    // The service worker, plain JavaScript in the phone's worker scope.
    files: ['responder-app/public/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    // Two shapes that made V8 keep every request's objects alive through its young collections
    // (each request promoted, young collections of 25-35 ms: docs/benchmarks.md, "A closure that
    // kept every request"). V8 keeps alive, past a young collection, a closure that the function
    // which made it assigned onto an object (even in the interpreter): a function installs a
    // closure made elsewhere (a module-level factory) or a method; a handler's object with a
    // getter is a class instance.
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "AssignmentExpression[left.type='MemberExpression'][right.type=/^(ArrowFunctionExpression|FunctionExpression)$/]",
          message: 'A closure assigned onto an object by the function that made it kept each request alive through young collections: make it in a module-level factory, or use a method.',
        },
        {
          selector: ":function[params.0.name='req'] Property[kind='get']",
          message: "An object literal's getter in a request handler is a new hidden class per request: use a class with the getter on its prototype.",
        },
      ],
    },
  },
);
