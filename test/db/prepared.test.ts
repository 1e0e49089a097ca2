import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { paramRows, preparedQuery, rowParams } from '../../server/db/prepared.ts';
import type { Executor } from '../../server/db/schema.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Queries built once and run with new values (server/db/prepared.ts) must answer exactly what
// the same query built anew answers, on both engines, and refuse a use that would not.
describe('prepared queries', () => {
  let database: TestDatabase;
  let opened: OpenedDatabase;
  let db: Kysely<any>;
  const as = (kysely: Kysely<any>) => kysely as unknown as Executor;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = openDatabase(database.url);
    db = opened.db as unknown as Kysely<any>;
    await sql`create table notes (id integer primary key, owner text not null, body text, kind text not null)`.execute(db);
  });

  afterAll(async () => {
    await opened.close();
    await database.drop();
  });

  const insertNotes = preparedQuery((kysely, params: Record<string, unknown>) =>
    (kysely as unknown as Kysely<any>).insertInto('notes').values(paramRows(params)),
  );
  const notesOf = preparedQuery((kysely, p: { owner: string; after: number }) =>
    (kysely as unknown as Kysely<any>)
      .selectFrom('notes')
      .select(['id', 'body'])
      .where('owner', '=', p.owner)
      .where('id', '>', p.after)
      .where('kind', '=', 'memo') // a constant stays in its place
      .orderBy('id'),
  );
  const builtAnew = (owner: string, after: number) =>
    db.selectFrom('notes').select(['id', 'body']).where('owner', '=', owner).where('id', '>', after).where('kind', '=', 'memo').orderBy('id').execute();

  it('answers what the query built anew answers, call after call, with nulls and row counts of its own', async () => {
    const rows = [
      { id: 1, owner: 'ada', body: 'first', kind: 'memo' },
      { id: 2, owner: 'ada', body: null, kind: 'memo' },
      { id: 3, owner: 'bola', body: 'third', kind: 'memo' },
    ];
    const inserted = await insertNotes(as(db), rowParams(rows));
    expect(Number(inserted.numAffectedRows)).toBe(3);
    await insertNotes(as(db), rowParams([{ id: 4, owner: 'ada', body: 'other kind', kind: 'log' }]));

    for (const [owner, after] of [['ada', 0], ['ada', 1], ['bola', 0], ['chidi', 0]] as const) {
      expect((await notesOf(as(db), { owner, after })).rows).toEqual(await builtAnew(owner, after));
    }
    expect((await notesOf(as(db), { owner: 'ada', after: 0 })).rows).toEqual([
      { id: 1, body: 'first' },
      { id: 2, body: null },
    ]);
  });

  it('runs inside a transaction, whose rollback undoes it', async () => {
    await db
      .transaction()
      .execute(async (trx) => {
        await insertNotes(as(trx), rowParams([{ id: 10, owner: 'dayo', body: 'gone', kind: 'memo' }]));
        expect((await notesOf(as(trx), { owner: 'dayo', after: 0 })).rows).toEqual([{ id: 10, body: 'gone' }]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await notesOf(as(db), { owner: 'dayo', after: 0 })).rows).toEqual([]);
  });

  it('refuses a parameter it cannot place as a plain value, and an undefined value', async () => {
    const inlined = preparedQuery((kysely, p: { owner: string }) =>
      (kysely as unknown as Kysely<any>).selectFrom('notes').select('id').where('owner', '=', sql.lit(p.owner)),
    );
    await expect(inlined(as(db), { owner: 'ada' })).rejects.toThrow(/inlined/);
    const inside = preparedQuery((kysely, p: { owner: string }) =>
      (kysely as unknown as Kysely<any>).selectFrom('notes').select('id').where('owner', '=', `${p.owner}%`),
    );
    await expect(inside(as(db), { owner: 'ada' })).rejects.toThrow(/inside a larger value/);
    const unused = preparedQuery((kysely, _p: { owner: string }) => (kysely as unknown as Kysely<any>).selectFrom('notes').select('id'));
    await expect(unused(as(db), { owner: 'ada' })).rejects.toThrow(/not found/);
    await expect(notesOf(as(db), { owner: undefined as unknown as string, after: 0 })).rejects.toThrow(/owner is undefined/);
  });
});
