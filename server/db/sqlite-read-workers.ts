import { Worker } from 'node:worker_threads';
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { currentReadParty, FairQueue } from './fair-queue.ts';
import { ReadLaneBusy, ReadTooBroad, type ReadLaneCounts, type ReadLaneSettings } from './read-lane.ts';

/** What a worker's read waits on before it is answered: the group committer's commits and syncs. */
export interface Durability {
  /** Commits made so far. */
  readonly committed: number;
  /** Resolves once commit `commit` is on disk. */
  whenDurable(commit: number): Promise<void>;
}

interface Job {
  sql: string;
  parameters: readonly unknown[];
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
  /** While queued: the wait for a free thread. */
  waitTimer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  /** Its connection is open: a read's time limit runs from then. */
  ready: boolean;
  job?: { id: number; job: Job; timer?: NodeJS.Timeout };
  /** Ended for overrunning: it still holds its place until its statement returns and the thread exits. */
  ending: boolean;
}

/** How far below the event loop a read thread's CPU priority sits (Linux nice), unless the settings say (DATABASE_READ_NICE). */
export const READ_THREAD_NICE = 10;

/**
 * Broad reads on SQLite, off the event loop (issue #45): a few worker threads, each with its own
 * query-only connection to the file (WAL lets readers run beside the writer), one statement at a
 * time each, at a lower CPU priority than the event loop. A read that arrives while every thread
 * is busy waits its turn, at most `queueMs` (then ReadLaneBusy); a statement running longer than
 * `timeoutMs` fails with ReadTooBroad. Waiting reads take turns between organizations (a FairQueue):
 * one organization's queued reports do not hold another's first page behind them. better-sqlite3 cannot interrupt a statement, so its thread
 * is ended: it stops at the statement's end, and keeps its place until then, so the cap holds
 * even while an overrunning statement finishes.
 *
 * Durability: a worker's connection sees every commit the writer has made, including a batch
 * whose WAL sync has not returned. Its answer is held until the commits made before it arrived
 * are durable, so no read answers with a change that a power cut could still take back (the
 * rule the query-only connection on the event loop keeps by pinning, sqlite-group-commit.ts).
 */
export class SqliteReadWorkers {
  private readonly slots: Slot[] = [];
  /** Reads waiting for a thread, taking turns between organizations (fair-queue.ts). */
  private readonly queue = new FairQueue<Job>();
  private nextId = 0;
  private closed = false;
  /** Held by `quiesce`: new reads wait in the queue. */
  private held = false;
  private quietWaiters: Array<() => void> = [];

  constructor(
    private readonly path: string,
    private readonly settings: ReadLaneSettings,
    private readonly durability: Durability,
  ) {}

  /** Reads running and waiting for a thread, now (metrics, tests). */
  counts(): ReadLaneCounts {
    return { running: this.slots.filter((slot) => slot.job).length, waiting: this.queue.length };
  }

  /** Threads running (or ending); for tests and metrics. */
  get threads(): number {
    return this.slots.length;
  }

  /**
   * Stops starting reads and resolves once no thread holds a snapshot (every read running has
   * answered, every ended thread has exited), with the function that lets them start again.
   * Reads asked meanwhile wait in the queue (their wait counts against its limit as ever).
   */
  async quiesce(): Promise<() => void> {
    this.held = true;
    if (this.slots.some((slot) => slot.job || slot.ending)) await new Promise<void>((resolve) => this.quietWaiters.push(resolve));
    return () => {
      this.held = false;
      for (const slot of this.slots) if (!slot.job && !slot.ending) this.next(slot);
      while (this.queue.length && this.slots.length < this.settings.concurrency) this.next(this.spawn());
    };
  }

  private checkQuiet(): void {
    if (!this.held || this.slots.some((slot) => slot.job || slot.ending)) return;
    for (const resolve of this.quietWaiters.splice(0)) resolve();
  }

  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the read workers are closed'));
    return new Promise((resolve, reject) => {
      const job: Job = { sql, parameters, resolve, reject };
      const slot = this.held ? undefined : this.freeSlot();
      if (slot) return this.start(slot, job);
      job.waitTimer = setTimeout(() => {
        this.queue.remove(job);
        reject(new ReadLaneBusy(this.settings.queueMs));
      }, this.settings.queueMs);
      job.waitTimer.unref();
      this.queue.push(currentReadParty(), job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) {
      clearTimeout(job.waitTimer);
      job.reject(new Error('the server is stopping'));
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.job) {
          clearTimeout(slot.job.timer);
          slot.job.job.reject(new Error('the server is stopping'));
          slot.job = undefined;
        }
        await slot.worker.terminate();
      }),
    );
    this.slots.length = 0;
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => !slot.job && !slot.ending);
    if (idle) return idle;
    if (this.slots.length >= this.settings.concurrency) return undefined;
    return this.spawn();
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./sqlite-read-worker.ts', import.meta.url), { workerData: { path: this.path, nice: this.settings.nice ?? READ_THREAD_NICE } });
    worker.unref();
    const slot: Slot = { worker, ready: false, ending: false };
    worker.on('message', (message: { id: number; rows?: unknown[]; error?: { message: string; code?: string }; ready?: true }) => {
      if (message.ready) {
        slot.ready = true;
        if (slot.job && !slot.job.timer) slot.job.timer = this.limit(slot);
        return;
      }
      this.answered(slot, message);
    });
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', () => this.lost(slot, new Error('a read thread exited')));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    const id = ++this.nextId;
    slot.job = { id, job };
    if (slot.ready) slot.job.timer = this.limit(slot);
    slot.worker.postMessage({ id, sql: job.sql, parameters: job.parameters });
  }

  /** The running read's time limit. */
  private limit(slot: Slot): NodeJS.Timeout {
    const timer = setTimeout(() => this.overran(slot), this.settings.timeoutMs);
    timer.unref();
    return timer;
  }

  private answered(slot: Slot, message: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }): void {
    const running = slot.job;
    if (!running || running.id !== message.id) return;
    clearTimeout(running.timer);
    slot.job = undefined;
    const { job } = running;
    if (message.error) {
      job.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
    } else {
      // Whatever this read saw was committed by now; answer once it is on disk.
      this.durability.whenDurable(this.durability.committed).then(() => job.resolve(message.rows!), job.reject);
    }
    this.next(slot);
  }

  private overran(slot: Slot): void {
    const running = slot.job;
    if (!running) return;
    slot.job = undefined;
    slot.ending = true;
    running.job.reject(new ReadTooBroad(this.settings.timeoutMs));
    void slot.worker.terminate();
  }

  private lost(slot: Slot, err: unknown): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    if (slot.job) {
      clearTimeout(slot.job.timer);
      slot.job.job.reject(err);
      slot.job = undefined;
    }
    // Its place is free again: a queued read may start on a new thread.
    const waiting = !this.closed && !this.held && this.queue.length > 0 ? this.freeSlot() : undefined;
    if (waiting) this.next(waiting);
    this.checkQuiet();
  }

  private next(slot: Slot): void {
    if (this.held) return this.checkQuiet();
    const job = this.queue.shift();
    if (!job) return;
    clearTimeout(job.waitTimer);
    this.start(slot, job);
  }
}

/** Kysely over the read threads: statements only, no transactions (a broad read is one or a few reads). */
class ReadWorkersConnection implements DatabaseConnection {
  constructor(private readonly workers: SqliteReadWorkers) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.workers.run(query.sql, query.parameters)) as R[] };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('a broad read does not stream');
  }
}

class ReadWorkersDriver implements Driver {
  private readonly connection: ReadWorkersConnection;
  constructor(private readonly workers: SqliteReadWorkers) {
    this.connection = new ReadWorkersConnection(workers);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('a broad read runs no transaction');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.workers.close();
  }
}

/** The dialect of the read lane on SQLite: SQLite's SQL, run on the read threads. */
export class ReadWorkersDialect implements Dialect {
  constructor(private readonly workers: SqliteReadWorkers) {}
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new ReadWorkersDriver(this.workers);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
