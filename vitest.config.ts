import { defineConfig } from 'vitest/config';
import { POSTGRES_ADMIN_URL, REDIS_URL, probeServices } from './test/support/services.ts';

/**
 * `npm test`: unit tests once; the API and database suites on SQLite and again on PostgreSQL.
 * Real PostgreSQL, Redis and Chromium are probed first. A missing one skips the suites that
 * need it, named at the start and the end of the run; with TSARO_REQUIRE_SERVICES=1 (CI) a
 * missing one fails the run instead.
 */
export default defineConfig(async () => {
  const probes = await probeServices();
  const missing = probes.filter((probe) => !probe.available);
  const skipped = missing.map((probe) => `  SKIPPED ${probe.name} suites: ${probe.reason}`);
  if (missing.length && process.env.TSARO_REQUIRE_SERVICES === '1') {
    throw new Error(`TSARO_REQUIRE_SERVICES=1 and services are missing:\n${skipped.join('\n')}`);
  }
  const summary = missing.length
    ? `\nSome suites were skipped because a real service is missing:\n${skipped.join('\n')}\n`
    : '\nEvery suite ran: PostgreSQL, Redis and Chromium were all available.\n';
  if (missing.length) process.stdout.write(summary);
  const has = (name: string) => probes.some((probe) => probe.name === name && probe.available);

  const env = {
    TSARO_TEST_REDIS_URL: has('Redis') ? REDIS_URL : '',
    TSARO_TEST_CHROMIUM: has('Chromium') ? '1' : '',
  };
  const dbSuites = ['test/api/**/*.test.ts', 'test/db/**/*.test.ts', 'test/cli/**/*.test.ts'];
  // *.pg.test.ts: what only several hosts on one PostgreSQL database can show.
  return {
    test: {
      reporters: ['default', { onTestRunEnd: () => void process.stdout.write(summary) }],
      testTimeout: 20_000,
      hookTimeout: 30_000,
      projects: [
        { extends: true as const, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], env } },
        { extends: true as const, test: { name: 'sqlite', include: dbSuites, exclude: ['**/*.pg.test.ts', '**/node_modules/**'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } },
        // The gate kiosk's core in plain Node against the real server (issue #7).
        { extends: true as const, test: { name: 'kiosk', include: ['test/kiosk/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } },
        // The kiosk screens in real Chromium against the browser host and the real server (issue #8).
        ...(has('Chromium')
          ? [{ extends: true as const, test: { name: 'ui', include: ['test/ui/**/*.test.ts'], env: { ...env, TSARO_TEST_DB: 'sqlite' } } }]
          : []),
        ...(has('PostgreSQL')
          ? [{ extends: true as const, test: { name: 'postgres', include: dbSuites, env: { ...env, TSARO_TEST_DB: 'postgres', TSARO_TEST_POSTGRES_ADMIN_URL: POSTGRES_ADMIN_URL } } }]
          : []),
      ],
    },
  };
});
