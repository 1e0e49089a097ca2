import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import { isDatabaseUnavailable } from '../../server/db/errors.ts';
import { StatementNames } from '../../server/db/statement-names.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// The PostgreSQL pool prepares the statements it runs again and again once per connection
// (server/db/statement-names.ts), and a migration that changes a table's row shape under a
// prepared statement costs at most one retryable failure, never a stuck statement.
describe('statements prepared once per connection', () => {
  let database: TestDatabase;
  let opened: OpenedDatabase;
  let db: Kysely<any>;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = openDatabase(database.url, { poolSize: 1 });
    db = opened.db as unknown as Kysely<any>;
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
    await db.insertInto('notes').values({ id: 1, body: 'first' }).execute();
  });

  afterAll(async () => {
    await opened.close();
    await database.drop();
  });

  const prepared = () => sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db).then((r) => r.rows.map((row) => row.statement));
  const noteById = (id: number) => db.selectFrom('notes').selectAll().where('id', '=', id).execute();

  it('a statement with parameters is prepared on the connection, and answers as before', async () => {
    expect(await noteById(1)).toEqual([{ id: 1, body: 'first' }]);
    expect(await noteById(1)).toEqual([{ id: 1, body: 'first' }]);
    const text = db.selectFrom('notes').selectAll().where('id', '=', 1).compile().sql;
    expect(await prepared()).toContain(text);
    // Transaction control and statements without parameters are not.
    expect((await prepared()).filter((statement) => /^\s*(begin|commit|select statement)/i.test(statement))).toEqual([]);
  });

  it('a table changed under a prepared statement: outside a transaction it runs again at once', async () => {
    await noteById(1);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('alter table notes add column tag text');
      expect(await noteById(1)).toEqual([{ id: 1, body: 'first', tag: null }]);
    } finally {
      await other.query('alter table notes drop column tag');
      await other.end();
    }
    expect(await noteById(1)).toEqual([{ id: 1, body: 'first' }]);
  });

  it('inside a transaction the refusal fails it as a retryable 503, and the retry succeeds', async () => {
    await noteById(1);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('alter table notes add column tag text');
      const failed = await db
        .transaction()
        .execute((trx) => trx.selectFrom('notes').selectAll().where('id', '=', 1).execute())
        .catch((err: unknown) => err);
      expect(isDatabaseUnavailable(failed)).toBe(true);
      expect(await db.transaction().execute((trx) => trx.selectFrom('notes').selectAll().where('id', '=', 1).execute())).toEqual([
        { id: 1, body: 'first', tag: null },
      ]);
    } finally {
      await other.query('alter table notes drop column tag');
      await other.end();
    }
  });
});

describe('StatementNames', () => {
  it('names row statements with parameters, up to its capacity, and renames on request with a name never used before', () => {
    const names = new StatementNames(2);
    const a = names.nameFor('select * from notes where id = $1', 1);
    expect(a).toBeDefined();
    expect(names.nameFor('select * from notes where id = $1', 1)).toBe(a);
    expect(names.nameFor('begin', 0)).toBeUndefined();
    expect(names.nameFor('select 1', 0)).toBeUndefined();
    expect(names.nameFor('create table x (id int default $1)', 1)).toBeUndefined();
    const b = names.nameFor('insert into notes values ($1, $2)', 2);
    expect(b).toBeDefined();
    expect(names.nameFor('update notes set body = $1', 1)).toBeUndefined();
    const renamed = names.renamed('select * from notes where id = $1');
    expect([a, b]).not.toContain(renamed);
    expect(names.nameFor('select * from notes where id = $1', 1)).toBe(renamed);
  });
});
