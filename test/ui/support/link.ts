import net from 'node:net';

export interface CuttableLink {
  port: number;
  /** From now on every connection is dropped at once, as when the gate's uplink is down. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 between the kiosk and the server, to take one kiosk offline while
 * the server stays up for everyone else (another gate, the test's own checks).
 */
export async function startCuttableLink(targetPort: number): Promise<CuttableLink> {
  let up = true;
  const open = new Set<net.Socket>();
  const relay = net.createServer((incoming) => {
    if (!up) {
      incoming.destroy();
      return;
    }
    const outgoing = net.connect(targetPort, '127.0.0.1');
    for (const socket of [incoming, outgoing]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.on('error', () => {
        incoming.destroy();
        outgoing.destroy();
      });
    }
    incoming.pipe(outgoing).pipe(incoming);
  });
  await new Promise<void>((done) => relay.listen(0, '127.0.0.1', done));
  return {
    port: (relay.address() as net.AddressInfo).port,
    cut() {
      up = false;
      for (const socket of open) socket.destroy();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of open) socket.destroy();
        relay.close(() => done());
      }),
  };
}
