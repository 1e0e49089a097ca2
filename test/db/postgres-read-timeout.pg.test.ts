import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionLost } from '../../server/db/errors.ts';
import { createPostgresPool } from '../../server/db/postgres-pool.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * A relay in front of PostgreSQL that can go silent: the client's bytes still leave, PostgreSQL's
 * answers are dropped, as on a half-open connection (a server that froze, a link that died
 * without a reset).
 */
async function silencingRelay(target: URL) {
  const sockets = new Set<Socket>();
  let silent = false;
  const server: Server = createServer((client) => {
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
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    silence: (on: boolean) => void (silent = on),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// The pool's own read timeout (server/db/postgres-pool.ts, `ask`): a statement whose answer never
// comes fails as a lost connection after statement timeout + connect timeout, and the pool goes
// on with a fresh connection.
describe('a PostgreSQL server that stops answering', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof silencingRelay>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await silencingRelay(new URL(database.url));
  });

  afterAll(async () => {
    await relay.close();
    await database.drop();
  });

  it('fails the statement as a lost connection after the read timeout, and the next connection works', async () => {
    const pool = createPostgresPool({ url: relay.url, max: 1, connectTimeoutMs: 200, statementTimeoutMs: 300, onConnectionError: () => undefined });
    try {
      const first = await pool.connect();
      expect((await first.query<{ one: number }>('select 1 as one', [])).rows).toEqual([{ one: 1 }]);
      relay.silence(true);
      const started = Date.now();
      const failure = await first.query('select 2', []).then(
        () => undefined,
        (err: unknown) => err,
      );
      const waited = Date.now() - started;
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toBe('Query read timeout');
      expect(isConnectionLost(failure)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(450);
      first.release();

      relay.silence(false);
      const next = await pool.connect();
      try {
        expect((await next.query<{ three: number }>('select 3 as three', [])).rows).toEqual([{ three: 3 }]);
      } finally {
        next.release();
      }
    } finally {
      await pool.end();
    }
  });
});
