/**
 * `npm run bench`: every benchmark section, one after the other, then a table per section on
 * stdout and the whole run as JSON in bench/results/server-<timestamp>.json.
 *
 * Environment:
 *   BENCH_DURATION_S     measured seconds per target (default 10)
 *   BENCH_WARMUP_S       discarded warm-up seconds before each target (default 2; 0 skips it)
 *   BENCH_CONNECTIONS    concurrent connections (default 50)
 *   BENCH_ONLY           comma-separated section names (default: all; http-api, redis, webhooks, event-stream, dispatch, operations, threat, kiosk, peers, gate-scan, console, reference, scale)
 *   BENCH_TIMEOUT_S      hard stop for the whole run (default: computed from the above)
 * Section-specific variables are documented in each section's file.
 *
 * Load comes from this process (autocannon); every server runs in a child process on 127.0.0.1.
 * Children are stopped at the end, on error, on SIGINT/SIGTERM, and killed if this process exits.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { consoleSection } from './console.ts';
import { dispatchSection } from './dispatch.ts';
import { eventStreamSection } from './event-stream.ts';
import { gateScanSection } from './gate-scan.ts';
import { httpApiSection } from './http-api.ts';
import { kioskSection } from './kiosk.ts';
import { operationsSection } from './operations.ts';
import { peersSection } from './peers.ts';
import { REPO_ROOT, stopAllChildren } from './lib/children.ts';
import { runCleanups } from './lib/cleanup.ts';
import type { LoadSettings } from './lib/load.ts';
import { formatSection } from './lib/report.ts';
import { intFromEnv } from './lib/settings.ts';
import type { BenchSection, SectionResult } from './lib/section.ts';
import { redisSection } from './redis.ts';
import { scaleSection } from './scale.ts';
import { referenceSection } from './reference.ts';
import { threatSection } from './threat.ts';
import { webhooksSection } from './webhooks.ts';

/** Every section, in run order. */
const SECTIONS: BenchSection[] = [httpApiSection, redisSection, webhooksSection, eventStreamSection, dispatchSection, operationsSection, threatSection, kioskSection, peersSection, gateScanSection, consoleSection, referenceSection, scaleSection];

/** Targets a section measures, for the watchdog's estimate (generous on purpose). */
const TARGETS_PER_SECTION_ESTIMATE = 8;
/** Seconds a section spends besides its targets (data generation, loading, in-process timings), for the watchdog. */
const EXTRA_SECONDS: Record<string, number> = { operations: 300, threat: 300, kiosk: 400, 'gate-scan': 240, console: 180, reference: 180, scale: 7200 };

function selectSections(): BenchSection[] {
  const only = process.env.BENCH_ONLY?.trim();
  if (!only) return SECTIONS;
  const names = only.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !SECTIONS.some((s) => s.name === n));
  if (unknown.length) {
    throw new Error(`BENCH_ONLY: unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  }
  return SECTIONS.filter((s) => names.includes(s.name));
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Children first (they hold the databases), then databases and temporary files. */
async function stopEverything(): Promise<void> {
  await stopAllChildren();
  await runCleanups(log);
}

async function main(): Promise<number> {
  const load: LoadSettings = {
    durationS: intFromEnv('BENCH_DURATION_S', 10, 1),
    warmupS: intFromEnv('BENCH_WARMUP_S', 2, 0),
    connections: intFromEnv('BENCH_CONNECTIONS', 50, 1),
  };
  const sections = selectSections();
  const estimateS =
    sections.length * TARGETS_PER_SECTION_ESTIMATE * (load.durationS + load.warmupS + 15) + 120 +
    sections.reduce((sum, s) => sum + (EXTRA_SECONDS[s.name] ?? 0), 0);
  const timeoutS = intFromEnv('BENCH_TIMEOUT_S', estimateS, 10);

  // The run stops by itself: past the deadline, children are stopped and the process exits.
  const watchdog = setTimeout(() => {
    log(`bench: still running after ${timeoutS} s (BENCH_TIMEOUT_S); stopping`);
    void stopEverything().finally(() => process.exit(3));
  }, timeoutS * 1000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`bench: ${signal}; stopping children`);
      void stopEverything().finally(() => process.exit(130));
    });
  }

  const startedAt = new Date();
  log(
    `bench: ${sections.map((s) => s.name).join(', ')}; ${load.connections} connections, ` +
      `${load.warmupS} s warm-up + ${load.durationS} s per target; node ${process.version}, ${cpus().length} CPUs`,
  );
  const results: SectionResult[] = [];
  const failures: { section: string; error: string }[] = [];
  try {
    for (const section of sections) {
      try {
        results.push(await section.run({ load, log }));
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        log(`bench: section ${section.name} failed: ${message}`);
        failures.push({ section: section.name, error: err instanceof Error ? err.message : String(err) });
        await stopEverything();
      }
    }
  } finally {
    await stopEverything();
    clearTimeout(watchdog);
  }

  process.stdout.write('\n');
  for (const result of results) process.stdout.write(`${formatSection(result)}\n\n`);
  for (const failure of failures) process.stdout.write(`Section ${failure.section} FAILED: ${failure.error}\n\n`);

  const resultsDir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const file = join(resultsDir, `server-${stamp}.json`);
  const cpuList = cpus();
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    machine: { node: process.version, platform: process.platform, cpus: cpuList.length, cpuModel: cpuList[0]?.model, memoryBytes: totalmem() },
    load,
    sections: results,
    failures,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`Results written to ${file}\n`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await stopEverything();
    process.exit(1);
  },
);
