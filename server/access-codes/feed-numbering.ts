import type { Executor, Tenant } from '../db/schema.ts';
import { numberCodeChanges } from './store.ts';

/**
 * How a change to an existing code gets its number in the kiosks' feed (`GET
 * /access-codes/changes`, read by cursor).
 *
 * Numbers must become visible in the order they are handed out: a kiosk that has read number
 * 12 never asks for 11 again, so a change numbered 11 that commits after 12 was read would be
 * missed, and a revoked pass would keep opening the gate offline. So the tenant's counter row,
 * once a number is taken from it, stays locked until the transaction commits.
 *
 * That lock is taken LAST: a validation consumes its use (locking the code's row), writes the
 * check-in and the events, and only then numbers the code, so the tenant's validations,
 * revocations and expiries run side by side and wait for each other only for that one statement
 * and the COMMIT (they used to queue behind the counter from their first statement). Taking
 * it last is also what keeps them from deadlocking: a transaction holding the counter waits for
 * nothing after it, so nobody can hold a lock it wants. Creating a code is the exception: it
 * takes the counter first (`nextChangeSeq`) and then only writes new rows, so it waits for no
 * one either.
 *
 * A kiosk batch changes several codes in one transaction. If it numbered each as it went, it
 * would hold the counter while it went on to lock its next code, which a single validation
 * might hold while waiting for the counter. So a batch collects its codes and numbers them all
 * at its end (`numberedAtEnd`); the caller makes a tenant's batches wait for each other, since
 * two batches locking the same rows in different orders would deadlock.
 */
export interface FeedNumbering {
  /** Gives the code a new change number in `trx`, now or at the end of the batch. */
  numberChange(trx: Executor, tenant: Tenant, codeId: string): Promise<void>;
}

/** One code changed by one transaction: numbered at once, as that transaction's last statement. */
export const numberAtOnce: FeedNumbering = {
  numberChange: (trx, tenant, codeId) => numberCodeChanges(trx, tenant, [codeId]),
};

/** The numbering of one operation of a batch: its codes count once `keep()` says its savepoint was released. */
export interface BatchOperationNumbering {
  numbering: FeedNumbering;
  keep(): void;
}

/**
 * Runs `work` (several code changes in the transaction `trx`, as a kiosk batch). Each operation
 * takes its own numbering from `operation()` and keeps it only if its savepoint was released:
 * a code whose change was rolled back is not locked by the batch any more, and numbering it at
 * the end would make the batch, holding the counter, wait for a code another transaction may
 * hold while waiting for the counter. Then every kept code is numbered, in one statement.
 */
export async function numberedAtEnd<T>(
  trx: Executor,
  tenant: Tenant,
  work: (operation: () => BatchOperationNumbering) => Promise<T>,
): Promise<T> {
  const kept = new Set<string>();
  const result = await work(() => {
    const changed: string[] = [];
    return {
      numbering: {
        numberChange: async (_trx, changedTenant, codeId) => {
          if (changedTenant.organizationId !== tenant.organizationId || changedTenant.environment !== tenant.environment) {
            throw new Error('numberedAtEnd: a code of another tenant');
          }
          changed.push(codeId);
        },
      },
      keep: () => changed.forEach((codeId) => kept.add(codeId)),
    };
  });
  await numberCodeChanges(trx, tenant, [...kept]);
  return result;
}
