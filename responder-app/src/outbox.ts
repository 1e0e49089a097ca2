import { openDB, type IDBPDatabase } from 'idb';

/** What the responder did, waiting to reach the server: sent again, unchanged, until it is answered. */
export interface OutboxAction {
  id?: number;
  kind: 'availability' | 'accept' | 'decline' | 'responding' | 'on_scene' | 'resolve';
  method: 'PUT' | 'POST';
  path: string;
  body?: unknown;
  /** What the screen calls it ("On my way, 8 min"). */
  label: string;
  incidentId?: string;
  queuedAt: string;
  attempts: number;
}

export interface Outbox {
  add(action: Omit<OutboxAction, 'id' | 'queuedAt' | 'attempts'>): Promise<void>;
  all(): Promise<OutboxAction[]>;
  remove(id: number): Promise<void>;
  touch(action: OutboxAction): Promise<void>;
  clear(): Promise<void>;
}

/** The outbox in IndexedDB: it survives a reload, a crash of the tab and a phone restart. */
export async function openOutbox(): Promise<Outbox> {
  const db: IDBPDatabase = await openDB('tsaro-responder', 1, {
    upgrade(database) {
      database.createObjectStore('outbox', { keyPath: 'id', autoIncrement: true });
    },
  });
  return {
    async add(action) {
      const tx = db.transaction('outbox', 'readwrite');
      // Only the latest availability matters: an older one not yet sent is replaced.
      if (action.kind === 'availability') {
        for (const waiting of (await tx.store.getAll()) as OutboxAction[]) {
          if (waiting.kind === 'availability') await tx.store.delete(waiting.id!);
        }
      }
      await tx.store.add({ ...action, queuedAt: new Date().toISOString(), attempts: 0 });
      await tx.done;
    },
    all: () => db.getAll('outbox') as Promise<OutboxAction[]>,
    remove: async (id) => void (await db.delete('outbox', id)),
    touch: async (action) => void (await db.put('outbox', { ...action, attempts: action.attempts + 1 })),
    clear: () => db.clear('outbox'),
  };
}
