import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { defineConfig } from 'vitest/config';
import { POSTGRES_ADMIN_URL, REDIS_URL, probeServicesOnce } from './test/support/services.ts';
import { TEST_SECRETS_KEY } from './test/support/secrets.ts';

/** The run's id for its template databases, one for the whole run: the config function below runs for the root and again for every project. */
function templateRun(): string {
  process.env.TSARO_TEST_TEMPLATE_RUN ||= randomBytes(5).toString('hex');
  return process.env.TSARO_TEST_TEMPLATE_RUN;
}

/**
 * `npm test`: unit tests once; the API and database suites on SQLite and again on PostgreSQL.
 * Real PostgreSQL, Redis and Chromium (and, for the fault suite, HAProxy and PostgreSQL's own
 * binaries) are probed first. A missing one skips the suites that
 * need it, named at the start and the end of the run; with TSARO_REQUIRE_SERVICES=1 (CI) a
 * missing one fails the run instead.
 */
export default defineConfig(async () => {
  // This function runs for the root and again for every project: probe and print once.
  const { probes, first } = await probeServicesOnce();
  const missing = probes.filter((probe) => !probe.available);
  const skipped = missing.map((probe) => `  SKIPPED ${probe.name} suites: ${probe.reason}`);
  if (missing.length && process.env.TSARO_REQUIRE_SERVICES === '1') {
    throw new Error(`TSARO_REQUIRE_SERVICES=1 and services are missing:\n${skipped.join('\n')}`);
  }
  const summary = missing.length
    ? `\nSome suites were skipped because a real service is missing:\n${skipped.join('\n')}\n`
    : '\nEvery suite ran: PostgreSQL, Redis, Chromium, Kannel and the fault rig were all available.\n';
  if (missing.length && first) process.stdout.write(summary);
  const has = (name: string) => probes.some((probe) => probe.name === name && probe.available);

  const env = {
    // Processes the tests spawn (npm start, the CLI) hold the same sealing key as the test servers.
    SECRETS_KEY: TEST_SECRETS_KEY,
    // The machine's temporary folder, read here once: browser stacks point TMPDIR elsewhere (test/support/temp.ts).
    TSARO_SYSTEM_TMPDIR: tmpdir(),
    TSARO_TEST_REDIS_URL: has('Redis') ? REDIS_URL : '',
    TSARO_TEST_CHROMIUM: has('Chromium') ? '1' : '',
    TSARO_TEST_KANNEL: has('Kannel') ? '1' : '',
    // This run's migrated template databases (test/support/database.ts), removed at its end (test/support/template-setup.ts).
    TSARO_TEST_TEMPLATE_RUN: templateRun(),
  };
  const dbSuites = ['test/api/**/*.test.ts', 'test/db/**/*.test.ts', 'test/cli/**/*.test.ts'];
  // *.mocked.test.ts replace a module with vi.mock: they need a fresh module graph, so they run
  // isolated. Every other file shares its worker's modules (the rule against module-level state
  // is what makes that safe), which saves re-importing the whole server for each file.
  const mocked = '**/*.mocked.test.ts';
  // A browser suite's setup starts a server, Chromium and, the first time, builds an app: beside the
  // whole suite on two cores CI has seen that pass 30 s (console-ui/screens, console-ui/board.pg).
  const BROWSER_HOOK_MS = 120_000;
  const shared = { isolate: false } as const;
  // *.pg.test.ts: what only PostgreSQL (or several hosts on one PostgreSQL database) can show;
  // *.sqlite.test.ts: what only SQLite has (group commit). Each runs in its engine's project only.
  return {
    test: {
      globalSetup: ['test/support/template-setup.ts'],
      reporters: ['default', { onTestRunEnd: () => void process.stdout.write(summary) }],
      testTimeout: 20_000,
      // Most files wait on servers, databases and Chromium rather than compute: four at once keep
      // two cores busy. TSARO_TEST_WORKERS overrides it (1 to debug one file at a time).
      maxWorkers: Number(process.env.TSARO_TEST_WORKERS ?? 4),
      hookTimeout: 30_000,
      projects: [
        { extends: true as const, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], env, ...shared } },
        { extends: true as const, test: { name: 'sqlite', include: dbSuites, exclude: ['**/*.pg.test.ts', mocked, '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'sqlite' }, ...shared } },
        { extends: true as const, test: { name: 'sqlite-mocked', include: dbSuites.map((glob) => glob.replace('*.test.ts', '*.mocked.test.ts')), exclude: ['**/*.pg.test.ts', '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } },
        // The document in partners' own tools (Redocly, Prism) and the TypeScript client, against the real server (issue #17).
        { extends: true as const, test: { name: 'tools', ...shared, include: ['test/tools/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } },
        // The gate kiosk's core in plain Node against the real server (issue #7).
        { extends: true as const, test: { name: 'kiosk', ...shared, include: ['test/kiosk/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } },
        // The kiosk screens in real Chromium against the browser host and the real server (issue #8).
        ...(has('Chromium')
          ? [{ extends: true as const, test: { name: 'ui', ...shared, include: ['test/ui/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' }, hookTimeout: BROWSER_HOOK_MS } }]
          : []),
        // The responder app in real Chromium at a phone's size against the real server (issue #15).
        // A test is a whole journey of one or two phones (each wait inside it bounded), so it gets 90 s, not 20.
        ...(has('Chromium')
          ? [{ extends: true as const, test: { name: 'responder-ui', ...shared, include: ['test/responder-ui/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' }, testTimeout: 90_000, hookTimeout: BROWSER_HOOK_MS } }]
          : []),
        // The partner console in real Chromium against the real server (issue #27): journeys of a person, so 90 s each.
        // Isolated: on clean clones, board.test.ts failed only after another file had run in its worker
        // (a leak not yet found); each file here starts its own Chromium, so the imports cost little beside it.
        ...(has('Chromium')
          ? [{ extends: true as const, test: { name: 'console-ui', include: ['test/console-ui/**/*.test.ts'], exclude: ['**/*.pg.test.ts', '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'sqlite' }, testTimeout: 90_000, hookTimeout: BROWSER_HOOK_MS } }]
          : []),
        // The console on two hosts sharing one PostgreSQL database (a revoked key, a removed person, heard on the other host).
        ...(has('Chromium') && has('PostgreSQL')
          ? [{ extends: true as const, test: { name: 'console-ui-pg', ...shared, include: ['test/console-ui/**/*.pg.test.ts'], env: { ...env, TSARO_TEST_DB: 'postgres', TSARO_TEST_POSTGRES_ADMIN_URL: POSTGRES_ADMIN_URL }, testTimeout: 90_000, hookTimeout: BROWSER_HOOK_MS } }]
          : []),
        // Three hosts behind HAProxy on a private PostgreSQL and Redis, one fault at a time (issue #12).
        ...(has('Fault rig')
          ? [{ extends: true as const, test: { name: 'faults', include: ['test/faults/**/*.test.ts'], env, testTimeout: 600_000, hookTimeout: 120_000 } }]
          : []),
        ...(has('PostgreSQL')
          ? [{ extends: true as const, test: { name: 'postgres', include: dbSuites, exclude: ['**/*.sqlite.test.ts', mocked, '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'postgres', TSARO_TEST_POSTGRES_ADMIN_URL: POSTGRES_ADMIN_URL }, ...shared } },
            { extends: true as const, test: { name: 'postgres-mocked', include: dbSuites.map((glob) => glob.replace('*.test.ts', '*.mocked.test.ts')), exclude: ['**/*.sqlite.test.ts', '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'postgres', TSARO_TEST_POSTGRES_ADMIN_URL: POSTGRES_ADMIN_URL } } }]
          : []),
      ],
    },
  };
});
