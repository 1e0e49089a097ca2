import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../support/ports.ts';

/**
 * Private PostgreSQL and Redis for the fault suite: the shared ones on 5432 and 6379 are used by
 * everyone else at the same time and must never be restarted, terminated or paused.
 */
const run = promisify(execFile);
export const PG_BIN = process.env.TSARO_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));


export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** Runs as the postgres user when we are root (initdb and postgres refuse to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

export interface PrivatePostgres {
  port: number;
  url: string;
  /** pg_terminate_backend of every connection to the database; answers how many were ended. */
  terminateAll(): Promise<number>;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/** initdb into `dir`, then pg_ctl start on a free port with its socket in `dir`. */
export async function startPrivatePostgres(dir: string): Promise<PrivatePostgres> {
  const data = join(dir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) {
    chmodSync(dir, 0o777);
  }
  const port = await freePort();
  const pgCtl = (args: string[]) => run(...asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, ...args]), { timeout: 60_000 });
  await run(...asPostgres(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']), { timeout: 120_000 });
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = async () => {
    await pgCtl(['-o', options, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
  };
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: adminUrl });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  await admin((client) => client.query('create database tsaro'));
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/tsaro`,
    terminateAll: () =>
      admin(async (client) => {
        const result = await client.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = 'tsaro' and pid <> pg_backend_pid()",
        );
        return result.rowCount ?? 0;
      }),
    stop: async () => {
      await pgCtl(['-m', 'fast', '-w', 'stop']);
    },
    start,
    async remove() {
      await pgCtl(['-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startPrivateRedis(dir: string): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await waitUntil(
      'the private redis-server',
      () =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.end(() => resolve(true)));
          socket.on('error', () => resolve(false));
        }),
      10_000,
    );
  };
  const stop = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = once(current, 'exit');
    current.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start, remove: stop };
}
