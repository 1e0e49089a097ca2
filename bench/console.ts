/**
 * Section `console`: the console's weight and how soon a control room can use it on a city's
 * mobile link (issue #28).
 *
 *   1. Weight: the script and style of the first load (what index.html names: the entry script,
 *      its stylesheet and what it preloads), gzipped as a server would send them (level 9),
 *      from the production build (`console/dist`, built if missing or stale). Aim: at most 300 KB.
 *      The map's chunk (Leaflet and the shipped borders) loads only with a map screen; it is
 *      reported beside it.
 *   2. Time to a usable board: Debian's Chromium (playwright-core), a signed-in operator, a fresh
 *      profile each time (nothing cached), the network throttled through the DevTools protocol to
 *      1.6 Mbps down, 750 kbps up and 300 ms of latency; from navigation to the board showing its
 *      incidents with the event stream open. BENCH_CONSOLE_LOADS runs (default 5); the median and
 *      the slowest are reported. Aim: under 4 s. The server (bench/serve.ts, SQLite) holds
 *      BENCH_CONSOLE_INCIDENTS active incidents (default 40).
 *
 * Run alone: `BENCH_ONLY=console npm run bench`. Needs Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium); without it the second part is skipped with a note.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { generate } from 'otplib';
import { chromium, type Browser } from 'playwright-core';
import { ensureConsoleAppBuilt } from '../console/build.ts';
import { systemClock } from '../server/clock.ts';
import { openDatabase } from '../server/db/database.ts';
import { inviteOrReset } from '../server/people/service.ts';
import { REPO_ROOT, startChild } from './lib/children.ts';
import { createSqliteDatabase } from './lib/databases.ts';
import { intFromEnv } from './lib/settings.ts';
import type { AimCheck, BenchSection, SectionContext, SectionResult, SectionTable } from './lib/section.ts';

const AIMS = { firstLoadKb: 300, usableBoardS: 4 };
const THROTTLE = { offline: false, latency: 300, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Ready {
  baseUrl: string;
  liveKey: string;
  organizationId: string;
}

const gz = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** What index.html makes the browser fetch before anything runs, and every other chunk. */
function weigh(dist: string): { firstLoad: { file: string; gzipped: number }[]; lazy: { file: string; gzipped: number }[] } {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const named = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const firstLoad = named.map((file) => ({ file, gzipped: gz(join(dist, file)) }));
  const lazy = readdirSync(join(dist, 'assets'))
    .map((name) => `assets/${name}`)
    .filter((file) => /\.(js|css)$/.test(file) && !named.includes(file))
    .map((file) => ({ file, gzipped: gz(join(dist, file)) }));
  return { firstLoad, lazy };
}

/** A person's session cookie (an operator unless said): invited on the host as `tsaro console invite` does, joined through the API. */
export async function operatorCookie(databaseUrl: string, ready: Ready, role: 'operator' | 'owner' = 'operator'): Promise<string> {
  const origin = new URL(ready.baseUrl).origin;
  const opened = openDatabase(databaseUrl);
  try {
    const { invite_url } = await inviteOrReset(
      { db: opened.db, clock: systemClock, publicUrl: origin },
      { organizationId: ready.organizationId, email: `bench-${role}@estate.example`, role },
    );
    const token = invite_url.split('/').pop()!;
    const response = await fetch(`${ready.baseUrl}/console/invitations/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ password: 'lagoon-harmattan-gate-42' }),
    });
    if (response.status !== 201) throw new Error(`accepting the bench invitation: ${response.status} ${await response.text()}`);
    const sessionCookie = (answer: Response) => answer.headers.getSetCookie().find((line) => line.startsWith('tsaro_console='))?.split(';')[0];
    let cookie = sessionCookie(response);
    if (!cookie) throw new Error('accepting the bench invitation set no tsaro_console cookie');
    // Operators enrol a second step on joining (the default policy): as an authenticator app would.
    const joined = (await response.json()) as { session: { stage: string; csrf_token: string } };
    if (joined.session.stage === 'enrol_totp') {
      const headers = { 'content-type': 'application/json', origin, 'sec-fetch-site': 'same-origin', cookie, 'x-csrf-token': joined.session.csrf_token };
      const enrolment = (await (await fetch(`${ready.baseUrl}/console/totp/enrolment`, { method: 'POST', headers, body: '{}' })).json()) as { secret: string };
      const confirmed = await fetch(`${ready.baseUrl}/console/totp/enrolment/confirm`, { method: 'POST', headers, body: JSON.stringify({ code: await generate({ secret: enrolment.secret }) }) });
      if (confirmed.status !== 200) throw new Error(`enrolling the bench operator's second step: ${confirmed.status} ${await confirmed.text()}`);
      cookie = sessionCookie(confirmed) ?? cookie;
    }
    return cookie.slice('tsaro_console='.length);
  } finally {
    await opened.close();
  }
}

async function seedIncidents(ready: Ready, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${ready.baseUrl}/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        category: i % 4 === 0 ? 'sos' : 'medical',
        severity: i % 3 === 0 ? 'critical' : 'high',
        subject: { name: `Resident ${i + 1}`, metadata: { entry_point: `Gate ${String.fromCharCode(65 + (i % 5))}` } },
        location: { coordinates: [3.42 + i / 1000, 6.43], address: `Block ${i + 1}, Admiralty Way` },
      }),
    });
    if (response.status !== 201) throw new Error(`seeding an incident: ${response.status}`);
  }
}

/** Seconds from navigation to a board showing its incidents over an open stream, on a fresh profile. */
async function timeToBoard(browser: Browser, origin: string, cookie: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    await context.addCookies([{ name: 'tsaro_console', value: cookie, url: origin, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', THROTTLE);
    const started = performance.now();
    await page.goto(`${origin}/console/board`, { waitUntil: 'commit' });
    await page.locator('[data-testid=incident-card]').first().waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=stream-status][data-state=open]').waitFor({ timeout: 60_000 });
    return (performance.now() - started) / 1000;
  } finally {
    await context.close();
  }
}

export const consoleSection: BenchSection = {
  name: 'console',
  description: "The console's first-load weight, and the time to a usable board at 1.6 Mbps with 300 ms latency",
  async run(context: SectionContext): Promise<SectionResult> {
    const loads = intFromEnv('BENCH_CONSOLE_LOADS', 5, 1);
    const incidents = intFromEnv('BENCH_CONSOLE_INCIDENTS', 40, 1);
    await ensureConsoleAppBuilt();
    const dist = join(REPO_ROOT, 'console', 'dist');
    const { firstLoad, lazy } = weigh(dist);
    const firstLoadBytes = firstLoad.reduce((sum, f) => sum + f.gzipped, 0);
    const tables: SectionTable[] = [
      {
        title: 'Console weight (gzip -9)',
        header: ['file', 'loads', 'KB gzipped'],
        rows: [
          ...firstLoad.map((f) => [f.file, 'first load', kb(f.gzipped)]),
          ['(total)', 'first load', kb(firstLoadBytes)],
          ...lazy.map((f) => [f.file, 'when its screen opens', kb(f.gzipped)]),
        ],
      },
    ];
    const aims: AimCheck[] = [{ aim: `first load <= ${AIMS.firstLoadKb} KB gzipped`, engine: '-', actual: `${kb(firstLoadBytes)} KB`, met: firstLoadBytes <= AIMS.firstLoadKb * 1024 }];
    const notes: string[] = [];
    const data: Record<string, unknown> = { firstLoad, lazy, firstLoadBytes };

    if (!existsSync(CHROMIUM)) {
      notes.push(`Time to a usable board skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH).`);
      return { name: 'console', rows: [], aims, notes, tables, data };
    }
    const database = createSqliteDatabase();
    const server = await startChild<Ready>('console-serve', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url, BENCH_LOG_DEST: '/dev/null' } });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'] });
    try {
      const origin = new URL(server.ready.baseUrl).origin;
      await seedIncidents(server.ready, incidents);
      const cookie = await operatorCookie(database.url, server.ready);
      await timeToBoard(browser, origin, cookie); // a first run the numbers leave out: the server's own warm-up
      const seconds: number[] = [];
      for (let i = 0; i < loads; i += 1) {
        seconds.push(await timeToBoard(browser, origin, cookie));
        context.log(`console: usable board in ${seconds.at(-1)!.toFixed(2)} s (${i + 1}/${loads})`);
      }
      const sorted = [...seconds].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      const slowest = sorted.at(-1)!;
      tables.push({
        title: `Time to a usable board (${incidents} active incidents; 1.6 Mbps down, 750 kbps up, 300 ms latency; no cache)`,
        header: ['runs', 'median s', 'slowest s'],
        rows: [[String(loads), median.toFixed(2), slowest.toFixed(2)]],
      });
      aims.push({ aim: `usable board < ${AIMS.usableBoardS} s at 1.6 Mbps / 300 ms (median)`, engine: 'sqlite', actual: `${median.toFixed(2)} s`, met: median < AIMS.usableBoardS });
      data.usableBoardSeconds = seconds;
    } finally {
      await browser.close();
      await server.stop();
      await database.drop();
    }
    return { name: 'console', rows: [], aims, notes, tables, data };
  },
};
