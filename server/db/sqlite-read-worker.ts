/**
 * One broad read's thread (see sqlite-read-workers.ts): its own query-only connection to the
 * database file, running one statement at a time off the event loop. Plain, erasable
 * TypeScript: Node runs it in a worker thread without a loader.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { addSqliteFunctions } from './sqlite-functions.ts';

const port = parentPort!;
const { path, nice } = workerData as { path: string; nice: number };

// This thread yields the cores to the event loop and the writer: on Linux a thread has its own
// nice value, and /proc/thread-self names its id. Elsewhere it runs at the process's priority.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(threadId) && nice > 0) setPriority(threadId, nice);
} catch {
  // not Linux, or not allowed: the same priority as the rest of the process
}

const db = new SqliteDatabase(path, { timeout: 5_000 });
db.pragma('query_only = ON');
addSqliteFunctions(db);
// Its reads' time limits start now: a thread's start (loading SQLite, opening the file) is not the read's.
port.postMessage({ ready: true });

/** Statements prepared once per text, the most recent few hundred. */
const statements = new Map<string, SqliteDatabase.Statement>();

function prepared(sql: string): SqliteDatabase.Statement {
  let statement = statements.get(sql);
  if (statement) {
    statements.delete(sql);
  } else {
    statement = db.prepare(sql);
    if (statements.size >= 300) statements.delete(statements.keys().next().value!);
  }
  statements.set(sql, statement);
  return statement;
}

port.on('message', (message: { id: number; sql: string; parameters: unknown[] } | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  try {
    const statement = prepared(message.sql);
    if (!statement.reader) throw new Error('a broad read may not write');
    port.postMessage({ id: message.id, rows: statement.all(message.parameters) });
  } catch (err) {
    const { message: text, code } = err as { message?: string; code?: string };
    port.postMessage({ id: message.id, error: { message: String(text ?? err), code } });
  }
});
