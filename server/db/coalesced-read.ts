import DataLoader from 'dataloader';
import { isPostgres, type Executor } from './schema.ts';

/** At most this many keys in one coalesced query. */
const MAX_BATCH = 64;

/**
 * A hot read that concurrent requests share on PostgreSQL: every request that asks for it while
 * the event loop handles one round of input (one poll of the sockets) is answered by a single
 * query for all their keys, sent when that round ends (`setImmediate`).
 *
 * Why: on PostgreSQL a request's cost is its round trips, not its SQL. Every statement is a
 * socket write that wakes a database backend, and on these machines that write was half the
 * server's busy time under load (docs/benchmarks.md). Fifty clients reading incidents at once
 * need one query per round of input, not fifty.
 *
 * - `many` must answer one value (or undefined) per key, in the keys' order, and must apply the
 *   same filters as `one` (the tenant in particular): a key another organization asked for can
 *   never answer with this organization's row, because the filter is in each key.
 * - Nothing is cached: each query is sent after the requests that share it arrived, so it sees
 *   everything committed before any of them was received (a client that was told "created"
 *   reads what it created).
 * - Inside a transaction, and on SQLite (a read there is a call into the process, with no
 *   round trip to save), `one` runs as it always did.
 * - A failed query fails every request that shared it, as the query would have failed each of
 *   them alone (a lost connection is retried first: server/db/postgres-pool.ts).
 *
 * Built on DataLoader (graphql/dataloader): its batching and per-key answers, with the
 * schedule moved from the end of the current job to the end of the event loop's round, so
 * requests that arrived on different sockets share a query.
 */
export function coalescedRead<K, V>(read: {
  one: (db: Executor, key: K) => Promise<V | undefined>;
  many: (db: Executor, keys: readonly K[]) => Promise<ReadonlyArray<V | undefined>>;
}): (db: Executor, key: K) => Promise<V | undefined> {
  const loaders = new WeakMap<Executor, DataLoader<K, V | undefined>>();
  const loaderFor = (db: Executor) => {
    let loader = loaders.get(db);
    if (!loader) {
      loader = new DataLoader<K, V | undefined>(async (keys) => read.many(db, keys) as Promise<Array<V | undefined>>, {
        cache: false,
        maxBatchSize: MAX_BATCH,
        batchScheduleFn: (run) => setImmediate(run),
      });
      loaders.set(db, loader);
    }
    return loader;
  };
  return (db, key) => {
    if (db.isTransaction || !isPostgres(db)) return read.one(db, key);
    return loaderFor(db).load(key);
  };
}
