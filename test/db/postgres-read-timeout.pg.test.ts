import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionLost } from '../../server/db/errors.ts';
import { createPostgresPool } from '../../server/db/postgres-pool.ts';
import { countingRelay } from '../support/counting-relay.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// The pool's own read timeout (server/db/postgres-pool.ts, `ask`): a statement whose answer never
// comes fails as a lost connection after statement timeout + connect timeout, and the pool goes
// on with a fresh connection.
describe('a PostgreSQL server that stops answering', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof countingRelay>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await countingRelay(new URL(database.url));
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
