import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * The LAN between two kiosks, one way: a TCP relay a kiosk dials (its KIOSK_PEERS entry for the
 * other) that forwards bytes untouched to the other's peer port. `cut` drops every connection and
 * refuses new ones, as a pulled cable between two gates does; `mend` lets them through again;
 * `latencyMs` slows it.
 */
export class PeerWire {
  private cut_ = false;
  /** Each chunk is held this long on its way (a slow or busy LAN); order is kept. */
  latencyMs = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly targetPort: () => number) {
    this.server = createServer((inbound) => {
      if (this.cut_) {
        inbound.destroy();
        return;
      }
      const outbound = connect({ host: '127.0.0.1', port: this.targetPort() });
      for (const socket of [inbound, outbound]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      const relay = (from: Socket, to: Socket) =>
        from.on('data', (chunk: Buffer) => {
          if (this.latencyMs === 0) to.write(chunk);
          else setTimeout(() => to.destroyed || to.write(chunk), this.latencyMs);
        });
      relay(inbound, outbound);
      relay(outbound, inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  cut(): void {
    this.cut_ = true;
    for (const socket of this.sockets) socket.destroy();
  }

  mend(): void {
    this.cut_ = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((done) => this.server.close(done));
  }
}
