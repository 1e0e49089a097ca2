import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { openSecureChannel, PeerRefused, type OwnIdentity, type SecureChannel } from './channel.ts';
import { PeerFact, PeerMessage, type UseFact } from './facts.ts';
import type { CertificateCheck } from '../../../shared/node/kiosk-certificate.ts';
import { discoverPeers, type PeerDiscovery } from './discovery.ts';

/** Where a kiosk listens for its peers unless KIOSK_PEER_PORT says otherwise (CONTRACT.md). */
export const DEFAULT_PEER_PORT = 4310;

export interface PeerOptions {
  /** KIOSK_PEER_PORT: listened on all interfaces (the site's LAN), unlike KIOSK_PORT. 0: any free port. */
  port: number;
  /** KIOSK_PEERS: `host:port` of the site's other kiosks, dialled and redialled. */
  addresses: string[];
  /** How long a gate waits for a pass's owner before deciding alone (default 1000 ms). */
  askTimeoutMs?: number;
  /** First redial after a failure; doubles up to ten times that. */
  redialMs?: number;
  /** Publish this kiosk and find the others by mDNS on the LAN (the kiosk host: on). */
  discovery?: boolean;
}

/** A peer refused at the handshake for its certificate (another site, expired) is tried again this rarely. */
const REFUSED_REDIAL_MS = 60_000;

/** What the peer room needs from the rest of the core, and nothing more. */
export interface PeerDeps {
  kioskId: string;
  /** This kiosk's key and certificate; null before its first certificate (it then talks to no peer). */
  identity(): OwnIdentity | null;
  /** Checks a peer's certificate against this kiosk's own site authority, now. */
  trust(certificate: string): CertificateCheck;
  /** Facts read from the store after `seq`, to pass on. */
  factsAfter(seq: number, limit: number): Array<{ seq: number; fact: PeerFact }>;
  /** Facts heard: kept (once each) and applied; answers the ones that were new. */
  absorb(facts: PeerFact[]): PeerFact[];
  /** The owner's decision on a use a peer asks for (recorded before answering when granted). */
  decideAsOwner(ask: Extract<PeerMessage, { type: 'ask' }>): { admit: boolean; lastUse: UseFact | null };
  logEvent(message: string): void;
  logError(error: unknown): void;
}

interface Connection {
  channel: SecureChannel;
  /** Its first batch of facts has all come: it counts among the members from now on. */
  ready: boolean;
  /** The last of our facts it has been sent. */
  sentSeq: number;
  /** Where we dialled it, if we did. */
  address: string | null;
}

const BATCH = 500;

/**
 * The peer room's network (issue #49): listens on KIOSK_PEER_PORT, dials KIOSK_PEERS, keeps one
 * proven channel per peer kiosk, passes facts on (each new fact to every peer, all of them to a
 * peer met anew) and carries a gate's question to a pass's owner. The only mutable network state
 * of the room, as `Link` is the server's.
 */
export class Peers {
  private server: Server | undefined;
  private readonly connections = new Map<string, Connection>();
  private readonly pending = new Set<Socket>();
  private readonly asks = new Map<string, { owner: string; answer: (answer: { admit: boolean; lastUse: UseFact | null } | null) => void }>();
  private readonly dialers = new Map<string, { timer: NodeJS.Timeout | undefined; delayMs: number; lastProblem: string | null; busy: boolean; kioskId: string | null }>();
  private stopped = false;
  private discovery: PeerDiscovery | undefined;
  /** The port listened on, once listening. */
  port: number | null = null;

  constructor(
    private readonly deps: PeerDeps,
    private readonly options: PeerOptions,
  ) {}

  /** The kiosk ids of the gates that decide together now: this one and every peer whose facts have all come. */
  members(): string[] {
    return [this.deps.kioskId, ...[...this.connections.entries()].filter(([, c]) => c.ready && c.channel.isOpen).map(([id]) => id)];
  }

  /** The peers this kiosk talks to now, for its status. */
  connected(): Array<{ kioskId: string; site: string; ready: boolean }> {
    return [...this.connections.entries()].map(([kioskId, c]) => ({ kioskId, site: c.channel.peer.claims.site_id, ready: c.ready }));
  }

  async start(): Promise<void> {
    this.stopped = false;
    const server = createServer((socket) => void this.accept(socket));
    this.server = server;
    await new Promise<void>((done) => {
      server.once('error', (error) => {
        this.deps.logEvent(`the peer port ${this.options.port} cannot be listened on (${error.message}); this gate dials its peers (KIOSK_PEERS) but is not reachable`);
        done();
      });
      server.listen(this.options.port, () => {
        this.port = (server.address() as { port: number }).port;
        done();
      });
    });
    // Stopped while it was starting: nothing is left listening.
    if (this.stopped) {
      server.close();
      return;
    }
    for (const address of this.options.addresses) this.dial(address);
    if (this.options.discovery && this.port !== null && !this.stopped) {
      this.discovery = discoverPeers({
        kioskId: this.deps.kioskId,
        port: this.port,
        logEvent: this.deps.logEvent,
        found: (address) => {
          if (this.stopped || this.dialers.has(address)) return;
          this.deps.logEvent(`found a gate at ${address} by mDNS`);
          this.dial(address);
        },
      });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.discovery?.stop();
    for (const dialer of this.dialers.values()) clearTimeout(dialer.timer);
    for (const connection of this.connections.values()) connection.channel.close('this kiosk stops');
    for (const socket of this.pending) socket.destroy();
    for (const ask of this.asks.values()) ask.answer(null);
    this.asks.clear();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }

  /** Sends every peer the facts it has not been sent yet (call after recording facts). */
  announce(): void {
    for (const connection of this.connections.values()) this.sendFacts(connection, false);
  }

  /**
   * Asks the pass's owner for one more use. Answers its decision, or null when the owner did not
   * answer in time (gone, or the connection dropped): the gate then decides alone.
   */
  async ask(owner: string, ask: Omit<Extract<PeerMessage, { type: 'ask' }>, 'type' | 'askId'>): Promise<{ admit: boolean; lastUse: UseFact | null } | null> {
    const connection = this.connections.get(owner);
    if (!connection?.ready || !connection.channel.isOpen) return null;
    const askId = randomUUID();
    return new Promise((done) => {
      const timer = setTimeout(() => {
        this.asks.delete(askId);
        this.deps.logEvent(`the gate that decides ${ask.use.code} (${owner}) did not answer within ${this.options.askTimeoutMs ?? 1000} ms; deciding alone`);
        done(null);
      }, this.options.askTimeoutMs ?? 1000);
      this.asks.set(askId, {
        owner,
        answer: (answer) => {
          clearTimeout(timer);
          this.asks.delete(askId);
          done(answer);
        },
      });
      connection.channel.send({ type: 'ask', askId, ...ask });
    });
  }

  private async accept(socket: Socket): Promise<void> {
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    const own = this.deps.identity();
    if (!own || this.stopped) {
      socket.destroy();
      return;
    }
    this.pending.add(socket);
    try {
      this.adopt(await openSecureChannel(socket, 'responder', own, (certificate) => this.deps.trust(certificate)), null);
    } catch (error) {
      this.deps.logEvent(`a peer from ${from} was ignored: ${error instanceof PeerRefused ? error.reason : (error as Error).message}`);
    } finally {
      this.pending.delete(socket);
    }
  }

  private dial(address: string): void {
    const dialer = { timer: undefined as NodeJS.Timeout | undefined, delayMs: this.options.redialMs ?? 1000, lastProblem: null as string | null, busy: false, kioskId: null as string | null };
    this.dialers.set(address, dialer);
    const again = (problem: string | null) => {
      if (this.stopped) return;
      if (problem && problem !== dialer.lastProblem) this.deps.logEvent(`the peer at ${address} ${problem}; trying again`);
      dialer.lastProblem = problem;
      const base = this.options.redialMs ?? 1000;
      // Another site's gate (found by mDNS on a shared LAN, or listed by mistake) is not worth a try every few seconds.
      const refused = problem?.includes('certificate does not hold here') ?? false;
      dialer.timer = setTimeout(attempt, refused ? Math.max(REFUSED_REDIAL_MS, dialer.delayMs) : dialer.delayMs);
      dialer.delayMs = Math.min(dialer.delayMs * 2, base * 10);
    };
    const attempt = () => {
      if (this.stopped || dialer.busy) return;
      // Already talking to that kiosk (it dialled us): nothing to do until that ends.
      if (dialer.kioskId && this.connections.get(dialer.kioskId)?.channel.isOpen) return again(null);
      const own = this.deps.identity();
      if (!own) return again(null);
      const [host, port] = splitAddress(address);
      dialer.busy = true;
      const socket = connect({ host, port });
      this.pending.add(socket);
      const failed = (problem: string) => {
        dialer.busy = false;
        this.pending.delete(socket);
        socket.destroy();
        again(problem);
      };
      socket.once('error', (error) => failed(`cannot be reached (${(error as NodeJS.ErrnoException).code ?? error.message})`));
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        openSecureChannel(socket, 'initiator', own, (certificate) => this.deps.trust(certificate)).then(
          (channel) => {
            dialer.busy = false;
            this.pending.delete(socket);
            dialer.kioskId = channel.peer.kioskId;
            dialer.delayMs = this.options.redialMs ?? 1000;
            dialer.lastProblem = null;
            channel.once('close', () => again(null));
            this.adopt(channel, address);
          },
          (error) => failed(`was ignored: ${error instanceof PeerRefused ? error.reason : (error as Error).message}`),
        );
      });
    };
    attempt();
  }

  /** A proven channel: one per peer kiosk (of two, the one the smaller kiosk id dialled stays). */
  private adopt(channel: SecureChannel, address: string | null): void {
    const peerId = channel.peer.kioskId;
    const existing = this.connections.get(peerId);
    if (existing?.channel.isOpen) {
      // Both ends apply the same rule, so both keep the same connection.
      const preferred = [this.deps.kioskId, peerId].sort()[0];
      const keepNew = initiatorOf(channel, this.deps.kioskId) === preferred && initiatorOf(existing.channel, this.deps.kioskId) !== preferred;
      if (!keepNew) {
        channel.close('a second connection to the same kiosk');
        return;
      }
    }
    const connection: Connection = { channel, ready: false, sentSeq: 0, address };
    this.connections.set(peerId, connection);
    // After the new one is in place: the old one's close is not a peer leaving.
    if (existing?.channel.isOpen) existing.channel.close('replaced by the connection the smaller kiosk id dialled');
    if (!existing) this.deps.logEvent(`peer ${peerId} (site ${channel.peer.claims.site_id}) connected${address ? ` at ${address}` : ''}`);
    channel.on('message', (message) => this.receive(connection, message));
    channel.once('close', (why) => {
      if (this.connections.get(peerId) === connection) {
        this.connections.delete(peerId);
        if (!this.stopped) this.deps.logEvent(`peer ${peerId} left (${why})`);
        // Its answers will not come: the gates waiting on it decide alone now.
        for (const ask of [...this.asks.values()]) if (ask.owner === peerId) ask.answer(null);
      }
    });
    channel.start();
    this.sendFacts(connection, true);
  }

  private sendFacts(connection: Connection, first: boolean): void {
    if (!connection.channel.isOpen) return;
    for (;;) {
      const batch = this.deps.factsAfter(connection.sentSeq, BATCH);
      const last = batch.length < BATCH;
      if (batch.length || first) connection.channel.send({ type: 'facts', facts: batch.map((row) => row.fact), ...(first && last ? { ready: true } : {}) });
      if (batch.length) connection.sentSeq = batch.at(-1)!.seq;
      if (last) return;
    }
  }

  private receive(connection: Connection, raw: unknown): void {
    const parsed = PeerMessage.safeParse(raw);
    if (!parsed.success) {
      this.deps.logEvent(`peer ${connection.channel.peer.kioskId} sent a message this kiosk does not understand; ignored`);
      return;
    }
    const message = parsed.data;
    try {
      switch (message.type) {
        case 'facts': {
          const facts = message.facts.flatMap((fact) => {
            const checked = PeerFact.safeParse(fact);
            return checked.success ? [checked.data] : [];
          });
          if (facts.length && this.deps.absorb(facts).length) this.announce();
          if (message.ready) connection.ready = true;
          return;
        }
        case 'ask': {
          const answer = this.deps.decideAsOwner(message);
          connection.channel.send({ type: 'answer', askId: message.askId, ...answer });
          if (answer.admit) this.announce();
          return;
        }
        case 'answer':
          this.asks.get(message.askId)?.answer({ admit: message.admit, lastUse: message.lastUse });
          return;
      }
    } catch (error) {
      this.deps.logError(error);
    }
  }
}

function initiatorOf(channel: SecureChannel, me: string): string {
  return channel.role === 'initiator' ? me : channel.peer.kioskId;
}

/** `host:port`, `[v6]:port`. */
export function splitAddress(address: string): [string, number] {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address.trim());
  if (!match) throw new Error(`KIOSK_PEERS: "${address}" is not host:port`);
  return [match[1]!, Number(match[2])];
}
