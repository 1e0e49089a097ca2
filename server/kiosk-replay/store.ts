import { sql } from 'kysely';
import { isPostgres, type Executor, type Tenant } from '../db/schema.ts';

/**
 * On PostgreSQL, makes the transaction wait until no other kiosk batch of the tenant is running
 * (an advisory lock, held to the end of the transaction). A batch locks codes and visits in the
 * order its operations name them; two batches doing that at once could each hold a row the
 * other waits for. SQLite runs one writing transaction at a time already.
 */
export async function waitForOtherBatches(trx: Executor, tenant: Tenant): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`kiosk-batch:${tenant.organizationId}:${tenant.environment}`}, 0))`.execute(trx);
}
