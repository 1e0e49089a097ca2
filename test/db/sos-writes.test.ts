import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { serverMigrations, withoutSealingKey } from '../../server/db/migrations/index.ts';
import type { Db, EventRow, IncidentRow } from '../../server/db/schema.ts';
import { activeAssignmentOf, assignmentsOf, availableRespondersNear, hasActiveAssignment, incidentsNeedingDispatch } from '../../server/dispatch/store.ts';
import { insertEvents, insertEventsAtWebhookRevision, insertTestEvent, latestFeedSeq, sequenceCommittedEvents } from '../../server/events/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** Issue #33, migration 0035: an SOS's rows written once, with the same feed numbers and the same query plans. */

const now = '2026-11-28T10:00:00.000Z';

const event = (n: number, eventId = `evt_${String(n).padStart(3, '0')}`): EventRow => ({
  event_id: eventId,
  organization_id: 'org_1',
  environment: 'live',
  type: 'incident.created',
  resource_id: `inc_${n}`,
  data: '{}',
  // The sequencer (PostgreSQL) numbers committed events in (created_at, event_id) order: the same order here.
  created_at: new Date(Date.parse(now) + n * 1000).toISOString(),
  site_id: null,
});

function incidentRow(n: number, columns: Partial<IncidentRow>): IncidentRow {
  const at = new Date(Date.parse(now) - n * 60_000).toISOString();
  return {
    incident_id: `inc_${String(n).padStart(4, '0')}`, organization_id: 'org_1', environment: 'live', idempotency_key: null, category: 'sos', severity: 'critical',
    status: 'resolved', title: 'SOS', description: null, is_drill: 0, subject_name: 'Ada', subject_phone: null, subject_email: null, subject_reference: null,
    subject_metadata: '{}', longitude: 3.4, latitude: 6.5, address: null, landmark: null, version: 1, dispatch_deadline: at, escalation_deadline: at,
    assigned_at: null, on_scene_at: null, resolution_outcome: null, resolution_notes: null, created_at: at, updated_at: at, resolved_at: null, cancelled_at: null,
    responder_id: null, responder_name: null, responder_phone: null, responder_latitude: null, responder_longitude: null, eta_minutes: null,
    next_step_at: null, dispatch_round: 1, site_id: null, ...columns,
  } as IncidentRow;
}

describe('SOS writes (migration 0035)', () => {
  let opened: OpenedDatabase | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    await database?.drop();
    opened = undefined;
    database = undefined;
  });

  async function migrated(options: Parameters<typeof openDatabase>[1] = {}): Promise<Db> {
    database = await createTestDatabase();
    opened = openDatabase(database.url, options);
    await migrateToLatest(opened.db, serverMigrations(withoutSealingKey));
    await opened.db
      .insertInto('organizations')
      .values({ organization_id: 'org_1', name: 'A', plan: 'starter', subscription_status: 'active', code_prefix: 'AB', rate_limit_per_minute: null, created_at: now, updated_at: now } as never)
      .execute();
    return opened.db;
  }

  const numbers = async (db: Db) => {
    if (opened!.engine === 'postgres') while ((await sequenceCommittedEvents(db)) > 0);
    return (await db.selectFrom('events').select(['event_id', 'feed_seq']).orderBy('event_id').execute()).map((row) => [row.event_id, Number(row.feed_seq)]);
  };
  const counter = async (db: Db) => Number((await db.selectFrom('event_feed').select('seq').executeTakeFirstOrThrow()).seq);

  it('every insert path numbers its events once, in the order they were inserted, and a rolled-back insert takes no number', async () => {
    const db = await migrated();
    const revision = Number((await db.selectFrom('webhook_revision').select('revision').executeTakeFirstOrThrow()).revision);
    await db.transaction().execute(async (trx) => {
      await insertEvents(trx, [event(1), event(2)]);
      expect(await insertEventsAtWebhookRevision(trx, [event(3), event(4)], revision)).toBe(true);
      // A stale revision writes nothing and takes no number.
      expect(await insertEventsAtWebhookRevision(trx, [event(90)], revision + 1)).toBe(false);
      await insertTestEvent(trx, event(5));
      // An insert that names no position (a test's, an older path's): numbered by the fallback trigger.
      await trx.insertInto('events').values(event(6)).execute();
      await insertEventsAtWebhookRevision(trx, [event(7)], revision);
      await insertEvents(trx, [event(8)]);
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await insertEvents(trx, [event(91), event(92)]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await insertEventsAtWebhookRevision(db, [event(9)], revision);

    expect(await numbers(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [`evt_00${n}`, n]));
    expect(await latestFeedSeq(db)).toBe(9);
    if (opened!.engine === 'sqlite') expect(await counter(db)).toBe(9);
  });

  it('events of overlapping transactions are numbered in the order the transactions commit', async () => {
    const db = await migrated();
    const committed: string[] = [];
    let aInserted!: () => void;
    const aHasInserted = new Promise<void>((resolve) => (aInserted = resolve));
    let bDone!: () => void;
    const bHasCommitted = new Promise<void>((resolve) => (bDone = resolve));
    // A inserts first and commits last it may; B inserts after A did and commits as soon as it may.
    // PostgreSQL: A waits for B's commit (and the sequencer's turn), not for a time a busy machine
    // may outrun. SQLite, one writer: B cannot commit before A, so A only pauses.
    const a = db.transaction().execute(async (trx) => {
      await insertEvents(trx, [event(1)]);
      aInserted();
      if (opened!.engine === 'postgres') await bHasCommitted;
      else await new Promise((resolve) => setTimeout(resolve, 100));
      await insertEvents(trx, [event(2)]);
    }).then(() => committed.push('a'));
    await aHasInserted;
    const b = db
      .transaction()
      .execute((trx) => insertEvents(trx, [event(3)]))
      .then(async () => {
        committed.push('b');
        // PostgreSQL: the hosts' sequencer numbers what has committed; here it runs while A is still open.
        if (opened!.engine === 'postgres') await sequenceCommittedEvents(db);
      })
      .finally(() => bDone());
    await Promise.all([a, b]);
    const byTransaction = { a: ['evt_001', 'evt_002'], b: ['evt_003'] };
    const inFeedOrder = (await numbers(db)).sort((x, y) => Number(x[1]) - Number(y[1])).map(([eventId]) => eventId);
    expect(inFeedOrder).toEqual(committed.flatMap((name) => byTransaction[name as 'a' | 'b']));
    expect(committed).toEqual(opened!.engine === 'postgres' ? ['b', 'a'] : ['a', 'b']);
  });

  it('SQLite: events are written once, with their number, and the counter never moves back', async () => {
    const db = await migrated();
    if (opened!.engine !== 'sqlite') return;
    // Rows the statement changed, its trigger's included: the event and the counter (0020 also rewrote the event).
    const rowsChanged = (write: (trx: Db) => Promise<unknown>) =>
      db.transaction().execute(async (trx) => {
        const changes = async () => Number((await sql<{ n: number }>`select total_changes() as n`.execute(trx)).rows[0]!.n);
        const before = await changes();
        await write(trx);
        return (await changes()) - before;
      });
    expect(await rowsChanged((trx) => insertEvents(trx, [event(1)]))).toBe(2);
    // A position named below the counter (none of the server's paths does) leaves it where it stands.
    await db.insertInto('events').values({ ...event(2), feed_seq: 100 }).execute();
    await db.insertInto('events').values({ ...event(3), feed_seq: 50 }).execute();
    expect(await counter(db)).toBe(100);
    await insertEvents(db, [event(4)]);
    expect(await numbers(db)).toEqual([['evt_001', 1], ['evt_002', 100], ['evt_003', 50], ['evt_004', 101]]);
  });

  it('every query on responder_id or next_step_at can still use its partial index, on both engines (EXPLAIN)', async () => {
    const queries: CompiledQuery[] = [];
    const db = await migrated({ log: (entry) => entry.level === 'query' && queries.push(entry.query) });
    const rows = Array.from({ length: 400 }, (_, n) =>
      incidentRow(n, n % 10 === 0 ? { status: 'on_scene', responder_id: `rsp_${n}`, next_step_at: now } : n % 7 === 0 ? { status: 'dispatching', next_step_at: now } : {}),
    );
    await db.insertInto('incidents').values(rows).execute();
    await sql`analyze`.execute(db);

    queries.length = 0;
    await db.transaction().execute(async (trx) => {
      await hasActiveAssignment(trx, 'rsp_10');
      await activeAssignmentOf(trx, 'rsp_10');
      await assignmentsOf(trx, 'rsp_10', now);
      await availableRespondersNear(trx, 'live', { latitude: 6.5, longitude: 3.4 }, 10);
      await incidentsNeedingDispatch(trx, now, now, 100);
    });
    const selects = queries.filter((query) => query.sql.startsWith('select'));
    expect(selects).toHaveLength(5);
    const plans = await Promise.all(
      selects.map((query) =>
        db.transaction().execute(async (trx) => {
          // PostgreSQL: a table this small is cheaper to scan; the question is whether the index may be used.
          if (opened!.engine === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
          const explain = opened!.engine === 'postgres' ? 'explain ' : 'explain query plan ';
          const result = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + query.sql, [...query.parameters]));
          return result.rows.map((row) => row['QUERY PLAN'] ?? row.detail).join('\n');
        }),
      ),
    );
    const [busy, active, assignments, search, sweep] = plans;
    for (const plan of [busy, active, assignments]) expect(plan).toMatch(/incidents_by_responder.*\n?.*responder_id/);
    // The search's "is this responder busy?" looks the responder up in the partial index.
    expect(search).toMatch(opened!.engine === 'postgres' ? /incidents_by_responder[^\n]*\n\s*Index Cond: \(responder_id = responders\.responder_id/ : /SEARCH incidents USING INDEX incidents_by_responder \(responder_id=\?/);
    // The dispatch sweep: SQLite reads it by status (as before 0035); PostgreSQL also by the step's time.
    expect(sweep).not.toMatch(/SCAN incidents|Seq Scan/);
    if (opened!.engine === 'postgres') expect(sweep).toMatch(/incidents_by_next_step/);
  });
});
