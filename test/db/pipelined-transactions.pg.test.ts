import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { deferredWrite } from '../../server/db/deferred-write.ts';
import { createPostgresPool } from '../../server/db/postgres-pool.ts';
import { inSavepoint } from '../../server/db/savepoint.ts';
import { countingRelay } from '../support/counting-relay.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// On PostgreSQL a transaction's BEGIN rides with its first statement, and a write marked
// deferred (server/db/deferred-write.ts) with the statement after it (server/db/postgres-pool.ts):
// fewer round trips, the same outcomes.
describe('pipelined transactions', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let opened: OpenedDatabase;
  let db: Kysely<any>;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await countingRelay(new URL(database.url));
    opened = openDatabase(relay.url, { poolSize: 1 });
    db = opened.db as unknown as Kysely<any>;
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
  });

  afterAll(async () => {
    await opened.close();
    await relay.close();
    await database.drop();
  });

  beforeEach(async () => {
    await sql`delete from notes`.execute(db);
    await sql`insert into notes values (1, 'first')`.execute(db);
  });

  const insert = (trx: Kysely<any>, id: number) => sql`insert into notes values (${id}, ${'note'})`.execute(trx);
  const insertDeferred = (trx: Kysely<any>, id: number) => sql`insert into notes values (${id}, ${'note'})${deferredWrite}`.execute(trx);
  const ids = async () => (await sql<{ id: number }>`select id from notes order by id`.execute(db)).rows.map((row) => row.id);
  const flightsOf = async (work: () => Promise<unknown>) => {
    await ids(); // the pool's connection is open and warm
    const before = relay.flights();
    await work();
    return relay.flights() - before;
  };
  const failureOf = (work: Promise<unknown>) => work.then(() => 'succeeded', (err: { code?: string }) => err.code ?? String(err));

  it('BEGIN goes out with the first statement, a deferred write with the COMMIT, and an empty transaction sends nothing', async () => {
    expect(await flightsOf(() => db.transaction().execute((trx) => insert(trx, 2)))).toBe(2);
    expect(await flightsOf(() => db.transaction().execute(async (trx) => {
      await insert(trx, 3);
      await insertDeferred(trx, 4);
      await insertDeferred(trx, 5);
    }))).toBe(2);
    expect(await flightsOf(() => db.transaction().execute(async () => undefined))).toBe(0);
    expect(await ids()).toEqual([1, 2, 3, 4, 5]);
  });

  it('a BEGIN with an isolation level goes out on its own, and its failure is its own', async () => {
    expect(await flightsOf(() => db.transaction().setIsolationLevel('serializable').execute((trx) => insert(trx, 2)))).toBe(3);
    // Held back, a BEGIN that fails would have let the statement behind it run and commit alone.
    const pool = createPostgresPool({ url: database.url, max: 1, connectTimeoutMs: 5_000, statementTimeoutMs: 5_000, onConnectionError: () => undefined });
    const client = await pool.connect();
    try {
      expect(await failureOf(client.query('begin isolation level nonsense', []))).toBe('42601');
    } finally {
      client.release();
      await pool.end();
    }
    expect(await ids()).toEqual([1, 2]);
  });

  it('a deferred write that fails fails its transaction with its own error, at the COMMIT or the statement after it', async () => {
    expect(await failureOf(db.transaction().execute(async (trx) => {
      await insert(trx, 2);
      await insertDeferred(trx, 1);
    }))).toBe('23505');
    expect(await failureOf(db.transaction().execute(async (trx) => {
      await insert(trx, 3);
      await insertDeferred(trx, 1);
      await insert(trx, 4);
    }))).toBe('23505');
    expect(await ids()).toEqual([1]);
    // The connection is clean for the next transaction.
    await db.transaction().execute((trx) => insert(trx, 5));
    expect(await ids()).toEqual([1, 5]);
  });

  it('outside a transaction and inside a savepoint, a deferred write is waited for like any other', async () => {
    expect(await failureOf(insertDeferred(db, 1))).toBe('23505');
    await insertDeferred(db, 2);
    await db.transaction().execute(async (trx) => {
      await insert(trx, 3);
      expect(await failureOf(inSavepoint(trx, 'op', () => insertDeferred(trx, 1)))).toBe('23505');
      await inSavepoint(trx, 'op', () => insertDeferred(trx, 4));
    });
    expect(await ids()).toEqual([1, 2, 3, 4]);
  });

  it('a connection lost before the first statement: BEGIN and the statement run again on a fresh one, still as one transaction', async () => {
    const terminateBackends = async () => {
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
      await admin.end();
    };
    await ids();
    await terminateBackends();
    await db.transaction().execute((trx) => insert(trx, 2));
    expect(await ids()).toEqual([1, 2]);

    // Had the statement run again without its BEGIN, 3 would be committed on its own.
    await terminateBackends();
    expect(await failureOf(db.transaction().execute(async (trx) => {
      await insert(trx, 3);
      await insert(trx, 1);
    }))).toBe('23505');
    expect(await ids()).toEqual([1, 2]);
  });
});
