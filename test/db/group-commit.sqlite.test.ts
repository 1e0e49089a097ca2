import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db/database.ts';
import type { GroupCommitOptions } from '../../server/db/sqlite-group-commit.ts';
import { preparedQuery } from '../../server/db/prepared.ts';

// Group commit is SQLite's (server/db/sqlite-group-commit.ts); PostgreSQL commits per transaction,
// so this file runs in the sqlite project only (*.sqlite.test.ts).
describe('SQLite group commit', () => {
  let dir: string;
  let path: string;
  let opened: OpenedDatabase;
  let db: Kysely<any>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tsaro-gc-'));
    path = join(dir, 'gc.db');
    opened = openDatabase(path, { groupCommit: { maxHoldMs: 300 } });
    db = opened.db as unknown as Kysely<any>;
    await sql`create table notes (id integer primary key, body text not null unique)`.execute(db);
  });

  /** The same file again with other group-commit settings. */
  async function reopen(groupCommit: Partial<GroupCommitOptions>) {
    await opened.close();
    opened = openDatabase(path, { groupCommit });
    db = opened.db as unknown as Kysely<any>;
  }

  afterEach(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A prepared read: on the root db it runs on the query-only connection without Kysely (server/db/direct-read.ts). */
  const readBodies = preparedQuery((executor: Kysely<any>, _params: Record<string, never>) => executor.selectFrom('notes').select('body').orderBy('body'));
  const preparedBodies = async (executor: Kysely<any>) => (await readBodies(executor as never, {})).rows.map((r) => (r as { body: string }).body);
  const bodies = async () => (await db.selectFrom('notes').select('body').orderBy('body').execute()).map((r) => r.body);
  /** What another process opening the file sees: only what was committed. */
  const onDisk = () => {
    const other = new SqliteDatabase(path, { readonly: true });
    try {
      return (other.prepare('select body from notes order by body').all() as { body: string }[]).map((r) => r.body);
    } finally {
      other.close();
    }
  };

  it('concurrent transactions share commits, and each is on disk when it is told it committed', async () => {
    const before = { ...opened.groupCommit!.stats };
    const seenWhenCommitted: boolean[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('notes').values({ body: `n${i}` }).execute();
          })
          .then(() => seenWhenCommitted.push(onDisk().includes(`n${i}`))),
      ),
    );
    const commits = opened.groupCommit!.stats.commits - before.commits;
    const transactions = opened.groupCommit!.stats.transactions - before.transactions;
    expect(transactions).toBe(40);
    expect(commits).toBeLessThan(transactions / 2);
    expect(seenWhenCommitted).toEqual(Array(40).fill(true));
    expect(onDisk()).toHaveLength(40);
  });

  it('a failing transaction rolls back only itself; the others of its batch commit', async () => {
    await db.insertInto('notes').values({ body: 'taken' }).execute();
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('notes').values({ body: 'a' }).execute()),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ body: 'b-half' }).execute();
        await trx.insertInto('notes').values({ body: 'taken' }).execute(); // unique: fails
      }),
      db.transaction().execute((trx) => trx.insertInto('notes').values({ body: 'c' }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(onDisk()).toEqual(['a', 'c', 'taken']);
  });

  it('the savepoints of a batch journal in memory, and a member that changed many pages still rolls back whole', async () => {
    // temp_store = MEMORY on the writer: the sub-journal is not a file written page by page.
    const [store] = (await db.transaction().execute((trx) => sql<{ temp_store: number }>`pragma temp_store`.execute(trx))).rows;
    expect(store?.temp_store).toBe(2);
    await db.insertInto('notes').values({ body: 'taken' }).execute();
    const big = (i: number) => `${'x'.repeat(4000)}-${i}`; // about a page a row, past the 64 KiB spill size
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('notes').values({ body: 'a' }).execute()),
      db.transaction().execute(async (trx) => {
        for (let i = 0; i < 200; i++) await trx.insertInto('notes').values({ body: big(i) }).execute();
        await trx.updateTable('notes').set({ body: 'a-changed' }).where('body', '=', 'a').execute();
        await trx.insertInto('notes').values({ body: 'taken' }).execute(); // unique: fails
      }),
      db.transaction().execute((trx) => trx.insertInto('notes').values({ body: 'c' }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(onDisk()).toEqual(['a', 'c', 'taken']);
    expect(await bodies()).toEqual(['a', 'c', 'taken']);
  });

  it('a read outside a transaction never sees a change that is not yet durable', async () => {
    // The batch must still be open when the reads run: on a loaded machine the first insert can
    // take longer than the default 10 ms batch age, and the batch would then commit on release.
    await reopen({ maxHoldMs: 300, maxBatchMs: 60_000 });
    const first = await db.startTransaction().execute();
    await first.insertInto('notes').values({ body: 'pending' }).execute();
    const second = db.startTransaction().execute(); // waits for the writer
    const firstCommitted = first.commit().execute();
    const holder = await second; // the writer passed on; the batch holding `pending` is still open
    let told = false;
    void firstCommitted.then(() => (told = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toBe(false);
    expect(await bodies()).toEqual([]);
    expect(onDisk()).toEqual([]);
    await holder.commit().execute();
    await firstCommitted;
    expect(await bodies()).toEqual(['pending']);
  });

  it('a write outside a transaction answers once it is durable', async () => {
    await db.insertInto('notes').values({ body: 'plain' }).execute();
    expect(onDisk()).toEqual(['plain']);
  });

  it('a transaction that holds the writer too long is rolled back alone; the batch commits without it', async () => {
    const slow = await db.startTransaction().execute();
    await slow.insertInto('notes').values({ body: 'slow' }).execute();
    const others = Promise.all(['x', 'y'].map((body) => db.transaction().execute((trx) => trx.insertInto('notes').values({ body }).execute())));
    await others; // maxHoldMs is 300: they would wait forever otherwise
    await expect(slow.insertInto('notes').values({ body: 'slow-2' }).execute()).rejects.toThrow(/held the database writer/);
    await expect(slow.commit().execute()).rejects.toThrow(/held the database writer/);
    expect(onDisk()).toEqual(['x', 'y']);
  });

  it('after a transaction rolled back for holding the writer, the next ones commit (connections are reused), and a query log sees each query', async () => {
    await opened.close();
    const logged: string[] = [];
    opened = openDatabase(path, { groupCommit: { maxHoldMs: 300 }, log: (event) => void (event.level === 'query' && logged.push(event.query.sql)) });
    db = opened.db as unknown as Kysely<any>;
    const slow = await db.startTransaction().execute();
    await slow.insertInto('notes').values({ body: 'slow' }).execute();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(slow.commit().execute()).rejects.toThrow(/held the database writer/);
    // Its connection goes back to be reused.
    await slow.rollback().execute();
    for (const body of ['a', 'b', 'c']) {
      await db.transaction().execute((trx) => trx.insertInto('notes').values({ body }).execute());
      await db.insertInto('notes').values({ body: `${body}-plain` }).execute();
    }
    expect(onDisk()).toEqual(['a', 'a-plain', 'b', 'b-plain', 'c', 'c-plain']);
    expect(logged.filter((text) => text.startsWith('insert into "notes"'))).toHaveLength(7);
  });

  it('a batch stops growing at its size bound', async () => {
    await opened.close();
    opened = openDatabase(path, { groupCommit: { maxBatch: 4 } });
    db = opened.db as unknown as Kysely<any>;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => db.transaction().execute((trx) => trx.insertInto('notes').values({ body: `s${i}` }).execute())),
    );
    expect(opened.groupCommit!.stats.commits).toBeGreaterThanOrEqual(10);
    expect(onDisk()).toHaveLength(40);
  });

  // Its first half needs two read threads at nice 10 to keep the WAL pinned; on a host running
  // the whole suite they sometimes get too little CPU to do so (CI saw the unkept WAL at 2.1 MB
  // and below), which says nothing of the keeper: such a run is measured again, up to three times.
  it('read threads busy one read after another do not keep the WAL from starting again: past its limit reads pause for a checkpoint', { retry: 3 }, async () => {
    /** The WAL's largest size while two read threads read without pause and 600 rows are written, with or without the keeper. */
    const largestWal = async (keeper: boolean) => {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), 'tsaro-gc-'));
      path = join(dir, 'gc.db');
      opened = openDatabase(path, { walLimit: keeper ? { bytes: 256 * 1024, everyMs: 20 } : { bytes: 1e12, everyMs: 60_000 } });
      db = opened.db as unknown as Kysely<any>;
      await sql`create table notes (id integer primary key, body text not null unique)`.execute(db);
      const readDb = opened.readDb as unknown as Kysely<any>;
      let reading = true;
      const readers = [0, 1].map(async () => {
        while (reading) await sql`select count(*) as n, max(length(body)) as m from notes`.execute(readDb);
      });
      let largest = 0;
      for (let i = 0; i < 600; i++) {
        await db.insertInto('notes').values({ body: `${'x'.repeat(3000)}${i}` }).execute();
        largest = Math.max(largest, statSync(`${path}-wal`).size);
      }
      reading = false;
      await Promise.all(readers);
      return largest;
    };
    const without = await largestWal(false);
    const kept = await largestWal(true);
    // Without the keeper the WAL grows past six times the keeper's limit (alone here it reached
    // 2.7 to 5.9 MB: how often both threads pause at once, letting SQLite restart it, varies);
    // with it, under half of what it was without (alone 0.5-0.7 MB; beside the suite 1.2 MB).
    expect(without, 'without the keeper the busy readers keep the WAL growing').toBeGreaterThan(1_500_000);
    expect(kept).toBeLessThan(without / 2);
  });

  describe('the WAL sync, off the event loop', () => {
    /** Reopens the database with its WAL sync held until `release()` (or failed by `fail()`). */
    const withHeldSync = async () => {
      await opened.close();
      const held: Array<{ sync: () => Promise<void>; done: () => void; fail: (err: Error) => void }> = [];
      opened = openDatabase(path, {
        walSync: (sync) => () =>
          new Promise<void>((done, fail) => held.push({ sync, done, fail })),
      });
      db = opened.db as unknown as Kysely<any>;
      const release = async () => {
        const next = held.shift()!;
        await next.sync();
        next.done();
      };
      return { held, release };
    };
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    it('every commit is followed by a sync of the WAL before its members are answered', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => db.insertInto('notes').values({ body: `w${i}` }).execute()));
      const { commits, syncs } = opened.groupCommit!.stats;
      expect(syncs).toBe(commits);
      expect(commits).toBeGreaterThan(0);
      expect(onDisk()).toHaveLength(20);
    });

    it('while a batch syncs, nobody in it is told, reads show the state before it, and the next transaction runs but commits only after that sync', async () => {
      const { held, release } = await withHeldSync();
      let firstTold = false;
      const first = db.insertInto('notes').values({ body: 'first' }).execute().then(() => (firstTold = true));
      await expect.poll(() => held.length).toBe(1); // committed, its sync in flight
      await tick();
      expect(firstTold).toBe(false);
      expect(await bodies()).toEqual([]); // the reader still sees the last durable state

      // The next batch fills while the disk works (a kiosk's keyed validation does not queue
      // behind the sync for the writer: docs/benchmarks.md, "A year of data"), but its COMMIT
      // waits for the sync in flight: one sync at a time, in commit order.
      let secondTold = false;
      let secondRan = false;
      const second = db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('notes').values({ body: 'second' }).execute();
          secondRan = true;
        })
        .then(() => (secondTold = true));
      await expect.poll(() => secondRan).toBe(true);
      for (let i = 0; i < 5; i++) await tick();
      expect(opened.groupCommit!.stats.commits).toBe(1);
      expect(held).toHaveLength(1);
      expect(await bodies()).toEqual([]);
      expect(onDisk()).toEqual(['first']); // not committed, so no other connection sees it either

      await release();
      await first;
      expect(firstTold).toBe(true);
      expect(secondTold).toBe(false);
      expect(await bodies()).toEqual(['first']);
      await expect.poll(() => held.length).toBe(1); // the second batch committed when the first sync returned
      await release();
      await second;
      expect(await bodies()).toEqual(['first', 'second']);
    });

    it('when a checkpoint is due after the batch syncing, the next transaction waits for the writer until the checkpoint has run', async () => {
      await opened.close();
      const held: Array<{ sync: () => Promise<void>; done: () => void }> = [];
      opened = openDatabase(path, { groupCommit: { checkpointEvery: 1 }, walSync: (sync) => () => new Promise<void>((done) => held.push({ sync, done })) });
      db = opened.db as unknown as Kysely<any>;
      const first = db.insertInto('notes').values({ body: 'first' }).execute();
      await expect.poll(() => held.length).toBe(1);
      let secondRan = false;
      const second = db.transaction().execute(async (trx) => {
        secondRan = true;
        await trx.insertInto('notes').values({ body: 'second' }).execute();
      });
      for (let i = 0; i < 5; i++) await tick();
      expect(secondRan).toBe(false); // the writer stays idle for the checkpoint due after this sync
      const next = held.shift()!;
      await next.sync();
      next.done();
      await first;
      await expect.poll(() => held.length).toBe(1); // checkpointed, then the second batch committed
      expect(opened.groupCommit!.stats.checkpoints).toBe(1);
      expect(secondRan).toBe(true);
      const last = held.shift()!;
      await last.sync();
      last.done();
      await second;
      expect(onDisk()).toEqual(['first', 'second']);
    });

    it('a prepared read on the db, which skips Kysely, also shows the state before a batch whose sync is in flight', async () => {
      const { held, release } = await withHeldSync();
      const direct = vi.spyOn(opened.groupCommit!, 'readDirect');
      const first = db.insertInto('notes').values({ body: 'first' }).execute();
      await expect.poll(() => held.length).toBe(1);
      expect(await preparedBodies(db)).toEqual([]);
      expect(direct).toHaveBeenCalledTimes(1);
      await release();
      await first;
      expect(await preparedBodies(db)).toEqual(['first']);
    });

    it('a broad read on a worker thread (the read lane) that saw a batch whose sync is in flight answers only once it is on disk', async () => {
      const { held, release } = await withHeldSync();
      const readDb = opened.readDb as unknown as Kysely<any>;
      expect(readDb).not.toBe(db);
      expect(await readDb.selectFrom('notes').select('body').execute()).toEqual([]); // its thread started
      const first = db.insertInto('notes').values({ body: 'first' }).execute();
      await expect.poll(() => held.length).toBe(1); // committed, its sync in flight
      // The worker's own connection sees the commit; its answer waits for the sync.
      let answered: string[] | undefined;
      const read = readDb.selectFrom('notes').select('body').execute().then((rows) => (answered = rows.map((row) => row.body as string)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBeUndefined();
      await release();
      await first;
      await read;
      expect(answered).toEqual(['first']);
    });

    it('a failed sync fails its batch, and every write after it, until the server restarts', async () => {
      const { held } = await withHeldSync();
      const lost = db.insertInto('notes').values({ body: 'lost' }).execute();
      await expect.poll(() => held.length).toBe(1);
      held.shift()!.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await expect(lost).rejects.toThrow(/could not be synced to disk.*EIO/);
      await expect(db.insertInto('notes').values({ body: 'after' }).execute()).rejects.toThrow(/could not be synced/);
      await expect(db.transaction().execute((trx) => trx.insertInto('notes').values({ body: 'after-tx' }).execute())).rejects.toThrow(/could not be synced/);
    });
  });

  it('a prepared read in a transaction sees its own writes; on the db it runs on the reader, skips Kysely and is still logged', async () => {
    await opened.close();
    const logged: string[] = [];
    opened = openDatabase(path, { log: (event) => logged.push(`${event.level} ${event.query.sql}`) });
    db = opened.db as unknown as Kysely<any>;
    const direct = vi.spyOn(opened.groupCommit!, 'readDirect');
    const trx = await db.startTransaction().execute();
    await trx.insertInto('notes').values({ body: 'mine' }).execute();
    expect(await preparedBodies(trx)).toEqual(['mine']);
    expect(direct).not.toHaveBeenCalled();
    expect(await preparedBodies(db)).toEqual([]); // not committed: the reader does not see it
    expect(direct).toHaveBeenCalledTimes(1);
    expect(direct.mock.results[0]!.value).toEqual({ rows: [] }); // answered there, not handed back to Kysely
    await trx.commit().execute();
    expect(await preparedBodies(db)).toEqual(['mine']);
    expect(logged.filter((line) => line.startsWith('query select "body" from "notes"'))).toHaveLength(3);
  });

  it('a write from another connection (the CLI) after a batch is kept beside it', async () => {
    const open = await db.startTransaction().execute();
    await open.insertInto('notes').values({ body: 'server' }).execute();
    const committed = open.commit().execute();
    await committed;
    const cli = new SqliteDatabase(path);
    cli.pragma('busy_timeout = 5000');
    cli.prepare('insert into notes (body) values (?)').run('cli');
    cli.close();
    expect(await bodies()).toEqual(['cli', 'server']);
  });
});
