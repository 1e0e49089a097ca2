import { connect, createServer, type Server, type Socket } from 'node:net';

/** A chunk a client sent through the relay: on which of its connections, and when. */
export interface Flight {
  connection: number;
  at: number;
  bytes: Buffer;
}

/**
 * A TCP relay in front of PostgreSQL that counts the client's flights: the chunks it sends
 * between answers. A client that waits for an answer before writing again makes one flight per
 * round trip, so the count is the number of round trips a piece of work cost. `log()` keeps each
 * flight with its connection, for a test whose client (a whole server) has several. `silence`
 * makes it a server that stops answering.
 */
export async function countingRelay(target: URL): Promise<{
  url: string;
  flights(): number;
  log(): readonly Flight[];
  /** While on, PostgreSQL's answers are dropped (the client's bytes still go): a half-open connection. */
  silence(on: boolean): void;
  close(): Promise<void>;
}> {
  const log: Flight[] = [];
  let silent = false;
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    const connection = ++connections;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      log.push({ connection, at: Date.now(), bytes: chunk });
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(target);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    flights: () => log.length,
    log: () => log,
    silence: (on) => void (silent = on),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
