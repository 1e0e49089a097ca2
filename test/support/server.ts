import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { PostgresKeyCache } from '../../server/auth/key-cache.ts';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import { createApiKey } from '../../server/auth/service.ts';
import type { Config } from '../../server/config.ts';
import { loadConfig } from '../../server/config.ts';
import type { Dispatcher } from '../../server/incidents/dispatcher.ts';
import { createOrganization } from '../../server/organizations/service.ts';
import type { Plan } from '../../server/organizations/organization.ts';
import { startServer, type RunningServer, type StartOptions } from '../../server/server.ts';
import { ManualClock } from './clock.ts';
import { TEST_SECRETS_KEY } from './secrets.ts';
import { createMigratedDatabase, type TestDatabase } from './database.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A partner's HTTP client for one key, over real HTTP. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | undefined,
  ) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.key !== undefined) headers.authorization ??= `Bearer ${this.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: left as text for the assertion to show
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options: RequestOptions = {}) {
    return this.request<T>('DELETE', path, options);
  }
}

export interface TestOrganization {
  organizationId: string;
  live: ApiClient;
  sandbox: ApiClient;
  keys: { live: string; sandbox: string };
  /** A key of this organization with only these scopes. */
  keyWith(scopes: Scope[], environment?: 'live' | 'sandbox'): Promise<ApiClient>;
}

export interface TestServer {
  baseUrl: string;
  clock: ManualClock;
  running: RunningServer;
  database: TestDatabase;
  client(key?: string): ApiClient;
  createOrganization(options?: { plan?: Plan; name?: string }): Promise<TestOrganization>;
  /**
   * A change made outside this server's API (the CLI, SQL): resolves once the server's key cache
   * has heard of it. SQLite: the next request reads the revision row, so no wait. PostgreSQL: the
   * NOTIFY arrives a moment after the commit; this waits for it (5 s bound).
   */
  changedElsewhere<T>(change: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  config?: Partial<Record<keyof Config, string>>;
  clock?: ManualClock;
  /** Share a database with another server (several hosts); otherwise a fresh one is made and dropped. */
  database?: TestDatabase;
  dispatcher?: Dispatcher;
  /** false: webhooks are only sent when the test calls `running.deliverWebhooks()`. */
  deliverWebhooks?: boolean;
  /** false: text messages are only sent when the test calls `running.deliverTexts()`. */
  deliverTexts?: boolean;
  /** The webhook worker's poll besides its wakes (default 1000 ms). */
  webhookPollMs?: number;
  /** Where the server logs (silent by default): fault tests read what it said. */
  logger?: Logger;
  /** true: the dispatch sweep runs every second; by default tests call `running.advanceDispatch()` after moving the clock. */
  runDispatch?: boolean;
  /** Where the start's banners go (stdout by default). */
  print?: (text: string) => void;
  /** How long a request may take to arrive (production: 20 s for headers, 30 s in all). */
  requestTimeouts?: StartOptions['requestTimeouts'];
  /** The event stream's heartbeat (production: 15 s). */
  eventStreamHeartbeatMs?: number;
  /** true: settled rows are folded into the tallies in the background, as in production; by default tests call `running.foldTallies()`. */
  foldTallies?: boolean;
  /** false: PostgreSQL's text indexes' pending rows are merged only by `running.runJob('text-index-pending')` (default: every 2 s, as in production). */
  textIndexMerge?: boolean;
  /** true: the duty look (missed check-ins, staff alerts) runs in the background; by default tests call `running.runJob('duty-alerts')`. */
  dutyAlerts?: boolean;
  /** true: live webhooks may be delivered to a receiver on loopback (a journey's partner receiver). */
  liveWebhooksToLoopback?: boolean;
}

/** The real server on port 0 over a database of its own, with a hand-moved clock. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createMigratedDatabase());
  const clock = options.clock ?? new ManualClock();
  // Webhook tests deliver to receivers on loopback, as a developer's machine does.
  const config = loadConfig({
    PORT: '0',
    DEMO: '0',
    THREAT_SEED: '0',
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: '1',
    DATABASE_URL: database.url,
    SECRETS_KEY: TEST_SECRETS_KEY,
    // A broad read's 5 s limit is for a year of data on a quiet host; a list of ten rows on a
    // host running the whole suite can take longer than that. Tests of the limit set their own.
    DATABASE_READ_TIMEOUT_S: '60',
    ...options.config,
  });
  const running = await startServer(config, {
    clock,
    logger: options.logger ?? pino({ level: 'silent' }),
    dispatcher: options.dispatcher,
    deliverWebhooks: options.deliverWebhooks,
    deliverTexts: options.deliverTexts,
    webhookPollMs: options.webhookPollMs,
    runDispatch: options.runDispatch ?? false,
    // The start's words for people would only clutter the test output; a test that reads them passes its own.
    print: options.print ?? (() => undefined),
    requestTimeouts: options.requestTimeouts,
    eventStreamHeartbeatMs: options.eventStreamHeartbeatMs,
    foldTallies: options.foldTallies ?? false,
    dutyAlerts: options.dutyAlerts ?? false,
    liveWebhooksToLoopback: options.liveWebhooksToLoopback,
    textIndexMerge: options.textIndexMerge,
  });
  const client = (key?: string) => new ApiClient(running.baseUrl, key);
  return {
    baseUrl: running.baseUrl,
    clock,
    running,
    database,
    client,
    async createOrganization(org = {}) {
      const created = await createOrganization(running.database.db, clock, {
        name: org.name ?? 'Test Estate',
        plan: org.plan ?? 'enterprise',
      });
      const organizationId = created.organization.organization_id;
      return {
        organizationId,
        keys: { live: created.keys.live.secret, sandbox: created.keys.sandbox.secret },
        live: client(created.keys.live.secret),
        sandbox: client(created.keys.sandbox.secret),
        async keyWith(scopes, environment = 'live') {
          const key = await createApiKey(running.database.db, clock, { organizationId, environment, name: 'test', scopes, maker: { type: 'operator' } });
          return client(key.secret);
        },
      };
    },
    async changedElsewhere(change) {
      const cache = running.keyCache as Partial<PostgresKeyCache>;
      const before = cache.notifications ?? 0;
      const result = await change();
      if (running.database.engine === 'postgres') {
        await vi.waitFor(() => expect(cache.notifications, 'the NOTIFY of a change made elsewhere').toBeGreaterThan(before), { timeout: 5_000, interval: 10 });
      }
      return result;
    },
    async stop() {
      await running.stop();
      if (!options.database) await database.drop();
    },
  };
}

/** A valid create-incident body; override what the test is about. */
export function incidentBody(overrides: Record<string, unknown> = {}) {
  return {
    category: 'sos',
    severity: 'critical',
    subject: { name: 'Ada Obi', phone: '+2348012345678', reference: 'user-42' },
    location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki' },
    ...overrides,
  };
}

/**
 * The API's error shape: `{code, message}`, and for invalid input (400) the `errors` list, each
 * problem naming its field. `message` may be a matcher (`expect.stringContaining(...)`).
 */
export function expectErrorBody(body: any, status: number, message: unknown, label?: string): void {
  const { errors, ...rest } = (body ?? {}) as { errors?: unknown };
  expect(rest, label).toEqual({ code: status, message });
  if (errors === undefined) return;
  expect(status, `${label ?? ''} only invalid input lists problems`).toBe(400);
  expect(errors, label).toEqual(expect.arrayContaining([]));
  expect((errors as unknown[]).length, label).toBeGreaterThan(0);
  for (const problem of errors as { field: unknown; message: unknown }[]) {
    expect(problem, label).toEqual({ field: expect.any(String), message: expect.any(String) });
    expect(problem.message, label).toContain(problem.field);
  }
}

/**
 * A server and one organization for the describe block that calls it: started before its tests,
 * stopped after. Read them through the answer's getters inside tests and hooks.
 */
export function serverForSuite(options: TestServerOptions = {}): { readonly server: TestServer; readonly org: TestOrganization } {
  let server: TestServer | undefined;
  let org: TestOrganization | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    org = await server.createOrganization();
  });
  afterAll(() => server?.stop());
  return {
    get server() {
      if (!server) throw new Error('serverForSuite: read inside a test or hook');
      return server;
    },
    get org() {
      if (!org) throw new Error('serverForSuite: read inside a test or hook');
      return org;
    },
  };
}
