import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../support/ports.ts';
import { waitUntil } from './services.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const HAPROXY = process.env.TSARO_HAPROXY ?? 'haproxy';

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

async function healthy(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status === 200;
}

/** One API host: `node --import tsx server/main.ts`, exactly as `npm start` runs it, logging to a file. */
export class Host {
  child: ChildProcess | undefined;
  /** Exits nobody asked for: a host that died of a fault. */
  readonly unexpectedExits: string[] = [];
  private expectingExit = false;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {}

  get baseUrl() {
    return `http://127.0.0.1:${this.port}/v1/external`;
  }

  get running() {
    return this.child !== undefined && !exited(this.child);
  }

  async start(): Promise<void> {
    const log = openSync(join(this.logDir, `${this.name}.log`), 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', log, log],
    });
    this.child = child;
    this.expectingExit = false;
    child.once('exit', (code, signal) => {
      if (!this.expectingExit) this.unexpectedExits.push(`${this.name} exited (code ${code}, signal ${signal}); see ${this.name}.log`);
    });
    await waitUntil(`${this.name} to answer /health`, async () => {
      if (exited(child)) throw new Error(`${this.name} exited during start; see ${join(this.logDir, `${this.name}.log`)}`);
      return healthy(`${this.baseUrl}/health`);
    }, 60_000).catch((err: unknown) => {
      if (exited(child)) throw new Error(`${this.name} exited during start; see ${join(this.logDir, `${this.name}.log`)}`);
      throw err;
    });
  }

  /** kill -9: no shutdown, no goodbye. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || exited(child)) return;
    this.expectingExit = true;
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || exited(child)) return;
    this.expectingExit = true;
    const gone = once(child, 'exit');
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(force);
  }
}

export async function startHosts(count: number, env: Record<string, string>, logDir: string): Promise<Host[]> {
  const hosts: Host[] = [];
  for (let i = 1; i <= count; i++) hosts.push(new Host(`host${i}`, await freePort(), env, logDir));
  // One at a time: the first applies the migrations, the others find them done.
  for (const host of hosts) await host.start();
  return hosts;
}

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

/** HAProxy from Debian in the foreground: every host checked on /health, failed connects retried elsewhere. */
export async function startBalancer(hosts: Host[], dir: string): Promise<Balancer> {
  const port = await freePort();
  const config = `global
  maxconn 1024
  log stdout format raw local0
defaults
  mode http
  log global
  option httplog
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-request 10s
  retries 2
  option redispatch
  # A request cut off by a host that dies gets a 502 in the error shape, not a silently closed
  # connection (what HAProxy does on a reused server connection, to let browsers retry).
  http-reuse never
  # Errors HAProxy answers itself carry the API's error shape too.
${[502, 503, 504].map((status) => `  errorfile ${status} ${join(dir, `${status}.http`)}`).join('\n')}
frontend api
  bind 127.0.0.1:${port}
  default_backend hosts
backend hosts
  balance roundrobin
  option httpchk GET /v1/external/health
  http-check expect status 200
  timeout check 3s
  default-server inter 1s fall 2 rise 1
${hosts.map((host) => `  server ${host.name} 127.0.0.1:${host.port} check`).join('\n')}
`;
  for (const status of [502, 503, 504]) {
    const body = JSON.stringify({ code: status, message: 'No API host answered; retry shortly' });
    const reason = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' }[status];
    writeFileSync(
      join(dir, `${status}.http`),
      `HTTP/1.0 ${status} ${reason}\r\nCache-Control: no-cache\r\nConnection: close\r\nContent-Type: application/json\r\nRetry-After: 2\r\n\r\n${body}\n`,
    );
  }
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const log = openSync(join(dir, 'haproxy.log'), 'a');
  const child = spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${port}/v1/external`;
  await waitUntil('HAProxy to route /health', async () => {
    if (exited(child)) throw new Error(`haproxy exited; see ${join(dir, 'haproxy.log')}`);
    return healthy(`${url}/health`);
  }, 20_000);
  return {
    url,
    async stop() {
      if (exited(child)) return;
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      await gone;
    },
  };
}
