import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { kannelAvailable } from './kannel.ts';

/** Where the real services are expected; override with TEST_POSTGRES_URL / TEST_REDIS_URL / CHROMIUM_PATH. */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The fault suite runs its own PostgreSQL cluster from these binaries, behind this HAProxy. */
export const PG_BIN = process.env.TSARO_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const HAPROXY = process.env.TSARO_HAPROXY ?? 'haproxy';

export interface ServiceProbe {
  name: 'PostgreSQL' | 'Redis' | 'Chromium' | 'Fault rig' | 'Kannel';
  available: boolean;
  /** Why it is not available, in words a newcomer can act on. */
  reason?: string;
}

async function probePostgres(): Promise<ServiceProbe> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return { name: 'PostgreSQL', available: true };
  } catch (err) {
    return { name: 'PostgreSQL', available: false, reason: `no server at ${redact(POSTGRES_ADMIN_URL)} (${(err as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function probeRedis(): Promise<ServiceProbe> {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
    const done = (probe: ServiceProbe) => {
      socket.destroy();
      resolve(probe);
    };
    socket.setTimeout(2000, () => done({ name: 'Redis', available: false, reason: `no answer from ${REDIS_URL}` }));
    socket.once('error', (err) => done({ name: 'Redis', available: false, reason: `no server at ${REDIS_URL} (${err.message})` }));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) =>
      done(
        data.toString().startsWith('+PONG')
          ? { name: 'Redis', available: true }
          : { name: 'Redis', available: false, reason: `${REDIS_URL} did not answer PING` },
      ),
    );
  });
}

function probeChromium(): ServiceProbe {
  return existsSync(CHROMIUM_PATH)
    ? { name: 'Chromium', available: true }
    : { name: 'Chromium', available: false, reason: `${CHROMIUM_PATH} not found (apt-get install -y chromium)` };
}

/** The fault suite: HAProxy, PostgreSQL's initdb and pg_ctl (a private cluster), redis-server (a private one). */
function probeFaultRig(): ServiceProbe {
  const missing: string[] = [];
  try {
    execFileSync(HAPROXY, ['-v'], { stdio: 'ignore' });
  } catch {
    missing.push(`${HAPROXY} (apt-get install -y haproxy)`);
  }
  for (const tool of ['initdb', 'pg_ctl']) if (!existsSync(`${PG_BIN}/${tool}`)) missing.push(`${PG_BIN}/${tool} (apt-get install -y postgresql)`);
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    missing.push('redis-server (apt-get install -y redis-server)');
  }
  return missing.length ? { name: 'Fault rig', available: false, reason: `not found: ${missing.join(', ')}` } : { name: 'Fault rig', available: true };
}

/** The SMS gateway's tests: Kannel's bearerbox and smsbox, and fakesmsc from kannel-extras (test/support/kannel.ts). */
function probeKannel(): ServiceProbe {
  const { available, reason } = kannelAvailable();
  return available ? { name: 'Kannel', available: true } : { name: 'Kannel', available: false, reason: reason ?? 'not found' };
}

export async function probeServices(): Promise<ServiceProbe[]> {
  return [await probePostgres(), await probeRedis(), probeChromium(), probeFaultRig(), probeKannel()];
}

const PROBED = Symbol.for('tsaro.test.probed-services');

/**
 * probeServices, once per process: Vitest evaluates vitest.config.ts for the root and again for
 * each project that extends it, each time as a fresh module, so only a global is shared.
 * `first` is true for the one evaluation that ran the probes (it prints the skip notice).
 */
export async function probeServicesOnce(): Promise<{ probes: ServiceProbe[]; first: boolean }> {
  const shared = globalThis as { [PROBED]?: Promise<ServiceProbe[]> };
  const first = shared[PROBED] === undefined;
  shared[PROBED] ??= probeServices();
  return { probes: await shared[PROBED], first };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
