import { sql } from 'kysely';
import type { Db, Executor, ThreatEventRow } from '../db/schema.ts';

export type NewThreatEvent = Omit<ThreatEventRow, 'revision'>;

/** The columns the in-memory index keeps (description and dataset stay in the database). */
export type IndexedEventRow = Pick<
  ThreatEventRow,
  'event_id' | 'source' | 'occurred_on' | 'latitude' | 'longitude' | 'precision' | 'type' | 'severity' | 'fatalities' | 'weight' | 'admin1' | 'admin2' | 'place' | 'country'
>;

/**
 * Takes the next revision: the counter row stays locked until the caller's transaction ends,
 * so revisions are handed out in commit order (migration 0008).
 */
export async function nextThreatRevision(trx: Executor): Promise<number> {
  const row = await trx
    .updateTable('threat_revision')
    .set({ revision: sql<number>`revision + 1` })
    .where('id', '=', 1)
    .returning('revision')
    .executeTakeFirstOrThrow();
  return Number(row.revision);
}

export async function currentThreatRevision(db: Executor): Promise<number> {
  const row = await db.selectFrom('threat_revision').select('revision').where('id', '=', 1).executeTakeFirst();
  return Number(row?.revision ?? 0);
}

/** Inserts events under one new revision; an event id already stored is left as it is. Returns how many were new. */
export async function insertThreatEvents(trx: Executor, events: readonly NewThreatEvent[]): Promise<number> {
  if (!events.length) return 0;
  const revision = await nextThreatRevision(trx);
  let inserted = 0;
  // 18 columns a row: 500 rows stay under SQLite's and PostgreSQL's bound-parameter limits.
  for (let i = 0; i < events.length; i += 500) {
    const batch = events.slice(i, i + 500).map((event) => ({ ...event, revision }));
    const result = await trx
      .insertInto('threat_events')
      .values(batch)
      .onConflict((oc) => oc.column('event_id').doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
}

/**
 * Events of revisions (afterRevision, upToRevision], a page at a time in event id order
 * (1,000,000 rows do not fit one answer). The upper bound keeps a write that commits while
 * the pages are read for the next load.
 */
export async function* threatEventsBetween(db: Db, afterRevision: number, upToRevision: number, pageSize = 20_000): AsyncGenerator<IndexedEventRow[]> {
  let lastId = '';
  for (;;) {
    const rows = await db
      .selectFrom('threat_events')
      .select(['event_id', 'source', 'occurred_on', 'latitude', 'longitude', 'precision', 'type', 'severity', 'fatalities', 'weight', 'admin1', 'admin2', 'place', 'country'])
      .where('revision', '>', afterRevision)
      .where('revision', '<=', upToRevision)
      .where('event_id', '>', lastId)
      .orderBy('event_id')
      .limit(pageSize)
      .execute();
    if (!rows.length) return;
    yield rows.map((row) => ({ ...row, latitude: Number(row.latitude), longitude: Number(row.longitude), weight: Number(row.weight) }));
    lastId = rows.at(-1)!.event_id;
    if (rows.length < pageSize) return;
  }
}
