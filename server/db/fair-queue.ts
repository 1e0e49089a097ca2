import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose broad read this is (issue #45): the organization a read-lane route serves, set for the
 * handler's whole run (server/http/define-route.ts), so the lane can take turns between
 * organizations without every store passing it down. Outside a request (jobs, tests): ''.
 */
const readParty = new AsyncLocalStorage<string>();

/** Runs `work` with its broad reads counted as `party`'s. */
export function asReadParty<T>(party: string, work: () => T): T {
  return readParty.run(party, work);
}

/** The party of the broad read being asked now. */
export function currentReadParty(): string {
  return readParty.getStore() ?? '';
}

/**
 * A queue that takes turns between parties: each party's items wait first come first served, and
 * the parties with items waiting are served in rotation, one item each. The read lane's waiting
 * reads (SQLite's threads, PostgreSQL's read pool) use it, so one organization's storm of reports
 * queues behind itself, not in front of every other organization's first page: the next place goes
 * to the party that has waited its turn, whatever the number of reads the other has queued.
 */
export class FairQueue<T> {
  /** Each waiting party's items, in the order the parties take their turns. */
  private readonly parties = new Map<string, T[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(party: string, item: T): void {
    const items = this.parties.get(party);
    if (items) items.push(item);
    else this.parties.set(party, [item]);
    this.count++;
  }

  /** The next item: the first of the party whose turn it is; that party goes to the back of the rotation. */
  shift(): T | undefined {
    for (const [party, items] of this.parties) {
      const item = items.shift()!;
      this.parties.delete(party);
      if (items.length) this.parties.set(party, items);
      this.count--;
      return item;
    }
    return undefined;
  }

  /** Takes `item` out (its wait ran out); false when it was not waiting. */
  remove(item: T): boolean {
    for (const [party, items] of this.parties) {
      const at = items.indexOf(item);
      if (at < 0) continue;
      items.splice(at, 1);
      if (!items.length) this.parties.delete(party);
      this.count--;
      return true;
    }
    return false;
  }

  /** Every waiting item, emptied (closing). */
  drain(): T[] {
    const all = [...this.parties.values()].flat();
    this.parties.clear();
    this.count = 0;
    return all;
  }
}

/**
 * A fixed number of places, handed out at once while one is free; otherwise the asker waits in a
 * FairQueue (turns between the parties) at most `waitMs`, then fails with `busy()`. A place given
 * back goes straight to the next waiter. The read lane's PostgreSQL places and the deep-page
 * places (server/db/paged.ts) are each one of these.
 */
export class FairPlaces {
  private taken = 0;
  private readonly waiting = new FairQueue<{ start(): void }>();

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
    private readonly busy: () => Error,
  ) {}

  take(): Promise<void> {
    if (this.taken < this.size) {
      this.taken++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        start: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.remove(waiter);
        reject(this.busy());
      }, this.waitMs);
      timer.unref();
      this.waiting.push(currentReadParty(), waiter);
    });
  }

  /** A place given back: to the next waiter (the count stays), or free. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.taken--;
  }

  /** `work` in a place, given back when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await work();
    } finally {
      this.give();
    }
  }

  counts(): { running: number; waiting: number } {
    return { running: this.taken, waiting: this.waiting.length };
  }
}
