import { Worker } from 'node:worker_threads';

/** Copies a SQLite file's WAL into the database on a thread of its own (no fsync on the event loop). */
export interface Checkpointer {
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A worker thread with its own connection (sqlite-checkpoint-worker.ts). The group committer
 * asks it between batches, with its writer idle and its reader unpinned, so the copy is whole
 * and the next batch starts the WAL again from the beginning.
 */
export function startCheckpointer(path: string): Checkpointer {
  const worker = new Worker(new URL('./sqlite-checkpoint-worker.ts', import.meta.url), { workerData: { path } });
  worker.unref();
  let next = 0;
  const pending = new Map<number, { done(): void; fail(err: Error): void }>();
  let exited: Error | undefined;
  worker.on('message', (message: { id: number; error?: string }) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.fail(new Error(`checkpoint failed: ${message.error}`));
    else waiting?.done();
  });
  const failAll = (err: Error) => {
    exited = err;
    for (const waiting of pending.values()) waiting.fail(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the checkpoint thread exited (code ${code})`)));
  return {
    checkpoint() {
      if (exited) return Promise.reject(exited);
      const id = ++next;
      return new Promise<void>((done, fail) => {
        pending.set(id, { done, fail });
        worker.postMessage({ id });
      });
    },
    async close() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // until it has closed its connection
      worker.postMessage('close');
      await gone;
    },
  };
}
