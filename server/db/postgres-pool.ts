import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { isDeferredWrite } from './deferred-write.ts';
import { isAnswerTimeout, isConnectionLost, isNeverSent } from './errors.ts';
import { isStalePreparedStatement, StatementNames, type PreparedStatement } from './statement-names.ts';

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
  /**
   * Plan every execution of a prepared statement for its own parameters (plan_cache_mode
   * force_custom_plan), never PostgreSQL's generic plan that it may pick after five: the read
   * lane's broad reads, whose best plan depends on the window (issue #45: a report's generic plan
   * walked the tenant's 40,000 incidents by the time index, 25-37 ms, where the partial index of
   * untallied rows answers in 2).
   */
  customPlans?: boolean;
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
 * - A statement is run again on a fresh connection when it is safe: a read (`select`) outside a
 *   transaction, or a transaction's first statement with its BEGIN, whose connection was lost,
 *   or any statement outside a transaction that never reached the server. A write whose outcome
 *   is unknown, and anything later in a transaction, fails instead: the caller answers 503 and
 *   the client retries (with its Idempotency-Key).
 * - Statements that run again and again are prepared once per connection (statement-names.ts).
 * - A transaction's BEGIN costs no round trip of its own: it is held back and written together
 *   with the transaction's first statement, in one write, and both answers are awaited together
 *   (node-postgres pipeline mode). A transaction that never ran a statement sends nothing at all.
 *   A connection lost under that first statement is replaced and both run again: nothing of
 *   that transaction was committed, and the server rolls back what it did once it notices the
 *   connection is gone (until then its locks may make the retry wait, as a client's retry would).
 *   Only a plain BEGIN is held back (one with an isolation level or access mode can fail).
 * - A write marked deferred (deferred-write.ts) inside a transaction is written without waiting,
 *   and its answer checked with the next statement's, which goes out in the same write.
 */
export function createPostgresPool(options: PostgresPoolOptions): PostgresPool & { counts(): PoolCounts } {
  const pool = new pg.Pool({
    connectionString: options.url,
    types: numericInt8(),
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    ...(options.customPlans ? { options: '-c plan_cache_mode=force_custom_plan' } : {}),
    // No query_timeout: a server that stops answering mid-statement (a half-open connection) is
    // caught by `ask`'s own read timeout (below).
    keepAlive: true,
    // Queries are written without waiting for the one before to answer; Kysely still awaits each
    // statement of a transaction before the next, so only the held-back BEGIN (below) rides along.
    pipeline: true,
  } as pg.PoolConfig);
  pool.on('error', options.onConnectionError);
  pool.on('connect', (client) => client.on('error', options.onConnectionError));
  const names = new StatementNames(options.preparedStatements === false ? 0 : undefined);
  return {
    connect: async () => new ResilientClient(pool, await pool.connect(), names, options.statementTimeoutMs + options.connectTimeoutMs),
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

interface Corkable {
  cork?(): void;
  uncork?(): void;
  destroy?(): void;
}

/** The client's socket (pg's `connection.stream`), to write several messages in one go. */
const streamOf = (client: pg.PoolClient): Corkable | undefined => (client as unknown as { connection?: { stream?: Corkable } }).connection?.stream;

/** Tries of a statement that is safe to repeat, each on a fresh connection after the first. */
const REPEATS = 3;

/** `begin` alone, as Kysely sends it for a transaction without an isolation level or access mode. */
const PLAIN_BEGIN = /^\s*begin\s*;?\s*$/i;

const leadingWord = (sql: string) => /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase() ?? '';

/** A statement waiting for its answer (`ask`). */
interface Asked {
  client: pg.PoolClient;
  resolve(result: pg.QueryResult): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
}

/**
 * One statement on `client`, answered as a promise, failed with node-postgres's own "Query read
 * timeout" when no answer came within `readTimeoutMs` (the connection is then destroyed, as
 * node-postgres does, which also fails what was pipelined behind it).
 *
 * Not node-postgres's promise or its `query_timeout`: each assigns a closure onto the query in
 * the function that made it, a shape V8 keeps alive past its young collections, and with a
 * statement per request that kept every request's objects alive (docs/benchmarks.md, "A closure
 * that kept every request"). Here the callback comes from a factory and the timer gets its
 * state as an argument.
 */
function ask(client: pg.PoolClient, query: pg.QueryConfig, readTimeoutMs: number): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const asked: Asked = { client, resolve, reject, timer: undefined, settled: false };
    asked.timer = setTimeout(readTimedOut, readTimeoutMs, asked);
    client.query(query, answerTo(asked));
  });
}

const answerTo = (asked: Asked) => (err: Error | undefined, result: pg.QueryResult) => {
  clearTimeout(asked.timer);
  if (asked.settled) return;
  asked.settled = true;
  if (err) asked.reject(err);
  else asked.resolve(result);
};

function readTimedOut(asked: Asked): void {
  if (asked.settled) return;
  asked.settled = true;
  asked.reject(new Error('Query read timeout'));
  streamOf(asked.client)?.destroy?.();
}

class ResilientClient implements PostgresPoolClient {
  #pool: pg.Pool;
  #names: StatementNames;
  #client: pg.PoolClient | undefined;
  #inTransaction = false;
  /** A BEGIN not yet sent: it goes out with the transaction's first statement. */
  #heldBegin: string | undefined;
  /** Savepoints open in the transaction: no write is deferred inside one. */
  #savepoints = 0;
  /** Deferred writes not yet checked: the next statement's answer comes after theirs. */
  #deferred: Promise<unknown>[] = [];
  /** The socket corked by a deferred write, until the statement after it is written. */
  #corked: Corkable | undefined;
  /** Why the current connection may not be reused; it is destroyed on release. */
  #broken: Error | undefined;

  /** The longest wait for a statement's answer: then the connection is taken as gone. */
  #readTimeoutMs: number;

  constructor(pool: pg.Pool, client: pg.PoolClient, names: StatementNames, readTimeoutMs: number) {
    this.#pool = pool;
    this.#client = client;
    this.#names = names;
    this.#readTimeoutMs = readTimeoutMs;
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
    const beginning = word === 'begin' || word === 'start';
    const ending = word === 'commit' || word === 'end' || (word === 'rollback' && !/^\s*rollback\s+to\b/i.test(sql));
    if (beginning && !this.#inTransaction) {
      // Only a plain BEGIN is held back: it cannot fail but with its connection. A BEGIN with an
      // isolation level or access mode can (a read-write one on a standby), and the statement
      // pipelined behind it would then have run, and committed, on its own.
      if (PLAIN_BEGIN.test(sql)) {
        this.#inTransaction = true;
        this.#heldBegin = sql;
        return { command: 'BEGIN', rowCount: null, rows: [] } as unknown as PostgresQueryResult<R>;
      }
    }
    if (ending && this.#heldBegin !== undefined) {
      // Nothing ran: there is no transaction on the server to end.
      this.#heldBegin = undefined;
      this.#inTransaction = false;
      return { command: word === 'rollback' ? 'ROLLBACK' : 'COMMIT', rowCount: null, rows: [] } as unknown as PostgresQueryResult<R>;
    }
    let prepared = this.#names.preparedFor(sql, parameters.length);
    if (this.#inTransaction && this.#heldBegin === undefined && this.#savepoints === 0 && isDeferredWrite(sql)) {
      return this.#defer(sql, parameters, prepared) as unknown as PostgresQueryResult<R>;
    }
    const inTransaction = this.#inTransaction;
    if (beginning) this.#inTransaction = true;
    if (ending) {
      this.#inTransaction = false;
      this.#savepoints = 0;
    } else if (word === 'savepoint') this.#savepoints++;
    else if (word === 'release') this.#savepoints = Math.max(0, this.#savepoints - 1);
    // Deferred writes sent before this statement: they are answered before it.
    const deferred = this.#deferred;
    this.#deferred = [];
    let deferredFailure: unknown;
    for (let attempt = 1; ; attempt++) {
      // The transaction's first statement: everything it runs in starts with it, so all of it may run again.
      const begin = this.#heldBegin;
      const opening = begin !== undefined;
      try {
        const client = this.#current();
        const result = opening ? this.#withBegin(client, begin, sql, parameters, prepared) : this.#send(client, sql, parameters, prepared);
        this.#heldBegin = undefined;
        this.#uncork();
        if (deferred.length === 0) return (await result) as PostgresQueryResult<R>;
        const [answer, ...earlier] = await Promise.allSettled([result, ...deferred]);
        // A deferred write failed: its error, not this statement's "transaction is aborted"
        // (a ROLLBACK ends the transaction whatever failed in it; a ROLLBACK TO does not).
        const failed = earlier.find((outcome) => outcome.status === 'rejected');
        if (failed && !(ending && word === 'rollback')) {
          deferredFailure = failed.reason;
          throw failed.reason;
        }
        if (answer!.status === 'rejected') throw answer!.reason;
        return answer!.value as PostgresQueryResult<R>;
      } catch (err) {
        // A deferred write's stale statement was renewed when it failed (#defer), not this one.
        if (prepared && err !== deferredFailure && isStalePreparedStatement(err)) {
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
        const repeatable = opening || (!inTransaction && (word === 'select' || beginning));
        const safeToRepeat = (repeatable && !isAnswerTimeout(err)) || ((opening || !inTransaction) && isNeverSent(err));
        if (!safeToRepeat || attempt >= REPEATS) throw err;
        // The lost connection's transaction is gone with it: the fresh one begins its own.
        this.#heldBegin = begin;
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

  /**
   * A deferred write (deferred-write.ts): written now, its answer checked with the next
   * statement's. The socket stays corked until that statement is written, so both go out in one
   * write (and at the latest after this turn of the event loop).
   */
  #defer(sql: string, parameters: ReadonlyArray<unknown>, prepared: PreparedStatement | undefined): PostgresQueryResult<unknown> {
    const client = this.#current();
    if (!this.#corked) {
      const stream = streamOf(client);
      if (stream) {
        stream.cork?.();
        this.#corked = stream;
        setImmediate(() => this.#uncork());
      }
    }
    const sent = this.#renewWhenStale(this.#send(client, sql, parameters, prepared), sql, prepared);
    this.#deferred.push(sent);
    return { command: 'DEFERRED', rowCount: null, rows: [] } as unknown as PostgresQueryResult<unknown>;
  }

  /**
   * A statement whose failure is reported by another (a deferred write's, by the next statement;
   * a pipeline's, by the pipeline): if PostgreSQL refused it as stale, its SQL is prepared anew
   * under a new name for the next run. `sent` itself is answered unchanged.
   */
  #renewWhenStale(sent: Promise<unknown>, sql: string, prepared: PreparedStatement | undefined): Promise<unknown> {
    sent.catch((err: unknown) => {
      if (prepared && isStalePreparedStatement(err)) this.#names.renewed(sql, prepared);
    });
    return sent;
  }

  #uncork(): void {
    const stream = this.#corked;
    this.#corked = undefined;
    stream?.uncork?.();
  }

  #send(client: pg.PoolClient, sql: string, parameters: ReadonlyArray<unknown>, prepared: PreparedStatement | undefined): Promise<unknown> {
    return ask(client, prepared ? { ...prepared, values: [...parameters] } : { text: sql, values: [...parameters] }, this.#readTimeoutMs);
  }

  /**
   * The held-back BEGIN and the transaction's first statement in one write (the socket is corked
   * while pipeline mode queues both), answered together: BEGIN's failure is the statement's.
   */
  async #withBegin(client: pg.PoolClient, begin: string, sql: string, parameters: ReadonlyArray<unknown>, prepared: PreparedStatement | undefined): Promise<unknown> {
    const stream = streamOf(client);
    stream?.cork?.();
    let begun: Promise<unknown>;
    let result: Promise<unknown>;
    try {
      begun = ask(client, { text: begin }, this.#readTimeoutMs);
      result = this.#send(client, sql, parameters, prepared);
    } finally {
      stream?.uncork?.();
    }
    const [, answer] = await Promise.all([begun, result]);
    return answer;
  }

  #current(): pg.PoolClient {
    if (!this.#client) throw Object.assign(new Error('Client has encountered a connection error and is not queryable'), { neverSent: true });
    return this.#client;
  }

  release(): void {
    this.#uncork();
    const client = this.#client;
    this.#client = undefined;
    // A connection left inside a transaction (its rollback failed) is destroyed too; one whose
    // BEGIN was never sent is not inside anything.
    const open = (this.#inTransaction && this.#heldBegin === undefined) || this.#deferred.length > 0;
    this.#heldBegin = undefined;
    this.#inTransaction = false;
    this.#savepoints = 0;
    this.#deferred = [];
    client?.release(this.#broken ?? (open ? new Error('released inside a transaction') : undefined));
  }
}
