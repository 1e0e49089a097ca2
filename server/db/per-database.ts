import type { Executor } from './schema.ts';

/**
 * State this process keeps per database, made on first use: `perDatabase(() => new Map())`
 * answers a function from a `db` or any of its transactions (a Kysely instance and its
 * transactions share one adapter object) to that database's own value. Keyed weakly, so a
 * closed database's state goes with it; two databases in one process (tests, several hosts'
 * apps) never share it.
 */
export function perDatabase<T>(make: () => T): (db: Executor) => T {
  const values = new WeakMap<object, T>();
  return (db) => {
    const adapter = db.getExecutor().adapter;
    let value = values.get(adapter);
    if (value === undefined) values.set(adapter, (value = make()));
    return value;
  };
}
