import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createKioskClient, httpTransport, type KioskClient } from '../../../shared/kiosk/client.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface ChildKiosk {
  process: ChildProcess;
  url: string;
  client: KioskClient;
  /** SIGKILL: no cleanup, no flush, as a power cut or `kill -9`. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** `npm run kiosk:web`'s program in a child process (node --import tsx), set up by KIOSK_* variables, on a free port. */
export async function startChildKiosk(env: Record<string, string>): Promise<ChildKiosk> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'electron/web-host/main.ts'], {
    cwd: ROOT,
    // A peer port of its own and no mDNS: kiosks of different tests on this machine stay strangers.
    env: { ...process.env, KIOSK_PORT: '0', KIOSK_PEER_PORT: '0', KIOSK_PEER_DISCOVERY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((done, fail) => {
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n')) done((JSON.parse(line!) as { kiosk: string }).kiosk);
    });
    child.once('exit', (code) => fail(new Error(`kiosk child exited (${code}): ${stderr}`)));
  });
  return {
    process: child,
    url,
    client: createKioskClient(httpTransport(url.replace(/\/$/, ''))),
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The kiosk's network, between it and the real server: `down` drops every connection; with
 * `holdAnswerOf` set, the n-th replay batch (`POST /kiosk/replay`) is forwarded and done by the
 * server, and its answer is kept from the kiosk, so a test can kill the kiosk exactly there.
 * Other writes (an SOS, the kiosk's certificate) pass and are not counted.
 */
export class LinkProxy {
  down = false;
  holdAnswerOf: number | null = null;
  writes = 0;
  held: Promise<string>;
  private markHeld!: (what: string) => void;
  private server: Server;
  url = '';

  constructor(private readonly target: string) {
    this.held = new Promise((done) => (this.markHeld = done));
    this.server = createServer((req, res) => void this.forward(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'idempotency-key', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const response = await fetch(this.target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await response.arrayBuffer());
    if (req.method === 'POST' && req.url?.endsWith('/kiosk/replay')) {
      this.writes++;
      if (this.writes === this.holdAnswerOf) {
        this.markHeld(`${req.method} ${req.url}`);
        return; // the server has done it; the kiosk never hears
      }
    }
    const out: Record<string, string> = {};
    for (const name of ['content-type', 'idempotent-replayed', 'retry-after']) {
      const value = response.headers.get(name);
      if (value) out[name] = value;
    }
    res.writeHead(response.status, out).end(body);
  }
}
