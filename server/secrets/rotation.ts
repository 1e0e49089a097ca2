import type { Db, Executor } from '../db/schema.ts';
import type { SecretBox } from './secret-box.ts';
import { anySealed, countStale, replaceSealed, SEALED_COLUMNS, staleRows, type SealedColumn, type SealedRow } from './store.ts';

/** Rows re-sealed per transaction: small enough that a rotation never holds writers up for long. */
export const ROTATION_BATCH = 200;

function reseal(db: Executor, target: SealedColumn, row: SealedRow, box: SecretBox): Promise<boolean> {
  return replaceSealed(db, target, row, box.seal(box.open(row[target.column]!)));
}

export interface RotationReport {
  key_id: string;
  resealed: number;
  /** Values still sealed with another key (written meanwhile by a host that holds only the old key). */
  remaining: number;
}

/**
 * Re-seals every value not sealed with the box's current key, a batch per transaction, so hosts
 * keep reading and writing throughout (they hold both keys). Stopped midway, it is run again:
 * what is done stays done.
 */
export async function rotateSealedValues(db: Db, box: SecretBox, onBatch?: (resealed: number) => void): Promise<RotationReport> {
  let resealed = 0;
  for (const target of SEALED_COLUMNS) {
    for (;;) {
      const rows = await staleRows(db, target, box.keyId, ROTATION_BATCH);
      if (rows.length === 0) break;
      const done = await db.transaction().execute(async (trx) => {
        let n = 0;
        for (const row of rows) if (await reseal(trx, target, row, box)) n++;
        return n;
      });
      resealed += done;
      onBatch?.(resealed);
    }
  }
  return { key_id: box.keyId, resealed, remaining: await countStale(db, box.keyId) };
}

/** Re-seals everything in the caller's transaction (the one-host upgrade at start). */
export async function resealAll(trx: Executor, box: SecretBox): Promise<number> {
  let resealed = 0;
  for (const target of SEALED_COLUMNS) {
    for (const row of await staleRows(trx, target, box.keyId, Number.MAX_SAFE_INTEGER)) if (await reseal(trx, target, row, box)) resealed++;
  }
  return resealed;
}

/**
 * One sealed value of each column, opened: a host whose keys do not open what the database
 * holds (a lost key file, a mistyped SECRETS_KEY) must not start and fail every webhook and pass.
 */
export async function checkKeysOpen(db: Executor, box: SecretBox): Promise<void> {
  for (const target of SEALED_COLUMNS) {
    const value = await anySealed(db, target);
    if (value !== undefined) box.open(value);
  }
}
