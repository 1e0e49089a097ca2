import type { Transaction } from 'kysely';
import { isConnectionLost } from './errors.ts';
import { isPostgres, type Database, type Executor } from './schema.ts';

/** At most this many members share one transaction. */
const MAX_MEMBERS = 32;

export interface TransactionGroup<M, R> {
  /**
   * The members' work in one transaction, one result per member in their order. It should write
   * all the members in one statement (as `insertIncidentOpenings` does, incidents/store.ts), so
   * the lot is one flight to PostgreSQL with the BEGIN, and make the rest of each member's writes deferred
   * (server/db/deferred-write.ts), to ride with the COMMIT. Throwing (or any statement failing)
   * ends the shared transaction with nothing written.
   */
  together(trx: Transaction<Database>, members: readonly M[]): Promise<R[]>;
  /** One member's work in a transaction of its own: a group of one, and every member of a group that failed. */
  alone(db: Executor, member: M): Promise<R>;
}

/**
 * Transactions that concurrent requests share on PostgreSQL: PostgreSQL's group commit, as
 * server/db/sqlite-group-commit.ts is SQLite's.
 *
 * Why: on PostgreSQL a write's cost on these machines is its flights, not its SQL. Each is a
 * socket write that wakes a database backend (about 90 µs of the server's CPU on loopback:
 * docs/benchmarks.md), and a transaction takes at least two (its statements, then its COMMIT).
 * Fifty SOSs arriving together need two flights and one commit between them, not a hundred
 * flights and fifty commits.
 *
 * - Every member that joins while the event loop handles one round of input (one poll of the
 *   sockets) is run with the others when that round ends (`setImmediate`); a round with one
 *   member runs it `alone`, as before.
 * - No member is answered before the shared COMMIT has returned: each is as durable as alone.
 * - A shared transaction that fails before its COMMIT was sent (a member's statement refused, a
 *   conflict, a lost connection under its first flight) wrote nothing: every member is run again
 *   `alone`, so one member's failure is its own and the others succeed as they would have.
 * - A connection lost under the COMMIT leaves its outcome unknown: running the members again
 *   could write them twice, so each fails with that error, as a lone transaction would (the
 *   client retries with its Idempotency-Key).
 * - Outside PostgreSQL, and inside a transaction already open (an Idempotency-Key's), a member
 *   runs `alone` at once.
 */
export function transactionGroup<M, R>(group: TransactionGroup<M, R>): (db: Executor, member: M) => Promise<R> {
  const waiting = new WeakMap<Executor, Array<Waiting<M, R>>>();

  const runGroup = (db: Executor, members: Array<Waiting<M, R>>) => runTogether(db, group, members, 'at once');

  return (db, member) => {
    if (db.isTransaction || !isPostgres(db)) return group.alone(db, member);
    return new Promise<R>((resolve, reject) => {
      let members = waiting.get(db);
      if (!members) {
        members = [];
        waiting.set(db, members);
        setImmediate(() => {
          const all = waiting.get(db)!;
          waiting.delete(db);
          for (let i = 0; i < all.length; i += MAX_MEMBERS) void runGroup(db, all.slice(i, i + MAX_MEMBERS));
        });
      }
      members.push({ member, resolve, reject });
    });
  };
}

export interface Waiting<M, R> {
  member: M;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * The one rule for members that share a transaction (here and server/db/serial-batches.ts): one
 * member runs `alone`; several run `together` in one transaction and are answered once its COMMIT
 * returned. If it fails before the COMMIT was sent, nothing was written and each member runs again
 * `alone` (`'at once'`, or `'in turn'` where members of a key must not overlap), so one member's
 * failure is its own; a connection lost under the COMMIT leaves the outcome unknown, and each
 * member fails with that error rather than be written twice.
 */
export async function runTogether<M, R>(
  db: Executor,
  work: Pick<TransactionGroup<M, R>, 'together' | 'alone'>,
  members: ReadonlyArray<Waiting<M, R>>,
  fallback: 'at once' | 'in turn',
): Promise<void> {
  if (members.length === 1) {
    const [only] = members;
    return work.alone(db, only!.member).then(only!.resolve, only!.reject);
  }
  let workDone = false;
  try {
    const results = await db.transaction().execute(async (trx) => {
      const answers = await work.together(
        trx,
        members.map((m) => m.member),
      );
      workDone = true;
      return answers;
    });
    members.forEach((m, i) => m.resolve(results[i]!));
  } catch (err) {
    if (workDone && isConnectionLost(err)) {
      for (const m of members) m.reject(err);
      return;
    }
    if (fallback === 'at once') await Promise.all(members.map((m) => work.alone(db, m.member).then(m.resolve, m.reject)));
    else for (const m of members) await work.alone(db, m.member).then(m.resolve, m.reject);
  }
}
