import { sql } from 'kysely';
import type { Executor } from './schema.ts';

const NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Runs `work` in a savepoint of the transaction `trx`: when it throws, what it did is rolled
 * back (the transaction's earlier work stays) and the error goes on to the caller. Savepoints
 * nest on both engines; `name` must be an SQL identifier unique among those open.
 */
export async function inSavepoint<T>(trx: Executor, name: string, work: () => Promise<T>): Promise<T> {
  if (!NAME.test(name)) throw new Error(`savepoint name ${JSON.stringify(name)} is not an identifier`);
  await sql`savepoint ${sql.raw(name)}`.execute(trx);
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await sql`rollback to savepoint ${sql.raw(name)}`.execute(trx);
    await sql`release savepoint ${sql.raw(name)}`.execute(trx);
    throw err;
  }
  await sql`release savepoint ${sql.raw(name)}`.execute(trx);
  return result;
}
