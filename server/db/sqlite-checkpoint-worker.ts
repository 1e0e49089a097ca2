/**
 * The SQLite checkpointer's thread (see sqlite-checkpointer.ts): its own connection to the
 * database file, which copies the WAL into the database when asked. Plain, erasable TypeScript:
 * Node runs it in a worker thread without a loader.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

const port = parentPort!;
const db = new SqliteDatabase((workerData as { path: string }).path, { timeout: 5_000 });
// NORMAL: a checkpoint syncs the WAL before copying and the database file after.
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');

port.on('message', (message: { id: number } | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    port.postMessage({ id: message.id, result });
  } catch (err) {
    port.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
