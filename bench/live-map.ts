/**
 * `node --import tsx bench/live-map.ts`: the staff console's live map with 1,000 responders
 * (issue #47), in Debian's Chromium. One server (bench/serve.ts, a child process, SQLite),
 * BENCH_MAP_N responders (default 1,000) added directly around Lagos, one controller signed in
 * through the console (password and authenticator). Reported:
 *
 *   draw       from the staff channel's snapshot to the 1,000 markers drawn (the map's own
 *              measure, `data-draw-ms`, to the next animation frame), and from opening the page
 *              to all markers on the map
 *   moving     every responder sends a fix every BENCH_MAP_FIX_EVERY_S seconds (default 5) for
 *              BENCH_MAP_S seconds (default 15): the frame times the page saw (p50, p99, max,
 *              from requestAnimationFrame) and the time each batch of changes took to draw
 *
 * Environment: BENCH_MAP_N, BENCH_MAP_S, BENCH_MAP_FIX_EVERY_S.
 */
import { Agent, request } from 'node:http';
import { generate } from 'otplib';
import { chromium } from 'playwright-core';
import { systemClock } from '../server/clock.ts';
import { openDatabase } from '../server/db/database.ts';
import { addResponder } from '../server/responders/service.ts';
import { inviteStaff } from '../server/staff/service.ts';
import { CHROMIUM_PATH } from '../test/support/services.ts';
import { startChild } from './lib/children.ts';
import { runBenchScript } from './lib/script.ts';
import { createSqliteDatabase } from './lib/databases.ts';
import { intFromEnv, sleep } from './lib/settings.ts';
import { percentile } from './lib/stats.ts';

const N = intFromEnv('BENCH_MAP_N', 1000, 1);
const MOVE_S = intFromEnv('BENCH_MAP_S', 15, 1);
const FIX_EVERY_S = intFromEnv('BENCH_MAP_FIX_EVERY_S', 5, 1);
const PASSWORD = 'correct horse battery staple 7';

async function main() {
  const database = createSqliteDatabase();
  const child = await startChild<{ baseUrl: string; pid: number }>('serve', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url, BENCH_LOG_DEST: '/dev/null' } });
  const origin = new URL(child.ready.baseUrl).origin;
  const opened = openDatabase(database.url);
  const tokens: string[] = [];
  for (let i = 0; i < N; i++) {
    const { token } = await addResponder(opened.db, systemClock, {
      name: `Map Responder ${i}`,
      phone: `+23480${String(50_000_000 + i)}`,
      latitude: 6.35 + Math.random() * 0.3,
      longitude: 3.2 + Math.random() * 0.4,
      environment: 'live',
    });
    tokens.push(token);
  }
  const { invite_url } = await inviteStaff({ db: opened.db, clock: systemClock, publicUrl: origin }, { email: 'bench-controller@tsaro.example', role: 'controller' });
  await opened.close();

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: origin })).newPage();
    await page.goto(new URL(invite_url).pathname);
    await page.getByLabel('Your name').fill('Bench Controller');
    await page.getByLabel('Password (12 characters or more)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    const secret = (await page.getByTestId('staff-totp-secret').textContent())!.trim();
    await page.getByLabel('Code').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator(`[data-testid="live-map"][data-drawn-count="${N}"]`).waitFor({ timeout: 60_000 });

    // Opened again, measured: to every marker on the map.
    const draws: number[] = [];
    const toAll: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await page.reload();
      await page.locator(`[data-testid="live-map"][data-drawn-count="${N}"]`).waitFor({ timeout: 60_000 });
      toAll.push(Date.now() - started);
      draws.push(Number(await page.getByTestId('live-map').getAttribute('data-draw-ms')));
    }
    process.stdout.write(`${JSON.stringify({ responders: N, snapshot_draw_ms: draws, page_open_to_all_markers_ms: toAll })}\n`);

    // Moving: frame times and each batch's draw, watched in the page.
    await page.evaluate(`(() => {
      window.__frames = []; window.__batches = [];
      let last = performance.now();
      const tick = (now) => { window.__frames.push(now - last); last = now; if (!window.__stop) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
      const target = document.querySelector('[data-testid="live-map"]');
      new MutationObserver(() => window.__batches.push(Number(target.getAttribute('data-draw-ms')))).observe(target, { attributes: true, attributeFilter: ['data-draw-ms'] });
    })()`);
    const base = child.ready.baseUrl.replace('/v1/external', '/v1/responder');
    const agent = new Agent({ keepAlive: true, maxSockets: 200 });
    let fixes = 0;
    let stop = false;
    const loops = tokens.map(async (token, i) => {
      await sleep(((i / N) * FIX_EVERY_S * 1000) | 0);
      while (!stop) {
        await new Promise<void>((resolve) => {
          const req = request(`${base}/availability`, { method: 'PUT', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          });
          req.on('error', () => resolve());
          req.end(JSON.stringify({ available: true, latitude: 6.35 + Math.random() * 0.3, longitude: 3.2 + Math.random() * 0.4 }));
        });
        fixes++;
        await sleep(FIX_EVERY_S * 1000);
      }
    });
    await sleep(MOVE_S * 1000);
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    const seen = (await page.evaluate('(() => { window.__stop = true; return { frames: window.__frames, batches: window.__batches }; })()')) as { frames: number[]; batches: number[] };
    const frames = [...seen.frames].sort((a, b) => a - b);
    const batches = [...seen.batches].sort((a, b) => a - b);
    process.stdout.write(
      `${JSON.stringify({
        moving_s: MOVE_S,
        fixes_sent: fixes,
        frames: frames.length,
        frame_ms: { p50: percentile(frames, 50), p99: percentile(frames, 99), max: frames.at(-1) },
        batches: batches.length,
        batch_draw_ms: { p50: percentile(batches, 50), p99: percentile(batches, 99), max: batches.at(-1) },
      })}\n`,
    );
  } finally {
    await browser.close();
    await child.stop();
  }
}

runBenchScript(main);
