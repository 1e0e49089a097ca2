import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/schema.ts';

/**
 * Every column that holds a value sealed with the sealing key, and the columns that find its
 * row. A new sealed column is added here, and rotation, the key check at start and the upgrade
 * from a database-kept key cover it with no second place to edit. These columns belong to other
 * features' tables; this store touches nothing else of them.
 */
export const SEALED_COLUMNS = [
  { table: 'webhook_endpoints', key: ['endpoint_id'], column: 'secret' },
  { table: 'webhook_endpoints', key: ['endpoint_id'], column: 'previous_secret' },
  { table: 'pass_keys', key: ['kid'], column: 'private_key' },
  { table: 'kiosk_authorities', key: ['kid'], column: 'private_key' },
  { table: 'people', key: ['person_id'], column: 'totp_secret' },
  { table: 'people', key: ['person_id'], column: 'totp_pending_secret' },
  { table: 'staff', key: ['staff_id'], column: 'totp_secret' },
  { table: 'staff', key: ['staff_id'], column: 'totp_pending_secret' },
  // A visitor's pass link while its text waits for the gateway (server/messages/secret-links.ts); null once sent.
  { table: 'text_messages', key: ['message_id'], column: 'link_sealed' },
  // The token a text's delivery report must carry (server/messages/service.ts): reports come for days after sending.
  { table: 'text_messages', key: ['message_id'], column: 'dlr_token_sealed' },
  // Answers that carry a secret are sealed for their maker instead (server/idempotency/claims.ts) and are not the sealing key's.
  { table: 'idempotency_requests', key: ['organization_id', 'environment', 'idempotency_key'], column: 'response_body' },
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];
export type SealedRow = Record<string, string>;

/** `column` holds a value sealed with another key than `keyId` (or with none named, v1). */
function staleUnder(column: string, keyId: string): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return sql<boolean>`(substr(${ref}, 1, 3) = 'v1.' or (substr(${ref}, 1, 3) = 'v2.' and substr(${ref}, 1, 12) <> ${`v2.${keyId}.`}))`;
}

/** Rows whose value in `target` was sealed with another key than `keyId`. */
export async function staleRows(db: Executor, target: SealedColumn, keyId: string, limit: number): Promise<SealedRow[]> {
  const columns = sql.join([...target.key, target.column].map((c) => sql.ref(c)));
  const { rows } = await sql<SealedRow>`select ${columns} from ${sql.table(target.table)} where ${staleUnder(target.column, keyId)} limit ${limit}`.execute(db);
  return rows;
}

/** Replaces a row's sealed value if it still holds what was read (a concurrent write wins). */
export async function replaceSealed(db: Executor, target: SealedColumn, row: SealedRow, value: string): Promise<boolean> {
  const where = sql.join(
    [...target.key, target.column].map((c) => sql`${sql.ref(c)} = ${row[c]}`),
    sql` and `,
  );
  const result = await sql`update ${sql.table(target.table)} set ${sql.ref(target.column)} = ${value} where ${where}`.execute(db);
  return Number(result.numAffectedRows ?? 0n) === 1;
}

export async function countStale(db: Executor, keyId: string): Promise<number> {
  let total = 0;
  for (const target of SEALED_COLUMNS) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(target.table)} where ${staleUnder(target.column, keyId)}`.execute(db);
    total += Number(rows[0]?.n ?? 0);
  }
  return total;
}

/** One sealed value of `target`, if it holds any. */
export async function anySealed(db: Executor, target: SealedColumn): Promise<string | undefined> {
  const ref = sql.ref(target.column);
  const { rows } = await sql<SealedRow>`select ${ref} from ${sql.table(target.table)} where substr(${ref}, 1, 3) in ('v1.', 'v2.') limit 1`.execute(db);
  return rows[0]?.[target.column];
}

/** The row in which versions before the sealing key left the database kept it. */
const LEGACY_KEY_NAME = 'webhook-secrets';

export async function findLegacyKey(db: Executor): Promise<Buffer | undefined> {
  const row = await db.selectFrom('server_keys').select('value').where('name', '=', LEGACY_KEY_NAME).executeTakeFirst();
  return row ? Buffer.from(row.value, 'base64') : undefined;
}

export async function eraseLegacyKey(db: Executor): Promise<void> {
  await db.deleteFrom('server_keys').where('name', '=', LEGACY_KEY_NAME).execute();
}
