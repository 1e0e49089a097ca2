import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../server/db/database.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Text search needs PostgreSQL's pg_trgm and btree_gin (migration 0036 creates them; both are
 * trusted, so a database owner or a role with CREATE on the database may). A server whose role
 * may not create them stops at that migration saying what to ask of the database's owner, and
 * once the owner has created them it migrates.
 */
describe('text search extensions on PostgreSQL', () => {
  let database: TestDatabase;
  const role = `t_noext_${randomBytes(4).toString('hex')}`;
  const admin = () => {
    const client = new pg.Client({ connectionString: database.url });
    return client.connect().then(() => client);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const client = await admin();
    try {
      // Tables in public, but not CREATE on the database: what creating an extension needs.
      await client.query(`create role ${role} login`);
      await client.query(`grant create on schema public to ${role}`);
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await database.drop();
    const client = new pg.Client({ connectionString: process.env.TSARO_TEST_POSTGRES_ADMIN_URL });
    await client.connect();
    await client.query(`drop role if exists ${role}`).finally(() => client.end());
  });

  it('a role that may not create them stops at the migration saying so; after the owner creates them it migrates', async () => {
    const url = new URL(database.url);
    url.username = role;
    const opened = openDatabase(url.toString());
    try {
      await expect(migrateToLatest(opened.db)).rejects.toThrow(/text search needs PostgreSQL's pg_trgm and btree_gin extensions.*create extension pg_trgm; create extension btree_gin;/);
      const client = await admin();
      try {
        await client.query('create extension pg_trgm');
        await client.query('create extension btree_gin');
      } finally {
        await client.end();
      }
      await migrateToLatest(opened.db);
      // Its text indexes are there (built in the migration: the tables are empty).
      const check = await admin();
      try {
        const { rows } = await check.query(`select indexname from pg_indexes where indexname in ('access_logs_text', 'incidents_text') order by indexname`);
        expect(rows.map((row: { indexname: string }) => row.indexname)).toEqual(['access_logs_text', 'incidents_text']);
      } finally {
        await check.end();
      }
    } finally {
      await opened.close();
    }
  }, 120_000);
});
