import { sql } from 'kysely';
import type { Db, Executor, ThreatDataFileRow, ThreatEventRow } from '../db/schema.ts';

export type NewThreatEvent = Omit<ThreatEventRow, 'revision'>;

/** The columns the in-memory index keeps (the description stays in the database; the dataset names the feed). */
export type IndexedEventRow = Pick<
  ThreatEventRow,
  'event_id' | 'source' | 'dataset' | 'occurred_on' | 'latitude' | 'longitude' | 'precision' | 'type' | 'severity' | 'fatalities' | 'weight' | 'admin1' | 'admin2' | 'place' | 'country'
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
  return row.revision;
}

/** The newest revision, and the last one that replaced stored events (an index older than that reads everything again). */
export async function currentThreatRevision(db: Executor): Promise<{ revision: number; rebuild: number }> {
  const row = await db.selectFrom('threat_revision').select(['revision', 'rebuild_revision']).where('id', '=', 1).executeTakeFirst();
  return { revision: row?.revision ?? 0, rebuild: row?.rebuild_revision ?? 0 };
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
 * Inserts new events and replaces stored ones where `replaces(incoming, storedDataset)` says the
 * incoming row is a newer release of the same event, all under one new revision. A replacement
 * marks the revision as a rebuild: the in-memory index only appends, so every host reloads.
 */
export async function upsertThreatEvents(
  trx: Executor,
  events: readonly NewThreatEvent[],
  replaces: (incoming: NewThreatEvent, storedDataset: string) => boolean,
): Promise<{ inserted: number; replaced: number }> {
  if (!events.length) return { inserted: 0, replaced: 0 };
  const revision = await nextThreatRevision(trx);
  let inserted = 0;
  let replaced = 0;
  for (let i = 0; i < events.length; i += 500) {
    const batch = events.slice(i, i + 500);
    const stored = await trx
      .selectFrom('threat_events')
      .select(['event_id', 'dataset'])
      .where('event_id', 'in', batch.map((event) => event.event_id))
      .execute();
    const storedDataset = new Map(stored.map((row) => [row.event_id, row.dataset]));
    const fresh = batch.filter((event) => !storedDataset.has(event.event_id)).map((event) => ({ ...event, revision }));
    if (fresh.length) {
      const result = await trx.insertInto('threat_events').values(fresh).onConflict((oc) => oc.column('event_id').doNothing()).executeTakeFirst();
      inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
    for (const event of batch) {
      const dataset = storedDataset.get(event.event_id);
      if (dataset === undefined || !replaces(event, dataset)) continue;
      await trx.updateTable('threat_events').set({ ...event, revision }).where('event_id', '=', event.event_id).execute();
      replaced++;
    }
  }
  if (replaced) await trx.updateTable('threat_revision').set({ rebuild_revision: revision }).where('id', '=', 1).execute();
  return { inserted, replaced };
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
      .select(['event_id', 'source', 'dataset', 'occurred_on', 'latitude', 'longitude', 'precision', 'type', 'severity', 'fatalities', 'weight', 'admin1', 'admin2', 'place', 'country'])
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

/** Whether this version of a shipped data file (by name and content hash) is in already. */
export async function threatDataFileLoaded(db: Executor, name: string, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('threat_data_files').select('name').where('name', '=', name).where('sha256', '=', sha256).executeTakeFirst();
  return row !== undefined;
}

/** Records a shipped file as loaded; call it in the transaction that imports it. */
export async function recordThreatDataFile(trx: Executor, row: ThreatDataFileRow): Promise<void> {
  await trx.insertInto('threat_data_files').values(row).onConflict((oc) => oc.columns(['name', 'sha256']).doNothing()).execute();
}
