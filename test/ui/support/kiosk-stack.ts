import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { addResponder } from '../../../server/responders/service.ts';
import type { Scope } from '../../../shared/schemas/api-keys.ts';
import { ManualClock } from '../../support/clock.ts';
import { browserTmp } from '../../support/temp.ts';
import { freePort } from '../../support/ports.ts';
import { createMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../../support/server.ts';
import { startCuttableLink, type CuttableLink } from './link.ts';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'ui');

/** The scopes a gate needs, and no more: never `admin`. */
export const GATE_SCOPES: Scope[] = ['access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'incidents:read', 'incidents:write'];
/** Where the test gate stands: Lekki, Lagos (near the simulated sandbox responders). */
export const GATE = { entryPoint: 'Gate A', latitude: 6.4281, longitude: 3.4219 };

/** The kiosk and the server live on the same machine's real time: scans carry `scanned_at`, checked against the server's clock. */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}


async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

export interface KioskStackOptions {
  /** A name for this test's folder under test-artifacts/ui. */
  name: string;
  /** false: the kiosk starts unconfigured, at the first-run setup screen. */
  configured?: boolean;
  environment?: 'live' | 'sandbox';
  /** Run the dispatch sweep and the simulated sandbox responders (panic tests). */
  runDispatch?: boolean;
  /** SANDBOX_SPEED of the server (default 60): how much faster than life the simulated responders answer. */
  sandboxSpeed?: number;
  /** The kiosk reaches the server through a link the test can cut (`stack.link`). */
  throughLink?: boolean;
  /** More KIOSK_* settings for the host (e.g. KIOSK_ALARM_PHONES). */
  env?: Record<string, string>;
  /** More server settings (e.g. DISPATCH_WINDOW_S, ESCALATION_WINDOW_S; PORT with Kannel's `smsConfigOf`). */
  serverConfig?: Record<string, string>;
  /** A live responder on duty about 2 km from the gate before the kiosk starts: no "No responders near this gate" warning. */
  responderNearGate?: boolean;
}

export interface KioskStack {
  /** The browser host's page. */
  kioskUrl: string;
  server: TestServer;
  org: TestOrganization;
  /** The owner's client for the gate's environment, to check what reached the server. */
  api: ApiClient;
  /** The gate's own key (gate scopes only). */
  gateKey: string;
  /** This test's folder: the kiosk host's log and screenshots. */
  dir: string;
  serverUrl: string;
  /** With `throughLink`: the kiosk's connection to the server, to cut and restore. */
  link: CuttableLink | null;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the kiosk's browser host (the gate's kiosk switched off), leaving the server running. */
  stopHost(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real server (SQLite, on a fixed free port so it can be stopped and started again at the
 * same address), an organization with a gate key, and the kiosk's browser host
 * (`npm run kiosk:web`) on its own data folder, set up through KIOSK_* variables or left for
 * the first-run setup.
 */
export async function startKioskStack(options: KioskStackOptions): Promise<KioskStack> {
  const dir = join(ARTIFACTS, options.name);
  mkdirSync(dir, { recursive: true });
  // Chromium's TMPDIR and the kiosk's data in the system's temporary folder, not under the
  // checkout: Chromium's SingletonSocket path must fit a Unix socket's 107 bytes, which a
  // checkout in a deep folder (CI's) and a long test name overflow.
  const browserTemp = browserTmp('tsaro-ui-');
  const tmp = browserTemp.dir;
  const database: TestDatabase = await createMigratedDatabase('sqlite');
  // A port the test chose (e.g. Kannel's delivery reports come to PUBLIC_URL) or a free one.
  const serverPort = Number(options.serverConfig?.PORT ?? (await freePort()));
  const config = { PORT: String(serverPort), SANDBOX_SPEED: String(options.sandboxSpeed ?? 60), ...options.serverConfig };
  const clock = new WallClock();
  const serverOptions = { database, clock, config, runDispatch: options.runDispatch ?? false };
  let server = await startTestServer(serverOptions);
  let running = true;
  const org = await server.createOrganization({ name: 'Admiralty Gardens' });
  const environment = options.environment ?? 'live';
  const gate = await org.keyWith(GATE_SCOPES, environment);
  const gateKey = gate.key!;
  if (options.responderNearGate) {
    await addResponder(server.running.database.db, server.clock, {
      name: 'Emeka Obi',
      phone: '+2348030000009',
      latitude: GATE.latitude,
      longitude: GATE.longitude + 0.02,
      environment: 'live',
    });
  }
  const serverUrl = server.baseUrl;
  const link = options.throughLink ? await startCuttableLink(serverPort) : null;
  const kioskServerUrl = link ? serverUrl.replace(`:${serverPort}/`, `:${link.port}/`) : serverUrl;

  const host = await startKioskHost({
    dir,
    tmp,
    env: options.env,
    configured: options.configured === false ? undefined : { serverUrl: kioskServerUrl, apiKey: gateKey, entryPoint: GATE.entryPoint, latitude: GATE.latitude, longitude: GATE.longitude },
  });
  const kioskUrl = host.url;

  const stack: KioskStack = {
    kioskUrl,
    server,
    org,
    api: environment === 'live' ? org.live : org.sandbox,
    gateKey,
    dir,
    serverUrl,
    link,
    async stopServer() {
      if (!running) return;
      running = false;
      await server.running.stop();
    },
    async startServer() {
      if (running) return;
      server = await startTestServer(serverOptions);
      running = true;
      stack.server = server;
    },
    stopHost: () => host.stop(),
    async stop() {
      await stack.stopHost();
      await link?.close();
      if (running) await server.running.stop();
      await database.drop();
      browserTemp.restore();
    },
  };
  return stack;
}

export interface KioskHostOptions {
  /** The test's folder: the host's log goes there. */
  dir: string;
  /** The kiosk's data and Chromium's TMPDIR (short: Unix socket paths). */
  tmp: string;
  /** Set up through KIOSK_* variables; left out, the kiosk starts at its first-run setup. */
  configured?: { serverUrl: string; apiKey: string; entryPoint: string; latitude: number; longitude: number };
  /** More KIOSK_* settings (e.g. KIOSK_ALARM_PHONES). */
  env?: Record<string, string>;
  /** The log file's name (several hosts in one folder). */
  logName?: string;
}

export interface KioskHost {
  /** The browser host's page. */
  url: string;
  /** Stops the kiosk's browser host (the gate's kiosk switched off). */
  stop(): Promise<void>;
}

/** One gate's kiosk, as a gate runs it without Electron: `npm run kiosk:web` on its own port and data folder. */
export async function startKioskHost(options: KioskHostOptions): Promise<KioskHost> {
  const kioskPort = await freePort();
  const dataDir = join(options.tmp, `kiosk-data-${kioskPort}`);
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TMPDIR: options.tmp,
    KIOSK_PORT: String(kioskPort),
    KIOSK_DATA_DIR: dataDir,
    // The guard's 600 ms for a server decision, on a host that runs Chromium, the server and
    // other suites at once, would turn an answering server into an offline decision. No screen
    // test goes offline by that timeout: its link is cut, or its server stopped.
    KIOSK_ONLINE_WAIT_MS: '10000',
    // A peer port of its own and no mDNS: the gates of different suites on this machine stay strangers.
    KIOSK_PEER_PORT: '0',
    KIOSK_PEER_DISCOVERY: '0',
  };
  for (const name of ['KIOSK_SERVER_URL', 'KIOSK_API_KEY', 'KIOSK_ENTRY_POINT', 'KIOSK_LOCATION', 'KIOSK_ALARM_PHONES', 'KIOSK_COVERAGE_CHECK_S']) delete env[name];
  Object.assign(env, options.env ?? {});
  if (options.configured) {
    const { serverUrl, apiKey, entryPoint, latitude, longitude } = options.configured;
    Object.assign(env, { KIOSK_SERVER_URL: serverUrl, KIOSK_API_KEY: apiKey, KIOSK_ENTRY_POINT: entryPoint, KIOSK_LOCATION: `${latitude},${longitude}` });
  }
  const logPath = join(options.dir, options.logName ?? 'kiosk-host.log');
  const log = createWriteStream(logPath);
  // Its own process group, so stopping it stops npm and the host under it, and nothing else.
  const host: ChildProcess = spawn('npm', ['run', '--silent', 'kiosk:web'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  host.stdout?.pipe(log);
  host.stderr?.pipe(log);
  let hostExited = false;
  host.once('exit', () => (hostExited = true));
  const url = `http://127.0.0.1:${kioskPort}/`;
  // npm, tsx and the build check start in a second or two alone; with the whole suite on two
  // cores, CI has seen them take over 30 s.
  await waitFor('the kiosk browser host', async () => {
    if (hostExited) throw new Error(`npm run kiosk:web exited; see ${logPath}`);
    const response = await fetch(url);
    return response.ok ? true : undefined;
  }, 90_000);
  return {
    url,
    async stop() {
      if (hostExited || !host.pid) return;
      const exited = new Promise((done) => host.once('exit', done));
      try {
        process.kill(-host.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
    },
  };
}
