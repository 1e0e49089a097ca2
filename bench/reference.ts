/**
 * Section `reference`: how soon a newcomer can read the partner reference page (issue #31).
 *
 * "Usable" is the first operation's heading laid out on the page with no long task pending:
 * Debian's Chromium (playwright-core), a fresh profile and no cache each load, from navigation
 * to the later of (the heading's first frame, the end of the last long task), once a second has
 * passed with no further long task. BENCH_REFERENCE_LOADS cold loads (default 5); the median and
 * the slowest are reported. Aim: median under 3 s. The server is bench/serve.ts on SQLite.
 *
 * To measure another renderer side by side (the decision in docs/benchmarks.md, "Reference
 * page"), point BENCH_REFERENCE_URL at its page and BENCH_REFERENCE_SELECTOR at its first
 * operation's heading (Swagger UI: `.opblock-summary-path`).
 *
 * Run alone: `BENCH_ONLY=reference npm run bench`. Needs Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium); without it the section is skipped with a note.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startChild } from './lib/children.ts';
import { createSqliteDatabase } from './lib/databases.ts';
import { intFromEnv } from './lib/settings.ts';
import type { AimCheck, BenchSection, SectionContext, SectionResult } from './lib/section.ts';

const AIM_S = 3;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Our page's first operation heading. */
const OWN_SELECTOR = 'article.operation h3';
/** A second with no long task after the heading: the page has settled. */
const QUIET_MS = 1000;

/** Installed before the page's own code: records long tasks and the heading's first laid-out frame. */
const probe = (selector: string) => `
  window.__usable = { longTaskEnd: 0, headingAt: null };
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__usable.longTaskEnd = Math.max(window.__usable.longTaskEnd, entry.startTime + entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  const check = () => {
    const heading = document.querySelector(${JSON.stringify(selector)});
    const box = heading && heading.getBoundingClientRect();
    if (box && box.width > 0 && box.height > 0) window.__usable.headingAt = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

interface Usable {
  longTaskEnd: number;
  headingAt: number | null;
}

/** Seconds from navigation to a usable page, on a fresh profile with the cache off. */
export async function timeToUsable(browser: Browser, url: string, selector: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.addInitScript({ content: probe(selector) });
    await page.goto(url, { waitUntil: 'commit' });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const state = (await page.evaluate('[window.__usable, performance.now()]')) as [Usable | undefined, number];
      const [usable, now] = state;
      if (usable?.headingAt != null && now - Math.max(usable.headingAt, usable.longTaskEnd) >= QUIET_MS) {
        return Math.max(usable.headingAt, usable.longTaskEnd) / 1000;
      }
      if (Date.now() > deadline) throw new Error(`${url}: not usable within 120 s (${JSON.stringify(usable)})`);
      await new Promise((done) => setTimeout(done, 100));
    }
  } finally {
    await context.close();
  }
}

export const referenceSection: BenchSection = {
  name: 'reference',
  description: 'The partner reference page: seconds to its first operation readable with no long task pending, cold loads in Chromium',
  async run(context: SectionContext): Promise<SectionResult> {
    const loads = intFromEnv('BENCH_REFERENCE_LOADS', 5, 1);
    if (!existsSync(CHROMIUM)) {
      return { name: 'reference', rows: [], aims: [], notes: [`Skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH).`] };
    }
    const otherUrl = process.env.BENCH_REFERENCE_URL;
    const selector = otherUrl ? (process.env.BENCH_REFERENCE_SELECTOR ?? OWN_SELECTOR) : OWN_SELECTOR;
    const database = otherUrl ? undefined : createSqliteDatabase();
    const server = database ? await startChild<{ baseUrl: string }>('reference-serve', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url, BENCH_LOG_DEST: '/dev/null' } }) : undefined;
    const url = otherUrl ?? `${server!.ready.baseUrl}/docs`;
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      await timeToUsable(browser, url, selector); // the server's own warm-up, left out
      const seconds: number[] = [];
      for (let i = 0; i < loads; i += 1) {
        seconds.push(await timeToUsable(browser, url, selector));
        context.log(`reference: usable in ${seconds.at(-1)!.toFixed(2)} s (${i + 1}/${loads})`);
      }
      const sorted = [...seconds].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      const slowest = sorted.at(-1)!;
      const aims: AimCheck[] = [{ aim: `reference usable < ${AIM_S} s (median of ${loads} cold loads)`, engine: 'sqlite', actual: `${median.toFixed(2)} s`, met: median < AIM_S }];
      return {
        name: 'reference',
        rows: [],
        aims,
        notes: otherUrl ? [`Measured ${otherUrl} (selector ${selector}), not the server's own page.`] : [],
        tables: [{ title: `Reference page usable (${url.replace(/^https?:\/\/[^/]+/, '')}; cold loads, no cache, 1366x768)`, header: ['loads', 'median s', 'slowest s'], rows: [[String(loads), median.toFixed(2), slowest.toFixed(2)]] }],
        data: { url, selector, seconds },
      };
    } finally {
      await browser.close();
      await server?.stop();
      await database?.drop();
    }
  },
};
