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

  /** Runs `work` after another connection (a migration on another host) added a column to notes; drops it after. */
  const withColumnAddedElsewhere = async (work: () => Promise<void>) => {
    await noteById(1);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('alter table notes add column tag text');
      await work();
    } finally {
      await other.query('alter table notes drop column tag');
      await other.end();
    }
  };

  it('a table changed under a prepared statement: outside a transaction it runs again at once', async () => {
    await withColumnAddedElsewhere(async () => {
      expect(await noteById(1)).toEqual([{ id: 1, body: 'first', tag: null }]);
    });
    expect(await noteById(1)).toEqual([{ id: 1, body: 'first' }]);
  });

  it('inside a transaction the refusal fails it as a retryable 503, and the retry succeeds', async () => {
    const inTransaction = () => db.transaction().execute((trx) => trx.selectFrom('notes').selectAll().where('id', '=', 1).execute());
    await withColumnAddedElsewhere(async () => {
      expect(isDatabaseUnavailable(await inTransaction().catch((err: unknown) => err))).toBe(true);
      expect(await inTransaction()).toEqual([{ id: 1, body: 'first', tag: null }]);
    });
  });
});

describe('StatementNames', () => {
  const byId = 'select * from notes where id = $1';

  it('prepares row statements with parameters, up to its capacity', () => {
    const names = new StatementNames(2);
    const a = names.preparedFor(byId, 1);
    expect(a).toMatchObject({ text: byId });
    expect(names.preparedFor(byId, 1)).toBe(a);
    expect(names.preparedFor('begin', 0)).toBeUndefined();
    expect(names.preparedFor('select 1', 0)).toBeUndefined();
    expect(names.preparedFor('create table x (id int default $1)', 1)).toBeUndefined();
    const b = names.preparedFor('insert into notes values ($1, $2)', 2);
    expect(b?.name).not.toBe(a?.name);
    expect(names.preparedFor('update notes set body = $1', 1)).toBeUndefined();
    expect(new StatementNames(0).preparedFor(byId, 1)).toBeUndefined();
  });

  it('renews a refused statement once, however many runs fail together, under a name and text never used before', () => {
    const names = new StatementNames();
    const stale = names.preparedFor(byId, 1)!;
    const renewed = names.renewed(byId, stale);
    expect(renewed.name).not.toBe(stale.name);
    // PgBouncer shares prepared statements by text: the renewed text differs, the SQL does not.
    expect(renewed.text).not.toBe(stale.text);
    expect(renewed.text.startsWith(byId)).toBe(true);
    expect(names.renewed(byId, stale)).toBe(renewed);
    expect(names.preparedFor(byId, 1)).toBe(renewed);
    expect(names.renewed(byId, renewed).name).not.toBe(renewed.name);
  });
});

describe('DATABASE_PREPARED_STATEMENTS=0', () => {
  it('runs every statement unnamed', async () => {
    const database = await createTestDatabase();
    const opened = openDatabase(database.url, { poolSize: 1, preparedStatements: false });
    try {
      const db = opened.db as unknown as Kysely<any>;
      await sql`create table notes (id integer primary key)`.execute(db);
      await db.selectFrom('notes').selectAll().where('id', '=', 1).execute();
      await db.selectFrom('notes').selectAll().where('id', '=', 1).execute();
      expect((await sql`select name from pg_prepared_statements`.execute(db)).rows).toEqual([]);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
