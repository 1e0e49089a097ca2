/**
 * The console on a year of data (issue #45): how soon each list and report screen shows its first
 * rows, for a signed-in owner, in Debian's Chromium on a fresh profile (no cache, no throttling:
 * this measures the server's reads and the screens, not the link; the `console` section measures
 * the link). Aim: every screen within a second.
 *
 * Called by the `scale` section with a server already running on the generated database.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { ensureConsoleAppBuilt } from '../../console/build.ts';
import { operatorCookie } from '../console.ts';
import { percentile } from '../lib/stats.ts';

export const CONSOLE_AIM_S = 1;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A screen and what shows that its first rows are there (an empty state counts: the list answered). */
export interface ConsoleScreen {
  name: string;
  path: string;
  ready: string;
}

const rowsOf = (screen: string) => `[data-testid=${screen}] tbody tr, [data-testid=${screen}] [data-testid=empty]`;

export const CONSOLE_SCREENS: ConsoleScreen[] = [
  { name: 'Board (incidents)', path: '/board', ready: '[data-testid=incident-card], [data-testid=board] .lane-empty' },
  { name: 'Visitors: visits', path: '/visitors/logs', ready: rowsOf('screen-visitors') },
  { name: 'Visitors: access codes', path: '/visitors/codes', ready: rowsOf('screen-visitors') },
  { name: 'Visitors: on premises', path: '/visitors/on-site', ready: rowsOf('screen-visitors') },
  { name: 'Events', path: '/events', ready: '[data-testid=screen-events] [data-testid=event-row], [data-testid=screen-events] [data-testid=empty]' },
  { name: 'Audit log', path: '/audit-log', ready: rowsOf('screen-audit-log') },
  { name: 'Reports (30 days)', path: '/reports', ready: '[data-testid=screen-reports] tbody tr' },
];

export interface ConsoleTarget {
  baseUrl: string;
  databaseUrl: string;
  organizationId: string;
  liveKey: string;
}

export interface ConsoleScreenTime {
  screen: string;
  runs: number;
  p50S: number;
  worstS: number;
}

async function timeScreen(browser: Browser, origin: string, cookie: string, screen: ConsoleScreen): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    await context.addCookies([{ name: 'tsaro_console', value: cookie, url: origin, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${origin}/console${screen.path}`, { waitUntil: 'commit' });
    await page.locator(screen.ready).first().waitFor({ timeout: 60_000 });
    return (performance.now() - started) / 1000;
  } finally {
    await context.close();
  }
}

/** Each screen `runs` times after one warm-up load of the app; null when there is no Chromium. */
export async function timeConsoleScreens(target: ConsoleTarget, runs = 3, log: (line: string) => void = () => {}): Promise<ConsoleScreenTime[] | null> {
  if (!existsSync(CHROMIUM)) return null;
  await ensureConsoleAppBuilt();
  const origin = new URL(target.baseUrl).origin;
  const cookie = await operatorCookie(target.databaseUrl, target, 'owner');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    await timeScreen(browser, origin, cookie, CONSOLE_SCREENS[0]!); // the server's and the build's warm-up, left out
    const times: ConsoleScreenTime[] = [];
    for (const screen of CONSOLE_SCREENS) {
      const seconds: number[] = [];
      for (let i = 0; i < runs; i += 1) seconds.push(await timeScreen(browser, origin, cookie, screen));
      seconds.sort((a, b) => a - b);
      const time = { screen: screen.name, runs, p50S: percentile(seconds, 50), worstS: seconds.at(-1)! };
      log(`scale console: ${screen.name} first rows in ${time.p50S.toFixed(2)} s (worst ${time.worstS.toFixed(2)} s)`);
      times.push(time);
    }
    return times;
  } finally {
    await browser.close();
  }
}
