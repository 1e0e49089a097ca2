import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Tallies by month (issue #45): each tallies table of 0036 gets a twin, `<table>_by_month`, with
 * the same columns, whose `day` holds the UTC month (`YYYY-MM`). The background fold writes both
 * in one transaction (server/db/tallies.ts), and a window reads its whole months from the twin
 * and only the days at its ends by day: incident analytics over a year merged 365 days of
 * histograms per site, now about twelve months and the month's odd days.
 *
 * Filled here from the day tallies, so counts stay exact across the upgrade. Hosts of the
 * version before fold into the day tallies only: upgrade every host together (docs/operations.md).
 */
interface TallyTable {
  name: string;
  scope: string[];
  dims: Array<[string, 'text' | 'integer']>;
  /** Integer sums (added) and JSON histograms (merged). */
  sums: string[];
  histograms: string[];
}

const tenant = ['organization_id', 'environment'];

/** The tallies tables of migration 0036, as it made them. */
const TALLY_TABLES: TallyTable[] = [
  { name: 'visit_tallies', scope: tenant, dims: [['site_id', 'text'], ['entry_point', 'text'], ['method', 'text'], ['status', 'text']], sums: ['minutes'], histograms: [] },
  { name: 'incident_tallies', scope: tenant, dims: [['site_id', 'text'], ['status', 'text'], ['category', 'text'], ['severity', 'text']], sums: [], histograms: [] },
  { name: 'incident_time_tallies', scope: tenant, dims: [['site_id', 'text']], sums: [], histograms: ['to_assign', 'to_arrive'] },
  { name: 'code_tallies', scope: tenant, dims: [['site_id', 'text'], ['status', 'text']], sums: ['used'], histograms: [] },
  { name: 'event_tallies', scope: tenant, dims: [['site_id', 'text'], ['type', 'text'], ['test', 'integer']], sums: [], histograms: [] },
  { name: 'audit_tallies', scope: ['organization_id'], dims: [['environment', 'text'], ['actor_type', 'text'], ['action', 'text']], sums: [], histograms: [] },
  { name: 'message_tallies', scope: tenant, dims: [['site_id', 'text'], ['status', 'text'], ['reason', 'text']], sums: [], histograms: [] },
  { name: 'delivery_tallies', scope: ['endpoint_id'], dims: [['status', 'text']], sums: [], histograms: [] },
];

/** Histogram rows merged per month in memory, written this many a statement. */
const ROWS_PER_INSERT = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const tally of TALLY_TABLES) {
    const name = `${tally.name}_by_month`;
    const dims = tally.dims.map(([column]) => column);
    const key = [...tally.scope, 'day', ...dims];
    let table = db.schema.createTable(name);
    for (const column of tally.scope) table = table.addColumn(column, 'text', (c) => c.notNull());
    table = table.addColumn('day', 'text', (c) => c.notNull());
    for (const [column, type] of tally.dims) table = table.addColumn(column, type, (c) => c.notNull());
    table = table.addColumn('n', 'integer', (c) => c.notNull());
    for (const column of tally.sums) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
    for (const column of tally.histograms) table = table.addColumn(column, 'text');
    table = table.addPrimaryKeyConstraint(`${name}_key`, key as never);
    if (!postgres) table = table.modifyEnd(sql`without rowid`);
    await table.execute();

    const ref = (column: string) => sql.ref(column);
    const month = sql`substr(day, 1, 7)`;
    const others = [...tally.scope, ...dims];
    if (tally.histograms.length === 0) {
      // Counts and sums add up in SQL.
      await sql`
        insert into ${sql.table(name)} (${sql.join([...key, 'n', ...tally.sums].map(ref))})
        select ${sql.join([...tally.scope.map(ref), sql`${month} as day`, ...dims.map(ref), sql`sum(n)`, ...tally.sums.map((column) => sql`sum(${ref(column)})`)])}
        from ${sql.table(tally.name)}
        group by ${sql.join([...others.map(ref), month])}`.execute(db);
      continue;
    }
    // Histograms (JSON of bucket → count) are merged here: a few rows per site and day.
    const { rows } = await sql<Record<string, unknown>>`select ${sql.join([...key, 'n', ...tally.histograms].map(ref))} from ${sql.table(tally.name)}`.execute(db);
    const merged = new Map<string, { key: unknown[]; n: number; histograms: Array<Record<string, number>> }>();
    for (const row of rows) {
      const values = key.map((column) => (column === 'day' ? String(row.day).slice(0, 7) : row[column]));
      const id = JSON.stringify(values);
      let group = merged.get(id);
      if (!group) merged.set(id, (group = { key: values, n: 0, histograms: tally.histograms.map(() => ({})) }));
      group.n += Number(row.n);
      tally.histograms.forEach((column, i) => {
        for (const [bucket, count] of Object.entries(JSON.parse(String(row[column] ?? '{}')) as Record<string, number>)) {
          group.histograms[i]![bucket] = (group.histograms[i]![bucket] ?? 0) + count;
        }
      });
    }
    const groups = [...merged.values()];
    for (let i = 0; i < groups.length; i += ROWS_PER_INSERT) {
      const values = groups.slice(i, i + ROWS_PER_INSERT).map((group) => sql`(${sql.join([...group.key, group.n, ...group.histograms.map((h) => JSON.stringify(h))])})`);
      await sql`insert into ${sql.table(name)} (${sql.join([...key, 'n', ...tally.histograms].map(ref))}) values ${sql.join(values)}`.execute(db);
    }
  }
}
