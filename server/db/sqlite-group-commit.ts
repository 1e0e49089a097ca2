import { performance } from 'node:perf_hooks';
import type SqliteDatabase from 'better-sqlite3';
import {
  SqliteAdapter,
  SqliteDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type QueryResult,
} from 'kysely';
import { setNewest } from '../bounded-map.ts';

/**
 * Group commit for SQLite: concurrent transactions share one SQLite transaction, one COMMIT
 * and one sync of the write-ahead log to disk, and none is told it committed before that sync
 * has returned.
 *
 * - Durability off the event loop. A file database's writer runs `synchronous=NORMAL`, so its
 *   COMMIT only writes the batch's frames to the WAL; the committer then does what `FULL` would
 *   have done inside COMMIT, an fdatasync of the WAL file, on libuv's thread pool (`OffLoopDisk.sync`).
 *   Members are answered only when it returns: nothing acknowledged is lost on power loss, as
 *   with FULL, but the event loop keeps serving requests during the 2-10 ms the disk takes
 *   (parsing, authenticating and validating the next ones). The writer works meanwhile too: the
 *   next batch fills during the sync (its transactions run in their savepoints) and commits when
 *   the sync returns, one sync in flight at a time. Were the writer idle during each sync, a
 *   transaction could run only in the gaps between them, and long ones (a kiosk's keyed
 *   validation: claim, check-in, answer, audit entry) fitted few to a batch, so beside heavy
 *   reads, with less CPU, their queue for the writer grew (docs/benchmarks.md, "A year of data").
 *   Before a due checkpoint the writer stays idle through the sync. A sync that fails (EIO: the
 *   kernel may have dropped the pages) fails its members and every write after it, as
 *   PostgreSQL does: a restart recovers from the WAL. Checkpoints run between batches (`checkpointIfDue`).
 * - Reads outside a transaction never see what is not yet durable: before a COMMIT whose sync
 *   is still to come, the reader connection opens a read transaction (its snapshot excludes the
 *   batch) and ends it when the sync returns.
 *
 * - One writer connection. A Kysely transaction takes the writer, opens the batch
 *   (`BEGIN IMMEDIATE`) if none is open, and runs inside a SAVEPOINT of its own. Its commit is
 *   `RELEASE` (folded into the batch) and resolves only after the batch's COMMIT; its rollback
 *   is `ROLLBACK TO` + `RELEASE`, which undoes only its own work. Savepoints nest as a stack, so
 *   transactions take the writer one after the other; what they share is the commit.
 * - The batch commits when nobody is waiting for the writer (after one turn of the event loop,
 *   so requests already read from their sockets can join), or at once when it holds `maxBatch`
 *   transactions or is `maxBatchMs` old: under steady load every transaction still commits
 *   within a bounded time.
 * - A transaction holding the writer longer than `maxHoldMs` (it awaits something else) is
 *   rolled back alone and its next statement, or commit, fails: the batch never waits forever.
 * - Reads outside a transaction go to a second, query-only connection. WAL gives it the last
 *   durable state (see above), so a read never sees a change that is not yet durable (or that a
 *   later ROLLBACK TO undoes) and never waits for the writer. An in-memory database has no second
 *   connection and nothing to sync; its reads take the writer between transactions.
 * - A write outside a transaction (an UPDATE on `db`) joins the batch as one statement and
 *   resolves after the COMMIT, like a transaction.
 * - An error SQLite answers by rolling back the whole transaction (disk full, I/O error) fails
 *   every transaction of the batch: none of them was told it succeeded.
 * - Another process (the CLI) writing the same file waits for the batch's write lock through
 *   its `busy_timeout`; the batch waits for the other's without blocking the event loop.
 */
export interface GroupCommitOptions {
  /** Most transactions in one COMMIT. */
  maxBatch: number;
  /** A batch older than this commits as soon as the writer is free, even with others waiting. */
  maxBatchMs: number;
  /** Longest one transaction may hold the writer before it is rolled back alone. */
  maxHoldMs: number;
  /** How long to wait for SQLite's write lock held by another connection before SQLITE_BUSY. */
  busyTimeoutMs: number;
  /** With a WAL sync: commits between two checkpoints (see `checkpointIfDue`). */
  checkpointEvery: number;
}

export const GROUP_COMMIT_DEFAULTS: GroupCommitOptions = { maxBatch: 64, maxBatchMs: 10, maxHoldMs: 2_000, busyTimeoutMs: 5_000, checkpointEvery: 16 };

/** Makes everything the writer has committed so far durable (an fdatasync of the WAL file). */
export type WalSync = () => Promise<void>;

/** A file database's disk work, done off the event loop. */
export interface OffLoopDisk {
  sync: WalSync;
  /** Copies the WAL into the database file (sqlite-checkpointer.ts). */
  checkpoint(): Promise<void>;
}

interface Member {
  resolve(): void;
  reject(err: unknown): void;
}

interface Batch {
  members: Member[];
  openedAt: number;
}

/**
 * What Kysely sees as a connection, cheap; the real connections are shared. Leases are reused
 * (`GroupCommitDriver`): with a query log, Kysely wraps each connection object it has not seen
 * before in logging closures assigned onto it, a shape V8 keeps alive past its young
 * collections, so a new lease per query kept every request's transaction alive
 * (docs/benchmarks.md, "A closure that kept every request").
 */
class Lease implements DatabaseConnection {
  savepoint: string | undefined;
  aborted: Error | undefined;
  holdTimer: NodeJS.Timeout | undefined;

  constructor(private readonly committer: GroupCommitter) {}

  /** Whether it can serve another acquire: no transaction open, and then as new. */
  reset(): boolean {
    if (this.savepoint !== undefined) return false;
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.aborted = undefined;
    return true;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.committer.execute(this, query) as Promise<QueryResult<R>>;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const result = await this.executeQuery<R>(query);
    for (const row of result.rows) yield { rows: [row] };
  }
}

class StatementCache {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  constructor(
    readonly connection: SqliteDatabase.Database,
    private readonly capacity = 500,
  ) {}

  /**
   * Kysely's own driver prepares every statement anew (about 20 µs under load, an eighth of a
   * simple GET). better-sqlite3 runs statements synchronously, so one is never used twice at once.
   */
  prepare(source: string): SqliteDatabase.Statement {
    const statement = this.statements.get(source) ?? this.connection.prepare(source);
    setNewest(this.statements, source, statement, this.capacity);
    return statement;
  }
}

function run(statement: SqliteDatabase.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * The savepoint each member of a batch runs in. One member holds the writer at a time, so one
 * name serves all, and its three statements are prepared once (a fresh name per member made
 * SQLite compile them for every request).
 */
const MEMBER = 'tsaro_tx';

export class GroupCommitter {
  private readonly writer: StatementCache;
  private readonly reader: StatementCache | undefined;
  private holder: Lease | undefined;
  private readonly waiting: Array<() => void> = [];
  private batch: Batch | undefined;
  private commitScheduled = false;
  /** The sync in flight, if any: the next batch commits when it settles. */
  private syncing: Promise<void> | undefined;
  /** Set by a failed sync: no write is acknowledged after it. */
  private broken: Error | undefined;
  private readerPinned = false;
  /** A checkpoint runs: nobody takes the writer until it is done. */
  private checkpointing = false;
  private checkpointedAt = 0;
  /** The highest commit (by `stats.commits`) known to be on disk. */
  private durableCommits = 0;
  /** Reads on other connections waiting for a commit they may have seen to reach the disk. */
  private durableWaiters: Array<{ commit: number; resolve(): void; reject(err: unknown): void }> = [];
  /**
   * Commits made, transactions they carried, ms spent in COMMIT on the event loop and in the
   * WAL sync off it, for tests and the benchmark's notes.
   */
  readonly stats = { commits: 0, transactions: 0, commitMs: 0, commitMaxMs: 0, syncs: 0, syncMs: 0, syncMaxMs: 0, checkpoints: 0, checkpointMs: 0 };

  /**
   * `disk` absent: COMMIT itself must make the batch durable (`synchronous=FULL`), or there is
   * nothing to make durable (an in-memory database).
   */
  constructor(
    writer: SqliteDatabase.Database,
    reader: SqliteDatabase.Database | undefined,
    private readonly options: GroupCommitOptions,
    private readonly disk?: OffLoopDisk,
  ) {
    this.writer = new StatementCache(writer);
    this.reader = reader && new StatementCache(reader);
  }

  /**
   * A read on the query-only connection, outside any transaction, or undefined when the
   * statement writes or there is no such connection (an in-memory database): it then goes
   * through `execute` like any other.
   */
  readDirect(sql: string, parameters: readonly unknown[]): QueryResult<unknown> | undefined {
    if (!this.reader) return undefined;
    const statement = this.reader.prepare(sql);
    return statement.readonly ? run(statement, parameters) : undefined;
  }

  lease(): Lease {
    return new Lease(this);
  }

  /**
   * Commits made so far. A read on a connection of its own (a worker thread's) that ends now saw
   * at most this many: it may answer once `whenDurable` of it resolves, so it never shows a
   * commit whose sync has not returned (the reader's rule, above, for reads off this thread).
   */
  get committed(): number {
    return this.stats.commits;
  }

  /** Resolves once commit number `commit` is on disk; rejects if its sync failed. */
  whenDurable(commit: number): Promise<void> {
    if (commit <= this.durableCommits) return Promise.resolve();
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => this.durableWaiters.push({ commit, resolve, reject }));
  }

  private markDurable(commit: number): void {
    this.durableCommits = Math.max(this.durableCommits, commit);
    if (this.durableWaiters.length === 0) return;
    const still: typeof this.durableWaiters = [];
    for (const waiter of this.durableWaiters) {
      if (waiter.commit <= this.durableCommits) waiter.resolve();
      else still.push(waiter);
    }
    this.durableWaiters = still;
  }

  async execute(lease: Lease, query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (lease.aborted) throw lease.aborted;
    if (lease.savepoint) {
      if (this.holder !== lease) throw new Error('transaction no longer holds the writer');
      return this.onWriter(query);
    }
    if (this.reader) {
      const statement = this.reader.prepare(query.sql);
      if (statement.readonly) return run(statement, query.parameters);
    }
    await this.acquire(lease);
    let statement: SqliteDatabase.Statement;
    let result: QueryResult<unknown>;
    try {
      statement = this.writer.prepare(query.sql);
      if (!statement.readonly) await this.openBatch();
      result = this.onWriter(query);
    } catch (err) {
      this.release();
      throw err;
    }
    if (statement.readonly) {
      // A read on the in-memory database's only connection, between transactions.
      this.release();
      return result;
    }
    const durable = this.join();
    this.release();
    await durable;
    return result;
  }

  async begin(lease: Lease): Promise<void> {
    await this.acquire(lease);
    try {
      await this.openBatch();
      this.writer.prepare(`SAVEPOINT ${MEMBER}`).run();
      lease.savepoint = MEMBER;
    } catch (err) {
      this.release();
      throw err;
    }
    lease.holdTimer = setTimeout(() => this.abortHeld(lease), this.options.maxHoldMs);
    lease.holdTimer.unref();
  }

  async commit(lease: Lease): Promise<void> {
    if (lease.aborted) throw lease.aborted;
    const name = this.endHold(lease);
    try {
      this.writer.prepare(`RELEASE ${name}`).run();
    } catch (err) {
      this.checkBatchAlive(err);
      this.rollbackSavepoint(name);
      this.release();
      throw err;
    }
    this.stats.transactions++;
    const durable = this.join();
    this.release();
    await durable;
  }

  async rollback(lease: Lease): Promise<void> {
    if (lease.aborted) return; // already rolled back when it was aborted
    const name = this.endHold(lease);
    this.rollbackSavepoint(name);
    this.release();
  }

  /** Commits what is pending, waits for its sync and closes both connections. */
  async close(): Promise<void> {
    await this.settled();
    if (this.batch && !this.holder) this.commitBatch();
    await this.settled();
    this.reader?.connection.close();
    this.writer.connection.close();
  }

  private async settled(): Promise<void> {
    while (this.syncing) await this.syncing.catch(() => undefined);
  }

  private onWriter(query: CompiledQuery): QueryResult<unknown> {
    try {
      return run(this.writer.prepare(query.sql), query.parameters);
    } catch (err) {
      this.checkBatchAlive(err);
      throw err;
    }
  }

  private acquire(lease: Lease): Promise<void> {
    if (!this.holder && this.waiting.length === 0 && this.writerFree()) {
      this.holder = lease;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.holder = lease;
        resolve();
      });
    });
  }

  private release(): void {
    this.holder = undefined;
    const batch = this.batch;
    if (batch) {
      const full = batch.members.length >= this.options.maxBatch;
      const old = performance.now() - batch.openedAt >= this.options.maxBatchMs;
      if (full || old) this.commitBatch();
      else if (this.waiting.length === 0) this.scheduleCommit();
    }
    if (this.writerFree()) this.waiting.shift()?.();
  }

  /**
   * Whether a transaction may take the idle writer now: always between syncs; during a batch's WAL
   * sync too (the next batch fills while the disk works, and commits when the sync returns),
   * unless a checkpoint is due after it (the writer must then be idle when the sync returns) or
   * the next batch is full. Never during a checkpoint.
   */
  private writerFree(): boolean {
    if (!this.syncing) return true;
    if (this.checkpointing || this.checkpointDue()) return false;
    return !this.batch || this.batch.members.length < this.options.maxBatch;
  }

  private checkpointDue(): boolean {
    return this.checkpointAsked.length > 0 || this.stats.commits - this.checkpointedAt >= this.options.checkpointEvery;
  }

  /** Lets requests already read from their sockets join before the fsync; commits if nobody did. */
  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      if (this.batch && !this.holder) this.commitBatch();
    });
  }

  /**
   * Takes SQLite's write lock. The writer has no busy_timeout: while another connection (the
   * CLI, a second server on the file) holds the lock, this waits here, asynchronously, instead of
   * blocking the event loop in SQLite's busy handler - which would also keep this process from
   * committing a batch the other connection may be waiting for.
   */
  private async openBatch(): Promise<void> {
    if (this.broken) throw this.broken;
    if (this.batch && this.writer.connection.inTransaction) return;
    if (this.batch) this.failBatch(new Error('the database rolled back the batch'));
    const deadline = performance.now() + this.options.busyTimeoutMs;
    for (let waitMs = 1; ; waitMs = Math.min(waitMs * 2, 20)) {
      try {
        this.writer.connection.exec('BEGIN IMMEDIATE');
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
    this.batch = { members: [], openedAt: performance.now() };
  }

  private join(): Promise<void> {
    const batch = this.batch!;
    return new Promise((resolve, reject) => batch.members.push({ resolve, reject }));
  }

  private commitBatch(): void {
    // One sync in flight at a time: this batch stays open, and commits when that sync returns.
    if (this.syncing) return;
    if (this.broken) return this.failBatch(this.broken);
    const batch = this.batch!;
    this.batch = undefined;
    if (this.disk) this.pinReader();
    const started = performance.now();
    try {
      this.writer.connection.exec('COMMIT');
      const ms = performance.now() - started;
      this.stats.commitMs += ms;
      if (ms > this.stats.commitMaxMs) this.stats.commitMaxMs = ms;
    } catch (err) {
      if (this.writer.connection.inTransaction) this.writer.connection.exec('ROLLBACK');
      this.unpinReader();
      for (const member of batch.members) member.reject(err);
      return;
    }
    this.stats.commits++;
    const commit = this.stats.commits;
    if (!this.disk) {
      this.markDurable(commit);
      for (const member of batch.members) member.resolve();
      return;
    }
    const syncStarted = performance.now();
    const syncing = this.disk.sync().then(
      () => {
        const ms = performance.now() - syncStarted;
        this.stats.syncs++;
        this.stats.syncMs += ms;
        if (ms > this.stats.syncMaxMs) this.stats.syncMaxMs = ms;
        this.unpinReader();
        this.markDurable(commit);
        for (const member of batch.members) member.resolve();
      },
      (err: unknown) => {
        this.broken = new Error(`the database's write-ahead log could not be synced to disk; no write is accepted until the server restarts: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        this.unpinReader();
        for (const member of batch.members) member.reject(this.broken);
        for (const waiter of this.durableWaiters.splice(0)) waiter.reject(this.broken);
      },
    );
    this.syncing = syncing.finally(() => {
      this.syncing = undefined;
      if (this.batch) return this.afterSyncWithBatchOpen();
      const checkpoint = this.checkpointIfDue();
      if (!checkpoint) return void this.waiting.shift()?.();
      this.syncing = this.checkpointRun(checkpoint);
    });
  }

  /**
   * The batch that filled during the sync (its members have waited for it): it commits now,
   * unless its transaction is still running (its commit decides) or others wait for the writer
   * while the batch may still grow (they join first; the last one's release commits).
   */
  private afterSyncWithBatchOpen(): void {
    if (this.holder) return;
    const batch = this.batch!;
    const full = batch.members.length >= this.options.maxBatch;
    const old = performance.now() - batch.openedAt >= this.options.maxBatchMs;
    if (this.waiting.length && !full && !old) return void this.waiting.shift()!();
    this.commitBatch();
    // The next batch fills during this batch's sync.
    if (this.writerFree()) this.waiting.shift()?.();
  }

  /** Runs a checkpoint as the writer's next step: nobody takes the writer until it is done. */
  private checkpointRun(checkpoint: Promise<void>): Promise<void> {
    this.checkpointing = true;
    return checkpoint.finally(() => {
      this.checkpointing = false;
      this.syncing = undefined;
      this.waiting.shift()?.();
    });
  }

  /**
   * Every `checkpointEvery` commits, between two batches: copies the WAL into the database file
   * on the checkpointer's thread while the writer stays idle and the reader unpinned, so the copy
   * is whole and the next batch starts the WAL again from its beginning instead of growing it.
   * SQLite's own automatic checkpoint is off for the writer: run inside a COMMIT, it would meet
   * the pinned reader every time, never finish, and try again (with its two fsyncs, on the event
   * loop) at every COMMIT while the WAL grew. A checkpoint that fails loses nothing: the frames
   * stay in the WAL for the next one.
   */
  private checkpointIfDue(): Promise<void> | undefined {
    if (!this.disk || this.broken || this.batch || this.holder) return undefined;
    if (!this.checkpointDue()) return undefined;
    const asked = this.checkpointAsked.splice(0);
    if (asked.length) {
      return this.runCheckpoint().finally(() => {
        for (const done of asked) done();
      });
    }
    return this.runCheckpoint();
  }

  /** Callers of `checkpointSoon` waiting for the next checkpoint. */
  private readonly checkpointAsked: Array<() => void> = [];

  /**
   * A checkpoint at the writer's next idle moment, whatever the count since the last: the read
   * lane asks for one when the WAL has grown while its threads' snapshots kept the checkpoints
   * short (database.ts, `keepWalShort`). Resolves when it has run (or at once without a disk).
   */
  checkpointSoon(): Promise<void> {
    if (!this.disk || this.broken) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.checkpointAsked.push(resolve));
    if (!this.syncing && !this.batch && !this.holder) {
      // Idle: run it now, as the end of a sync would, so the next write waits for it as it would then.
      this.syncing = this.checkpointRun(this.checkpointIfDue()!);
    }
    return done;
  }

  private runCheckpoint(): Promise<void> {
    this.checkpointedAt = this.stats.commits;
    const started = performance.now();
    return this.disk!.checkpoint().then(
      () => {
        this.stats.checkpoints++;
        this.stats.checkpointMs += performance.now() - started;
      },
      () => undefined,
    );
  }

  /**
   * Holds the reader at the last durable state while a committed batch is being synced: a read
   * transaction's snapshot starts at its first read, before the COMMIT.
   */
  private pinReader(): void {
    if (!this.reader || this.readerPinned) return;
    this.reader.connection.exec('BEGIN');
    this.reader.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
    this.readerPinned = true;
  }

  private unpinReader(): void {
    if (!this.readerPinned) return;
    this.readerPinned = false;
    this.reader!.connection.exec('COMMIT');
  }

  /** SQLite rolled the whole transaction back (disk full, I/O error): every member fails. */
  private checkBatchAlive(err: unknown): void {
    if (this.batch && !this.writer.connection.inTransaction) this.failBatch(err);
  }

  private failBatch(err: unknown): void {
    const batch = this.batch!;
    this.batch = undefined;
    if (this.writer.connection.inTransaction) this.writer.connection.exec('ROLLBACK');
    for (const member of batch.members) member.reject(err);
    const holder = this.holder;
    if (holder?.savepoint) {
      clearTimeout(holder.holdTimer);
      holder.savepoint = undefined;
      holder.aborted = err instanceof Error ? err : new Error(String(err));
    }
  }

  private endHold(lease: Lease): string {
    const name = lease.savepoint;
    if (!name || this.holder !== lease) throw new Error('no transaction open on this connection');
    clearTimeout(lease.holdTimer);
    lease.savepoint = undefined;
    return name;
  }

  private rollbackSavepoint(name: string): void {
    if (!this.writer.connection.inTransaction) return;
    this.writer.prepare(`ROLLBACK TO ${name}`).run();
    this.writer.prepare(`RELEASE ${name}`).run();
  }

  private abortHeld(lease: Lease): void {
    if (this.holder !== lease || !lease.savepoint) return;
    const name = this.endHold(lease);
    lease.aborted = new Error(`transaction held the database writer over ${this.options.maxHoldMs} ms and was rolled back`);
    this.rollbackSavepoint(name);
    this.release();
  }
}

/** More leases than this idle at once (a burst's) are left to the garbage collector. */
const MAX_IDLE_LEASES = 256;

class GroupCommitDriver implements Driver {
  constructor(private readonly committer: GroupCommitter) {}
  async init(): Promise<void> {}
  /** Released leases, reused. */
  private readonly idle: Lease[] = [];

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.idle.pop() ?? this.committer.lease();
  }
  beginTransaction(connection: DatabaseConnection): Promise<void> {
    return this.committer.begin(connection as Lease);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.committer.commit(connection as Lease);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.committer.rollback(connection as Lease);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // A transaction Kysely gave up on without commit or rollback must not keep the writer.
    if (lease.savepoint) await this.committer.rollback(lease);
    if (lease.reset() && this.idle.length < MAX_IDLE_LEASES) this.idle.push(lease);
  }
  async destroy(): Promise<void> {
    await this.committer.close();
  }
}

/**
 * SQLite runs DDL in transactions, but Kysely's adapter says it does not, so its migrator would
 * leave a migration half-applied on failure. Declaring it lets each migration run and record
 * itself in one transaction, as on PostgreSQL.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(private readonly committer: GroupCommitter) {
    super({ database: {} as SqliteDatabase.Database });
  }
  override createDriver(): Driver {
    return new GroupCommitDriver(this.committer);
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
