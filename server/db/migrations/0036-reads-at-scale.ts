import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Reads that cost what their answer is worth, not what the table holds (issue #45).
 *
 * - **Tallies** (server/db/tallies.ts): per tenant and UTC day, counts (and sums, histograms) of
 *   settled rows by the values lists filter on; each tallied table gains `tallied` (0 until the
 *   background fold has counted the row) and, later, a partial index of the rows still at 0.
 * - **Indexes for every list's filters and order** and **text search**: trigram indexes
 *   (PostgreSQL's pg_trgm, with btree_gin so the tenant leads the same index) or SQLite's FTS5
 *   with the trigram tokenizer, over visitor names and phones, codes and purposes, and incident
 *   subjects. Erasing a visitor's name takes it out of the index (the FTS triggers below; a GIN
 *   index follows its row).
 *
 * On SQLite the indexes are built here, in the migration (one host, and SQLite has no online
 * index build: any build holds the write lock). On PostgreSQL this migration builds only the
 * indexes of small tables (under `ONLINE_FROM_ROWS` rows: a new or young database, in moments);
 * a big table's indexes are built after the hosts serve, `CREATE INDEX CONCURRENTLY`, by one
 * host (server/db/online-indexes.ts), so an upgrade of a big database stops nobody; until an
 * index is there its queries run, only slower.
 */

/** An index lists need: its table, its columns (or expressions) and, for a partial one, its predicate. */
export interface ListIndex {
  name: string;
  table: string;
  /** Column names, or SQL expressions. */
  columns: readonly string[];
  where?: string;
  /** PostgreSQL only: a GIN index with these operator classes per column (text search). SQLite's search is FTS5 below. */
  gin?: readonly string[];
}

/**
 * The searched columns of a row as one text, for PostgreSQL's trigram index and its `ILIKE`
 * (server/db/text-search.ts): each column (an absent one as '') joined by chr(31), a character no
 * search holds (a search that holds it is matched column by column), so a match of the joined
 * text is a match in one of the columns and nowhere across two. The index and the query must
 * spell it alike: the planner matches the expression itself.
 */
export const searchedText = (columns: readonly string[]) => `(${columns.map((column) => `coalesce(${column}, '')`).join(" || chr(31) || ")})`;

/**
 * A table's text index on PostgreSQL (migration 0063): the tenant (btree_gin) and the searched
 * columns joined, one trigram column, so a search reads the tenant's entries and the text's
 * trigrams once, not once per column as 0036's index of a trigram column each did.
 */
const textIndex = (table: string, columns: readonly string[]): ListIndex => ({
  name: `${table}_text`,
  table,
  columns: ['organization_id', 'environment', searchedText(columns)],
  gin: ['', '', 'gin_trgm_ops'],
});

const tenantTime = (table: string, time: string, prefix: string, rest: Record<string, string>): ListIndex[] =>
  Object.entries(rest).map(([suffix, column]) => ({ name: `${prefix}_by_${suffix}`, table, columns: ['organization_id', 'environment', column, time] }));

/** Every index of this migration: built here on SQLite, online after start on PostgreSQL. */
export const LIST_INDEXES: readonly ListIndex[] = [
  // Visits, newest check-in first (the time index of 0002 serves the unfiltered list and the cursor).
  ...tenantTime('access_logs', 'checked_in_at', 'access_logs', { status: 'status', phone: 'visitor_phone', entry_point: 'entry_point' }),
  { name: 'access_logs_untallied', table: 'access_logs', columns: ['organization_id', 'environment', 'checked_in_at'], where: 'tallied = 0' },
  // PostgreSQL's text indexes: since migration 0063 one trigram column of the searched columns joined (`searchedText`).
  textIndex('access_logs', ['visitor_name', 'visitor_phone']),
  // Incidents, newest first.
  ...tenantTime('incidents', 'created_at', 'incidents', { status: 'status', category: 'category', severity: 'severity' }),
  { name: 'incidents_untallied', table: 'incidents', columns: ['organization_id', 'environment', 'created_at'], where: 'tallied = 0' },
  textIndex('incidents', ['subject_name', 'subject_phone']),
  // Access codes, newest first.
  ...tenantTime('access_codes', 'created_at', 'access_codes', { status: 'status', phone: 'visitor_phone', site: 'site_id' }),
  { name: 'access_codes_untallied', table: 'access_codes', columns: ['organization_id', 'environment', 'created_at'], where: 'tallied = 0' },
  textIndex('access_codes', ['code', 'visitor_name', 'visitor_phone', 'purpose']),
  // The event log, newest first: by type and by the resource it is about.
  ...tenantTime('events', 'created_at', 'events', { type: 'type', resource: 'resource_id', site: 'site_id' }),
  { name: 'events_untallied', table: 'events', columns: ['organization_id', 'environment', 'created_at'], where: 'tallied = 0' },
  // The audit log (both environments), newest first.
  { name: 'audit_log_by_actor', table: 'audit_log', columns: ['organization_id', 'actor_id', 'created_at'] },
  { name: 'audit_log_by_resource', table: 'audit_log', columns: ['organization_id', 'resource_id', 'created_at'] },
  { name: 'audit_log_by_action', table: 'audit_log', columns: ['organization_id', 'action', 'created_at'] },
  { name: 'audit_log_untallied', table: 'audit_log', columns: ['organization_id', 'created_at'], where: 'tallied = 0' },
  // Text messages, newest first.
  ...tenantTime('text_messages', 'created_at', 'text_messages', { incident: 'incident_id', status: 'status' }),
  { name: 'text_messages_untallied', table: 'text_messages', columns: ['organization_id', 'environment', 'created_at'], where: 'tallied = 0' },
  // An endpoint's deliveries, newest attempt first: `webhook_deliveries_by_endpoint` of 0003 (0036's copy of it was dropped by 0058).
  { name: 'webhook_deliveries_by_event', table: 'webhook_deliveries', columns: ['endpoint_id', 'event_id', 'attempted_at'] },
  { name: 'webhook_deliveries_untallied', table: 'webhook_deliveries', columns: ['endpoint_id', 'attempted_at'], where: 'tallied = 0' },
  // Sweeps: the idempotency purge and the retention erasure take small batches in order.
  { name: 'access_logs_to_erase', table: 'access_logs', columns: ['organization_id', 'checked_out_at'], where: "status = 'checked_out' and erased_at is null" },
];

/** PostgreSQL: a table with this many rows or more gets its indexes online, after start. */
export const ONLINE_FROM_ROWS = 100_000;

/** The tables the background fold tallies. */
const TALLIED = ['access_logs', 'incidents', 'access_codes', 'events', 'audit_log', 'text_messages', 'webhook_deliveries'];

/** SQLite's text indexes: FTS5 with the trigram tokenizer over the table's own rows (external content). */
const FTS = [
  { table: 'access_logs', index: 'access_logs_fts', columns: ['visitor_name', 'visitor_phone'] },
  { table: 'incidents', index: 'incidents_fts', columns: ['subject_name', 'subject_phone'] },
  { table: 'access_codes', index: 'access_codes_fts', columns: ['code', 'visitor_name', 'visitor_phone', 'purpose'] },
];

/** `create index` for one list index, on either engine (`concurrently` for PostgreSQL's online build). */
export function createIndexSql(index: ListIndex, postgres: boolean, concurrently: boolean): string {
  const columns = index.columns.map((column, i) => (postgres && index.gin?.[i] ? `${column} ${index.gin[i]}` : column)).join(', ');
  const using = postgres && index.gin ? ' using gin' : '';
  return `create index ${concurrently ? 'concurrently ' : ''}if not exists ${index.name} on ${index.table}${using} (${columns})${index.where ? ` where ${index.where}` : ''}`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of TALLIED) await db.schema.alterTable(table).addColumn('tallied', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  const tallyTable = async (name: string, scope: string[], dims: Array<[string, 'text' | 'integer']>, measures: Array<[string, 'integer' | 'text']>) => {
    let table = db.schema.createTable(name);
    for (const column of scope) table = table.addColumn(column, 'text', (c) => c.notNull());
    table = table.addColumn('day', 'text', (c) => c.notNull());
    for (const [column, type] of dims) table = table.addColumn(column, type, (c) => c.notNull());
    table = table.addColumn('n', 'integer', (c) => c.notNull());
    for (const [column, type] of measures) table = table.addColumn(column, type, (c) => (type === 'integer' ? c.notNull().defaultTo(0) : c));
    table = table.addPrimaryKeyConstraint(`${name}_key`, [...scope, 'day', ...dims.map(([column]) => column)] as never);
    // Clustered by the key on SQLite: a tenant's days are one range of the table.
    if (!postgres) table = table.modifyEnd(sql`without rowid`);
    await table.execute();
  };
  const tenant = ['organization_id', 'environment'];
  await tallyTable('visit_tallies', tenant, [['site_id', 'text'], ['entry_point', 'text'], ['method', 'text'], ['status', 'text']], [['minutes', 'integer']]);
  await tallyTable('incident_tallies', tenant, [['site_id', 'text'], ['status', 'text'], ['category', 'text'], ['severity', 'text']], []);
  await tallyTable('incident_time_tallies', tenant, [['site_id', 'text']], [['to_assign', 'text'], ['to_arrive', 'text']]);
  await tallyTable('code_tallies', tenant, [['site_id', 'text'], ['status', 'text']], [['used', 'integer']]);
  await tallyTable('event_tallies', tenant, [['site_id', 'text'], ['type', 'text'], ['test', 'integer']], []);
  await tallyTable('audit_tallies', ['organization_id'], [['environment', 'text'], ['actor_type', 'text'], ['action', 'text']], []);
  await tallyTable('message_tallies', tenant, [['site_id', 'text'], ['status', 'text'], ['reason', 'text']], []);
  await tallyTable('delivery_tallies', ['endpoint_id'], [['status', 'text']], []);
  // The incident tallies of incidents that have a second rollup keep the same tallied flag: one fold writes both.

  if (postgres) {
    try {
      await sql`create extension if not exists pg_trgm`.execute(db);
      await sql`create extension if not exists btree_gin`.execute(db);
    } catch (err) {
      throw new Error(
        `Tsaro's text search needs PostgreSQL's pg_trgm and btree_gin extensions (both ship with PostgreSQL's contrib modules and are trusted): ask the database's owner to run "create extension pg_trgm; create extension btree_gin;" in this database, then start again (${err instanceof Error ? err.message : String(err)})`,
        { cause: err },
      );
    }
    const small = new Map<string, boolean>();
    for (const index of LIST_INDEXES) {
      if (!small.has(index.table)) {
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from (select 1 from ${sql.table(index.table)} limit ${ONLINE_FROM_ROWS}) s`.execute(db);
        small.set(index.table, Number(rows[0]!.n) < ONLINE_FROM_ROWS);
      }
      if (small.get(index.table)) await sql.raw(createIndexSql(index, true, false)).execute(db);
    }
    return;
  }

  for (const index of LIST_INDEXES) if (!index.gin) await sql.raw(createIndexSql(index, false, false)).execute(db);
  for (const { table, index, columns } of FTS) {
    const list = columns.join(', ');
    const news = columns.map((column) => `new.${column}`).join(', ');
    const olds = columns.map((column) => `old.${column}`).join(', ');
    await sql.raw(`create virtual table ${index} using fts5(${list}, content='${table}', content_rowid='rowid', tokenize='trigram')`).execute(db);
    await sql.raw(`create trigger ${index}_insert after insert on ${table} begin insert into ${index}(rowid, ${list}) values (new.rowid, ${news}); end`).execute(db);
    // Only when an indexed column changes (an erasure): a status change leaves the index alone.
    await sql
      .raw(
        `create trigger ${index}_update after update of ${list} on ${table} begin insert into ${index}(${index}, rowid, ${list}) values ('delete', old.rowid, ${olds}); insert into ${index}(rowid, ${list}) values (new.rowid, ${news}); end`,
      )
      .execute(db);
    await sql.raw(`create trigger ${index}_delete after delete on ${table} begin insert into ${index}(${index}, rowid, ${list}) values ('delete', old.rowid, ${olds}); end`).execute(db);
    await sql.raw(`insert into ${index}(${index}) values ('rebuild')`).execute(db);
  }
}
