import { sql, type Transaction } from 'kysely';
import { runTogether, type Waiting } from './transaction-group.ts';
import { isPostgres, type Database, type Executor, type Tenant } from './schema.ts';

/** At most this many members share one transaction. */
const MAX_MEMBERS = 32;

export interface SerialBatch<M, R> {
  /** The key whose transactions must follow each other (a tenant: its feed counter). */
  key(member: M): string;
  /** The members' work in one transaction, one result per member in their order. Throwing ends it with nothing written. */
  together(trx: Transaction<Database>, members: readonly M[]): Promise<R[]>;
  /** One member's work in a transaction of its own: a batch of one, and every member of a batch that failed. */
  alone(db: Executor, member: M): Promise<R>;
}

interface KeyState<M, R> {
  running: boolean;
  waiting: Array<Waiting<M, R>>;
}

/**
 * Transactions of one key that run one at a time on this host, each carrying everything of that
 * key that arrived while the one before ran (PostgreSQL only; issue #45).
 *
 * Why: a code validation numbers its change on the tenant's feed counter and holds that row
 * locked until its COMMIT is on disk (access-codes/feed-numbering.ts), so a tenant's validations
 * commit one after another, each behind the one before's WAL flush. Beside heavy reads a flush
 * or a backend's turn on a busy core takes longer, the validations queue on the counter inside
 * PostgreSQL, and each waiting one holds a connection of the main pool, the SOS's (measured: nine
 * validations waiting on the counter behind one COMMIT in its 555 ms WAL sync). Here they wait in
 * memory instead, holding nothing, and the next transaction takes them all: one counter lock and
 * one flush for the lot, so throughput grows with the wait rather than collapsing.
 *
 * - A batch of one runs `alone`, as before.
 * - No member is answered before the shared COMMIT has returned.
 * - A batch that fails before its COMMIT was sent wrote nothing: each member runs again `alone`,
 *   so one member's failure is its own (transaction-group.ts does the same). A connection lost
 *   under the COMMIT leaves the outcome unknown: each member fails with that error.
 * - Outside PostgreSQL (SQLite's group committer batches already) and inside a transaction
 *   already open (an Idempotency-Key's), a member runs `alone` at once.
 */
export function serialBatches<M, R>(batch: SerialBatch<M, R>): (db: Executor, member: M) => Promise<R> {
  const byDb = new WeakMap<Executor, Map<string, KeyState<M, R>>>();

  // Members of one key never overlap: a failed batch's members run again one after another.
  const runBatch = (db: Executor, members: Array<Waiting<M, R>>) => runTogether(db, batch, members, 'in turn');

  const drain = async (db: Executor, states: Map<string, KeyState<M, R>>, key: string, state: KeyState<M, R>) => {
    try {
      while (state.waiting.length) await runBatch(db, state.waiting.splice(0, MAX_MEMBERS));
    } finally {
      state.running = false;
      if (state.waiting.length === 0) states.delete(key);
      else void start(db, states, key, state);
    }
  };

  const start = (db: Executor, states: Map<string, KeyState<M, R>>, key: string, state: KeyState<M, R>) => {
    state.running = true;
    // The members that arrive in this round of the event loop start together.
    setImmediate(() => void drain(db, states, key, state));
  };

  return (db, member) => {
    if (db.isTransaction || !isPostgres(db)) return batch.alone(db, member);
    return new Promise<R>((resolve, reject) => {
      let states = byDb.get(db);
      if (!states) byDb.set(db, (states = new Map()));
      const key = batch.key(member);
      let state = states.get(key);
      if (!state) states.set(key, (state = { running: false, waiting: [] }));
      state.waiting.push({ member, resolve, reject });
      if (!state.running) start(db, states, key, state);
    });
  };
}

/**
 * On PostgreSQL, makes the transaction wait until no other batch of the tenant's code changes is
 * running (an advisory lock, held to the end of the transaction): a kiosk's replayed batch, or
 * validations taken together (access-codes/service.ts). A batch locks codes and visits in the
 * order its operations name them; two batches doing that at once could each hold a row the
 * other waits for. SQLite runs one writing transaction at a time already.
 */
export async function waitForOtherBatches(trx: Executor, tenant: Tenant): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`kiosk-batch:${tenant.organizationId}:${tenant.environment}`}, 0))`.execute(trx);
}
