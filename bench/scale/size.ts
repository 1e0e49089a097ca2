/**
 * How big the year is on disk: the whole database, its tables and its indexes (SQLite: the
 * b-trees of `dbstat`, the FTS5 tables counted as text indexes; PostgreSQL: `pg_table_size`
 * and `pg_indexes_size` of every table).
 */
import { statSync } from 'node:fs';
import { sqlitePath, type Conn } from './conn.ts';

export interface SizeReport {
  bytes: number;
  tableBytes: number;
  indexBytes: number;
  /** Of indexBytes: the text indexes (FTS5 trigram tables, GIN trigram indexes). */
  textIndexBytes: number;
  /** The biggest tables with their indexes. */
  tables: { name: string; rows?: number; tableBytes: number; indexBytes: number }[];
}

export async function measureSize(conn: Conn, url: string): Promise<SizeReport> {
  if (conn.engine === 'sqlite') {
    const objects = await conn.rows<{ name: string; type: string; tbl_name: string }>(`select name, type, tbl_name from sqlite_master where type in ('table', 'index')`);
    const sizes = new Map((await conn.rows<{ name: string; bytes: number }>('select name, sum(pgsize) as bytes from dbstat group by name')).map((row) => [row.name, Number(row.bytes)]));
    const kind = new Map(objects.map((o) => [o.name, o]));
    const perTable = new Map<string, { tableBytes: number; indexBytes: number }>();
    let tableBytes = 0;
    let indexBytes = 0;
    let textIndexBytes = 0;
    for (const [name, bytes] of sizes) {
      const object = kind.get(name);
      const fts = /_fts(_|$)/.test(name);
      const owner = fts ? name.replace(/_fts.*$/, '') : (object?.tbl_name ?? name.replace(/^sqlite_autoindex_(.*)_\d+$/, '$1'));
      const isIndex = fts || object?.type === 'index' || name.startsWith('sqlite_autoindex');
      const entry = perTable.get(owner) ?? { tableBytes: 0, indexBytes: 0 };
      if (isIndex) {
        entry.indexBytes += bytes;
        indexBytes += bytes;
        if (fts) textIndexBytes += bytes;
      } else {
        entry.tableBytes += bytes;
        tableBytes += bytes;
      }
      perTable.set(owner, entry);
    }
    const path = sqlitePath(url);
    const wal = (() => { try { return statSync(`${path}-wal`).size; } catch { return 0; } })();
    return { bytes: statSync(path).size + wal, tableBytes, indexBytes, textIndexBytes, tables: top(perTable) };
  }
  const rows = await conn.rows<{ name: string; t: string; i: string; text: string }>(`
    select c.relname as name, pg_table_size(c.oid) as t, pg_indexes_size(c.oid) as i,
      coalesce((select sum(pg_relation_size(x.indexrelid)) from pg_index x join pg_class ic on ic.oid = x.indexrelid join pg_am am on am.oid = ic.relam where x.indrelid = c.oid and am.amname = 'gin'), 0) as text
    from pg_class c where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`);
  const bytes = (await conn.rows<{ bytes: string }>('select pg_database_size(current_database()) as bytes'))[0]!.bytes;
  const perTable = new Map(rows.map((row) => [row.name, { tableBytes: Number(row.t), indexBytes: Number(row.i) }]));
  return {
    bytes: Number(bytes),
    tableBytes: rows.reduce((sum, row) => sum + Number(row.t), 0),
    indexBytes: rows.reduce((sum, row) => sum + Number(row.i), 0),
    textIndexBytes: rows.reduce((sum, row) => sum + Number(row.text), 0),
    tables: top(perTable),
  };
}

function top(perTable: Map<string, { tableBytes: number; indexBytes: number }>): SizeReport['tables'] {
  return [...perTable.entries()]
    .map(([name, sizes]) => ({ name, ...sizes }))
    .sort((a, b) => b.tableBytes + b.indexBytes - (a.tableBytes + a.indexBytes))
    .slice(0, 12);
}
