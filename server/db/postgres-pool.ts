import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { isAnswerTimeout, isConnectionLost, isNeverSent } from './errors.ts';
import { isStalePreparedStatement, StatementNames } from './statement-names.ts';

export interface PostgresPoolOptions {
  url: string;
  max: number;
  /** A connection not established (TCP and start-up answered) within this fails with a timeout. */
  connectTimeoutMs: number;
  /** The server cancels a statement running longer (statement_timeout); the client gives up a little later. */
  statementTimeoutMs: number;
  /** Called for every connection error, idle or checked out; the process never dies of one. */
  onConnectionError: (err: Error) => void;
  /** Prepare statements that run again and again once per connection (statement-names.ts); default on. */
  preparedStatements?: boolean;
}

/** What the pool holds right now (for metrics): open, idle, and requests waiting for a connection. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * A pg pool that survives dropped connections (a restart, a failover, `pg_terminate_backend`).
 *
 * - Every client gets an `error` listener for its whole life: pg-pool listens only while a client
 *   is idle, and a checked-out client's unheard `error` event ends the process.
 * - A broken or timed-out client is destroyed on release, never handed out again.
 * - A statement outside a transaction is run again on a fresh connection when it is safe:
 *   a read (`select`) or a `begin` whose connection was lost, or any statement that never reached the server.
 *   A write whose outcome is unknown, and anything inside a transaction, fails instead: the caller
 *   answers 503 and the client retries (with its Idempotency-Key).
 * - Statements that run again and again are prepared once per connection (statement-names.ts).
 */
export function createPostgresPool(options: PostgresPoolOptions): PostgresPool & { counts(): PoolCounts } {
  const pool = new pg.Pool({
    connectionString: options.url,
    types: numericInt8(),
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    // A server that stops answering mid-statement (a half-open connection) is caught here.
    query_timeout: options.statementTimeoutMs + options.connectTimeoutMs,
    keepAlive: true,
  });
  pool.on('error', options.onConnectionError);
  pool.on('connect', (client) => client.on('error', options.onConnectionError));
  const names = new StatementNames(options.preparedStatements === false ? 0 : undefined);
  return {
    connect: async () => new ResilientClient(pool, await pool.connect(), names),
    end: () => pool.end(),
    counts: () => ({ totalCount: pool.totalCount, idleCount: pool.idleCount, waitingCount: pool.waitingCount }),
  };
}

/**
 * int8 (bigint) read as a JS number. `count(*)`, `count(x)` and `sum()` of integers answer int8,
 * which pg hands back as text (an int8 can pass 2^53); ours are counts and sequence numbers, far
 * below 2^53 (9e15), so a number is exact. Stores then read numbers on both engines (SQLite
 * answers numbers already) and no store wraps a count in Number(). Only this pool's clients get
 * it (pg's per-client `types`), not pg's process-wide parser table.
 */
function numericInt8(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, 'text', Number);
  return types;
}

/** Tries of a statement that is safe to repeat, each on a fresh connection after the first. */
const REPEATS = 3;

const leadingWord = (sql: string) => /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase() ?? '';

class ResilientClient implements PostgresPoolClient {
  #pool: pg.Pool;
  #names: StatementNames;
  #client: pg.PoolClient | undefined;
  #inTransaction = false;
  /** Why the current connection may not be reused; it is destroyed on release. */
  #broken: Error | undefined;

  constructor(pool: pg.Pool, client: pg.PoolClient, names: StatementNames) {
    this.#pool = pool;
    this.#client = client;
    this.#names = names;
  }

  // Kysely calls query(sql, parameters) for statements and query(cursor) for streams.
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') return this.#current().query(sql as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
    return this.#run<R>(sql, parameters ?? []);
  }

  async #run<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    const word = leadingWord(sql);
    const inTransaction = this.#inTransaction;
    if (word === 'begin' || word === 'start') this.#inTransaction = true;
    if (word === 'commit' || word === 'end' || (word === 'rollback' && !/^\s*rollback\s+to\b/i.test(sql))) this.#inTransaction = false;
    let prepared = this.#names.preparedFor(sql, parameters.length);
    for (let attempt = 1; ; attempt++) {
      try {
        const client = this.#current();
        const result = prepared ? client.query({ ...prepared, values: [...parameters] }) : client.query(sql, [...parameters]);
        return (await result) as unknown as PostgresQueryResult<R>;
      } catch (err) {
        if (prepared && isStalePreparedStatement(err)) {
          // A table changed shape under the prepared statement: prepare it anew, under a new name.
          // Outside a transaction it runs again at once; inside, the transaction has failed (503).
          prepared = this.#names.renewed(sql, prepared);
          if (!inTransaction && attempt < REPEATS) continue;
          throw err;
        }
        if (!isConnectionLost(err)) throw err;
        this.#broken = err as Error;
        // The server ends the transaction of a connection that is gone: the rollback has happened.
        if (word === 'rollback' && inTransaction) return { command: 'ROLLBACK', rowCount: 0, rows: [] } as unknown as PostgresQueryResult<R>;
        // A read that timed out is not run again: the server is slow, and the caller's wait is bounded.
        const safeToRepeat = !inTransaction && (((word === 'select' || word === 'begin' || word === 'start') && !isAnswerTimeout(err)) || isNeverSent(err));
        if (!safeToRepeat || attempt >= REPEATS) throw err;
        // A fresh connection; the broken one is destroyed. When every backend is being terminated
        // the fresh one may be next, hence a few tries a moment apart.
        this.#client?.release(this.#broken);
        this.#client = undefined;
        this.#broken = undefined;
        await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
        this.#client = await this.#pool.connect();
      }
    }
  }

  #current(): pg.PoolClient {
    if (!this.#client) throw Object.assign(new Error('Client has encountered a connection error and is not queryable'), { neverSent: true });
    return this.#client;
  }

  release(): void {
    const client = this.#client;
    this.#client = undefined;
    // A connection left inside a transaction (its rollback failed) is destroyed too.
    client?.release(this.#broken ?? (this.#inTransaction ? new Error('released inside a transaction') : undefined));
  }
}
