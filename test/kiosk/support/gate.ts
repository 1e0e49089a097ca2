import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scope } from '../../../shared/schemas/api-keys.ts';
import { createKioskCore, type KioskCore, type KioskCoreOptions } from '../../../electron/core/core.ts';
import { ManualClock } from '../../support/clock.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer, type TestServerOptions } from '../../support/server.ts';

/** Exactly what a gate needs. */
export const GATE_SCOPES: Scope[] = ['access_codes:validate', 'access_codes:write', 'logs:read', 'incidents:write', 'incidents:read'];
export const GATE_A = { entryPoint: 'Gate A', location: { latitude: 6.4281, longitude: 3.4219 } };

/**
 * The kiosk's link to the server: real HTTP while `up`, and while down every request fails as
 * a pulled cable does (a connection error), before anything reaches the server.
 */
export class Link {
  up = true;
  /** This many next answers to a POST or PATCH are lost on the way back: the server did the work, the kiosk never hears. */
  loseAnswers = 0;
  /** Every request that left the kiosk while the link was up: "METHOD /path". */
  readonly sent: string[] = [];
  private hold: { reached: () => void; released: Promise<void> } | null = null;

  /** The next POST or PATCH waits, before it leaves, until `release` is called; `reached` resolves when it is waiting. */
  holdNextWrite(): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((done) => (release = done));
    const reachedPromise = new Promise<void>((done) => (reached = done));
    this.hold = { reached, released };
    return { reached: reachedPromise, release };
  }

  readonly fetch: typeof fetch = async (input, init) => {
    if (!this.up) throw new TypeError('fetch failed', { cause: { code: 'ENETUNREACH' } });
    const method = init?.method ?? 'GET';
    if (this.hold && (method === 'POST' || method === 'PATCH')) {
      const hold = this.hold;
      this.hold = null;
      hold.reached();
      await hold.released;
    }
    this.sent.push(`${method} ${new URL(String(input)).pathname.replace(/^\/v1\/external/, '')}`);
    const response = await fetch(input, init);
    if ((method === 'POST' || method === 'PATCH') && this.loseAnswers > 0) {
      this.loseAnswers--;
      await response.arrayBuffer();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    }
    return response;
  };
  /** The POST and PATCH requests sent, in order. */
  writes(): string[] {
    return this.sent.filter((line) => !line.startsWith('GET '));
  }
}

export interface Gate {
  server: TestServer;
  clock: ManualClock;
  org: TestOrganization;
  /** The organization's owner, to create codes and check what reached the server. */
  owner: ApiClient;
  gateKey: string;
  /** A kiosk on its own data folder (the same folder again: the same kiosk restarted). */
  kiosk(options?: { dataDir?: string; link?: Link; entryPoint?: string } & Partial<KioskCoreOptions>): { core: KioskCore; link: Link; dataDir: string };
  dataDir(): string;
  stop(): Promise<void>;
}

/** `server`: more for the gate's server (an SMS gateway, its port). */
export async function startGate(server_: Omit<TestServerOptions, 'clock'> = {}): Promise<Gate> {
  const clock = new ManualClock();
  const server = await startTestServer({ ...server_, clock });
  const org = await server.createOrganization({ name: 'Admiralty Gardens' });
  const gateKey = (await org.keyWith(GATE_SCOPES)).key!;
  const dirs: string[] = [];
  const cores: KioskCore[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsaro-kiosk-'));
    dirs.push(dir);
    return dir;
  };
  return {
    server,
    clock,
    org,
    owner: org.live,
    gateKey,
    dataDir,
    kiosk(options = {}) {
      const link = options.link ?? new Link();
      const dir = options.dataDir ?? dataDir();
      const core = createKioskCore({
        serverUrl: server.baseUrl,
        apiKey: gateKey,
        location: GATE_A.location,
        clock,
        fetch: link.fetch,
        ...options,
        // The guard's 600 ms budget before a decision is made offline is the product's; here a
        // loaded CI host must not turn a server that answers into an offline decision. No test
        // reaches offline by that timeout: the link goes down, or answers are lost.
        timings: { onlineDecisionTimeoutMs: 10_000, ...options.timings },
        entryPoint: options.entryPoint ?? GATE_A.entryPoint,
        dataDir: dir,
      });
      cores.push(core);
      return { core, link, dataDir: dir };
    },
    async stop() {
      for (const core of cores) await core.close().catch(() => undefined);
      await server.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A code for a visitor, through the owner's API. */
export async function createCode(owner: ApiClient, body: Record<string, unknown> = {}) {
  const response = await owner.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing', host_user_id: '14B', ...body });
  if (response.status !== 201) throw new Error(`create code: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_code as { code_id: string; code: string; qr_payload: string; max_uses: number };
}

/** Every access log the server holds for the organization. */
export async function serverLogs(owner: ApiClient) {
  const response = await owner.get('/access-logs?limit=100');
  return response.body.results as Array<{ log_id: string; method: string; visitor_name: string; status: string; code_id: string | null; notes: string | null; checked_in_at: string; admitted_offline: { code: string; scanned_at: string; server_said: string } | null }>;
}
