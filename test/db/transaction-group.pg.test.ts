import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { deferredWrite } from '../../server/db/deferred-write.ts';
import { inTransaction, type Executor } from '../../server/db/schema.ts';
import { transactionGroup } from '../../server/db/transaction-group.ts';
import { countingRelay } from '../support/counting-relay.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// PostgreSQL's group commit (server/db/transaction-group.ts): SOSs that arrive together share a
// transaction, two flights for all of them, and each still fails or succeeds as it would alone.
describe('transactions that concurrent requests share', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let opened: OpenedDatabase;
  let db: Kysely<any>;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await countingRelay(new URL(database.url));
    opened = openDatabase(relay.url, { poolSize: 2 });
    db = opened.db as unknown as Kysely<any>;
    await sql`create table notes (id integer primary key, body text not null, tx bigint not null)`.execute(db);
    await sql`create table marks (id integer primary key)`.execute(db);
  });

  afterAll(async () => {
    await opened.close();
    await relay.close();
    await database.drop();
  });

  beforeEach(async () => {
    await sql`delete from notes`.execute(db);
    await sql`delete from marks`.execute(db);
  });

  /** A member writes a note (answering its transaction id) and, deferred, a mark; `body` null breaks the NOT NULL. */
  interface Member {
    id: number;
    body: string | null;
  }
  const alone: Array<number> = [];
  const noteOf = (trx: Executor, member: Member) => sql<{ tx: string }>`insert into notes values (${member.id}, ${member.body}, txid_current()) returning tx`.compile(trx);
  /** All members' notes in one statement, as the SOSs of a group are one (incidents/store.ts); a null body fails it whole. */
  const notesOf = (trx: Executor, members: readonly Member[]) =>
    sql<{ id: number; tx: string }>`insert into notes select m.id, m.body, txid_current() from jsonb_to_recordset(${JSON.stringify(members)}::jsonb) as m(id integer, body text) returning id, tx`.execute(trx);
  const mark = (trx: Executor, id: number) => sql`insert into marks values (${id})${deferredWrite}`.execute(trx);
  let afterStatements: ((trx: Executor) => Promise<void>) | undefined;
  const notes = transactionGroup<Member, number>({
    async together(trx, members) {
      const written = await notesOf(trx, members);
      for (const member of members) await mark(trx, member.id);
      await afterStatements?.(trx);
      return members.map((member) => Number(written.rows.find((row) => row.id === member.id)!.tx));
    },
    alone: (executor, member) => {
      alone.push(member.id);
      return inTransaction(executor, async (trx) => {
        const tx = Number((await trx.executeQuery(noteOf(trx, member))).rows[0]!.tx);
        await mark(trx, member.id);
        return tx;
      });
    },
  });
  const ids = async (table: 'notes' | 'marks') => (await sql<{ id: number }>`select id from ${sql.table(table)} order by id`.execute(db)).rows.map((row) => row.id);
  const outcome = (work: Promise<unknown>) => work.then(() => 'written', (err: { code?: string; message?: string }) => err.code ?? err.message);

  it('members that arrive together share one transaction and two flights: their statements with the BEGIN, their deferred writes with the COMMIT', async () => {
    alone.length = 0;
    await ids('notes'); // a warm connection
    const before = relay.flights();
    const txs = await Promise.all([1, 2, 3, 4, 5].map((id) => notes(db, { id, body: `note ${id}` })));
    expect(relay.flights() - before).toBe(2);
    expect(new Set(txs).size).toBe(1);
    expect(alone).toEqual([]);
    expect(await ids('notes')).toEqual([1, 2, 3, 4, 5]);
    expect(await ids('marks')).toEqual([1, 2, 3, 4, 5]);
  });

  it('a member alone in its turn runs alone, and one inside a transaction already open runs in it', async () => {
    alone.length = 0;
    expect(await outcome(notes(db, { id: 7, body: 'seven' }))).toBe('written');
    await db.transaction().execute(async (trx) => {
      await notes(trx, { id: 8, body: 'eight' });
      await notes(trx, { id: 9, body: 'nine' });
    });
    expect(alone).toEqual([7, 8, 9]);
    expect(await ids('notes')).toEqual([7, 8, 9]);
  });

  it("one member's failure is its own: the others are written, each in a transaction of its own, and it fails as it would alone", async () => {
    alone.length = 0;
    const results = await Promise.all([
      outcome(notes(db, { id: 1, body: 'one' })),
      outcome(notes(db, { id: 2, body: null })),
      outcome(notes(db, { id: 3, body: 'three' })),
    ]);
    expect(results).toEqual(['written', '23502', 'written']);
    expect(alone.sort()).toEqual([1, 2, 3]);
    expect(await ids('notes')).toEqual([1, 3]);
    expect(await ids('marks')).toEqual([1, 3]);
  });

  it('a deferred write refused at the COMMIT fails the shared transaction, not its members: they run again alone', async () => {
    alone.length = 0;
    await sql`insert into marks values (5)`.execute(db);
    const results = await Promise.all([4, 5, 6].map((id) => outcome(notes(db, { id, body: `note ${id}` }))));
    expect(results).toEqual(['written', '23505', 'written']);
    expect(await ids('notes')).toEqual([4, 6]);
  });

  it('a connection lost under the COMMIT fails every member with it, and none runs again (it may have committed)', async () => {
    alone.length = 0;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    afterStatements = async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    };
    try {
      const results = await Promise.all([1, 2, 3].map((id) => outcome(notes(db, { id, body: `note ${id}` }))));
      expect(new Set(results).size).toBe(1);
      expect(results[0]).not.toBe('written');
      expect(alone).toEqual([]);
    } finally {
      afterStatements = undefined;
      await admin.end();
    }
    expect(await ids('notes')).toEqual([]);
  });
});
