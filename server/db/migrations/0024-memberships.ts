import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Memberships (issue #32): a person's organization and role move from `people` to their own
 * table, one row per person and organization, so the owner rule, role-bound links, two-step
 * sign-in and the audit log stand on what several organizations per person (issue #34) will
 * use. For now a person has one membership: a unique index says so, and the code relies on it;
 * the change that lets a person join a second organization drops that index.
 *
 * `people` keeps who the person is (email, name, password, second step); on SQLite, whose
 * ALTER TABLE cannot drop a column that a foreign key names, the table is rebuilt in this
 * migration's transaction, its two child tables (sessions, recovery codes) set aside and put
 * back, so foreign keys stay on throughout.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await createMemberships(db);
    await sql`insert into memberships (organization_id, person_id, role, created_at, updated_at) select organization_id, person_id, role, created_at, updated_at from people`.execute(db);
    await sql`alter table people drop column organization_id, drop column role`.execute(db);
    return;
  }

  await sql`create table stash_memberships as select organization_id, person_id, role, created_at, updated_at from people`.execute(db);
  await sql`create table stash_recovery_codes as select * from recovery_codes`.execute(db);
  await sql`create table stash_console_sessions as select * from console_sessions`.execute(db);
  await sql`drop table recovery_codes`.execute(db);
  await sql`drop table console_sessions`.execute(db);

  await db.schema
    .createTable('people_rebuilt')
    .addColumn('person_id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('totp_last_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_active_at', 'text')
    .execute();
  await sql`
    insert into people_rebuilt (person_id, email, name, password_hash, totp_secret, totp_pending_secret, totp_enabled, totp_last_step, created_at, updated_at, last_active_at)
    select person_id, email, name, password_hash, totp_secret, totp_pending_secret, totp_enabled, totp_last_step, created_at, updated_at, last_active_at from people
  `.execute(db);
  await sql`drop table people`.execute(db);
  await sql`alter table people_rebuilt rename to people`.execute(db);

  await createMemberships(db);
  await sql`insert into memberships select * from stash_memberships`.execute(db);

  // The two child tables as 0017 made them, with their rows back.
  await db.schema
    .createTable('recovery_codes')
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.person_id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['person_id', 'code_hash'])
    .execute();
  await db.schema
    .createTable('console_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.person_id'))
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_active_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('console_sessions_by_person').on('console_sessions').columns(['person_id', 'created_at']).execute();
  await sql`insert into recovery_codes select * from stash_recovery_codes`.execute(db);
  await sql`insert into console_sessions select * from stash_console_sessions`.execute(db);
  for (const stash of ['stash_memberships', 'stash_recovery_codes', 'stash_console_sessions']) await sql`drop table ${sql.table(stash)}`.execute(db);
}

async function createMemberships(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('memberships')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.person_id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['organization_id', 'person_id'])
    .execute();
  // One organization per person, for now (see above).
  await db.schema.createIndex('memberships_one_per_person').on('memberships').column('person_id').unique().execute();
  await db.schema.createIndex('memberships_by_role').on('memberships').columns(['organization_id', 'role']).execute();
}
