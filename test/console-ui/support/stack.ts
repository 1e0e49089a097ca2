import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ensureConsoleAppBuilt } from '../../../console/build.ts';
import { createMigratedDatabase } from '../../support/database.ts';
import { ManualClock } from '../../support/clock.ts';
import { browserTmp } from '../../support/temp.ts';
import { freePort } from '../../support/ports.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../../support/server.ts';
import { launchChromium } from '../../ui/support/browser.ts';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'console-ui');
/** Where the screenshots people look at are kept (docs/console/). */
export const SCREENSHOTS = join(ROOT, 'docs', 'console');
/** A laptop, and a 10-inch tablet both ways. */
export const SCREENS = {
  desktop: { width: 1366, height: 768 },
  'tablet-landscape': { width: 1280, height: 800 },
  'tablet-portrait': { width: 800, height: 1280 },
} as const;

export interface ConsoleStack {
  server: TestServer;
  browser: Browser;
  /** `http://127.0.0.1:PORT`: the console is at `${origin}/console/`. */
  origin: string;
  /** A fresh browser profile (or one signed in already: a context's storageState) with a page that records console errors and CSP refusals. */
  open(viewport?: { width: number; height: number }, storageState?: BrowserContextOptions['storageState']): Promise<WatchedPage>;
  stop(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Errors the page logged, failed scripts, and anything the Content-Security-Policy refused. */
  problems: string[];
}

/**
 * The real server serving the built console, and Debian's Chromium. Its ManualClock starts at
 * the real time, so what the browser shows ("2 minutes ago", date pickers) matches the server;
 * a test still moves it by hand (a new TOTP code is due every 30 s).
 */
export async function startConsoleStack(name: string, options: TestServerOptions & { engine?: 'sqlite' | 'postgres' } = {}): Promise<ConsoleStack> {
  mkdirSync(join(ARTIFACTS, name), { recursive: true });
  // Chromium's profile socket path must stay under 108 characters: a short folder of the test's own.
  const temp = browserTmp('tsaro-cui-');
  await ensureConsoleAppBuilt();
  const ownDatabase = options.database ? undefined : await createMigratedDatabase(options.engine ?? 'sqlite');
  const database = options.database ?? ownDatabase!;
  // A port of its own rather than 0: PUBLIC_URL (and so every invite link the console makes) derives from PORT.
  const config = { PORT: String(await freePort()), ...options.config };
  const server = await startTestServer({ clock: new ManualClock(new Date().toISOString()), ...options, config, database });
  const browser = await launchChromium();
  const origin = new URL(server.baseUrl).origin;
  const contexts: BrowserContext[] = [];
  const stack: ConsoleStack = {
    server,
    browser,
    origin,
    async open(viewport = SCREENS.desktop, storageState) {
      // UTC, as the server: a time typed into a date field means the same instant to both.
      const context = await browser.newContext({ viewport, baseURL: origin, timezoneId: 'UTC', locale: 'en-GB', storageState });
      contexts.push(context);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      // A string: the test's own TypeScript knows no DOM.
      await page.addInitScript({
        content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP refused ' + e.violatedDirective + ': ' + e.blockedURI));",
      });
      return { page, context, problems };
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      // The server the stack has now: a test may have restarted it (stopped, and a new one on the same port).
      await stack.server.stop();
      await ownDatabase?.drop();
      temp.restore();
    },
  };
  return stack;
}
