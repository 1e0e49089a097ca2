import pg from 'pg';
import type { Logger } from 'pino';
import type { Engine } from '../db/database.ts';
import type { Db } from '../db/schema.ts';
import { listenForOffers } from '../dispatch/offer-ring.ts';
import { offerBellCheck } from './service.ts';

/**
 * The host's one look-out for waiting phones (issue #47): a responder's long poll
 * (`GET /v1/responder/offers?wait=N`) waits on this bell instead of reading the database every
 * 500 ms, so a thousand phones waiting cost one small read per check, not a thousand.
 *
 * - Rung: PostgreSQL NOTIFYs `tsaro_offers` with the responder's id when an offer made pending
 *   commits, on any host (migration 0051); each host LISTENs on its own connection. SQLite is one
 *   host: the dispatch writes ring the bells of this process (server/dispatch/offer-ring.ts).
 * - Checked: one read for every phone waiting on this host (their pending offers, and whether each
 *   is still active with the same token), each `checkEveryMs` while any wait (SQLite 1 s;
 *   PostgreSQL 2 s while its listener is up, 500 ms while it is down), and soon after a ring.
 *   A phone wakes for an offer it has not seen, or when it was deactivated or signed out.
 */
export interface OfferBell {
  /** Resolves when an offer may be open for the responder (`offer`), its sign-in ended (`gone`), or after `ms` (`timeout`). */
  wait(waiter: { responderId: string; tokenHash: string; ms: number; seen: Set<string> }): { done: Promise<'offer' | 'gone' | 'timeout'>; cancel(): void };
  /** Phones waiting on this host now. */
  readonly waiting: number;
  /** Checks run so far (the bench and tests look). */
  readonly checks: number;
  stop(): Promise<void>;
}

export interface OfferBellOptions {
  db: Db;
  engine: Engine;
  databaseUrl: string;
  logger: Logger;
  /** The fallback check's period (default: SQLite 1 s, PostgreSQL 2 s with its listener up). */
  checkEveryMs?: number;
}

interface Waiter {
  responderId: string;
  tokenHash: string;
  seen: Set<string>;
  wake(why: 'offer' | 'gone' | 'timeout'): void;
}


const CHUNK = 500;
/** A ring checks after this (the ringing transaction commits meanwhile); a miss is caught by the next ring or check. */
const RING_DELAY_MS = 15;

export function createOfferBell(options: OfferBellOptions): OfferBell {
  const { db, engine, logger } = options;
  const byResponder = new Map<string, Set<Waiter>>();
  let count = 0;
  let checks = 0;
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  let checkAgain = false;
  let stopped = false;
  let listener: pg.Client | undefined;
  let listening = false;
  let reconnect: NodeJS.Timeout | undefined;

  const period = () => options.checkEveryMs ?? (engine === 'postgres' ? (listening ? 2000 : 500) : 1000);

  function wakeAll(responderId: string, why: 'offer' | 'gone') {
    for (const waiter of [...(byResponder.get(responderId) ?? [])]) waiter.wake(why);
  }

  /** One read for every waiting phone: their pending offers, and their sign-in. */
  function check(): Promise<void> {
    if (checking) {
      checkAgain = true;
      return checking;
    }
    checking = (async () => {
      do {
        checkAgain = false;
        const ids = [...byResponder.keys()];
        for (let i = 0; i < ids.length; i += CHUNK) {
          const chunk = ids.slice(i, i + CHUNK);
          checks++;
          const [offers, signIns] = await offerBellCheck(db, chunk);
          const rows = new Map(signIns.map((row) => [row.responder_id, row]));
          for (const id of chunk) {
            const row = rows.get(id);
            for (const waiter of [...(byResponder.get(id) ?? [])]) {
              if (!row || row.status !== 'active' || row.token_hash !== waiter.tokenHash) waiter.wake('gone');
            }
          }
          for (const offer of offers) {
            for (const waiter of [...(byResponder.get(offer.responder_id) ?? [])]) if (!waiter.seen.has(offer.offer_id)) waiter.wake('offer');
          }
        }
      } while (checkAgain && !stopped);
    })()
      .catch((err: unknown) => logger.warn({ err }, 'offer bell check failed; the next check looks again'))
      .finally(() => (checking = undefined));
    return checking;
  }

  /** The check's timer runs while anyone waits; a phone's next slice joins the running one rather than restart it. */
  function schedule() {
    timer = undefined;
    if (stopped || count === 0) return;
    timer = setTimeout(() => void check().finally(schedule), period());
    timer.unref();
  }

  const self = {
    ring(responderIds: readonly string[]) {
      if (engine === 'postgres' || stopped) return;
      if (!responderIds.some((id) => byResponder.has(id)) || soon) return;
      soon = setTimeout(() => {
        soon = undefined;
        void check();
      }, RING_DELAY_MS);
      soon.unref();
    },
  };
  const unlisten = listenForOffers(self);

  async function listen(): Promise<void> {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'tsaro-offer-bell', keepAlive: true, connectionTimeoutMillis: 10_000 });
    listener = client;
    const down = (err?: unknown) => {
      if (listener !== client) return;
      if (listening) logger.warn({ err }, 'offer bell listener lost; checking every 500 ms until it is back');
      listening = false;
      listener = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      if (stopped) return;
      reconnect = setTimeout(() => void listen(), 500);
      reconnect.unref();
    };
    client.on('error', down);
    client.on('end', () => down());
    client.on('notification', (message) => {
      const id = message.payload ?? '';
      // The NOTIFY names the responder; whichever offer it is, the waiters read their offers again.
      if (byResponder.has(id)) wakeAll(id, 'offer');
    });
    try {
      await client.connect();
      await client.query('LISTEN tsaro_offers');
    } catch (err) {
      down(err);
      return;
    }
    if (listener !== client || stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    listening = true;
    // Anything made while nobody listened.
    if (count) void check();
  }

  return {
    wait({ responderId, tokenHash, ms, seen }) {
      let waiter!: Waiter;
      let expiry: NodeJS.Timeout;
      const done = new Promise<'offer' | 'gone' | 'timeout'>((resolve) => {
        waiter = {
          responderId,
          tokenHash,
          seen,
          wake(why) {
            if (!remove()) return;
            resolve(why);
          },
        };
        expiry = setTimeout(() => waiter.wake('timeout'), ms);
        expiry.unref();
      });
      const remove = () => {
        const set = byResponder.get(responderId);
        if (!set?.delete(waiter)) return false;
        clearTimeout(expiry);
        count--;
        if (!set.size) byResponder.delete(responderId);
        return true;
      };
      const set = byResponder.get(responderId) ?? new Set();
      set.add(waiter);
      byResponder.set(responderId, set);
      count++;
      if (engine === 'postgres' && !listener && !stopped) void listen();
      if (!timer) schedule();
      return { done, cancel: () => void remove() };
    },
    get waiting() {
      return count;
    },
    get checks() {
      return checks;
    },
    async stop() {
      stopped = true;
      unlisten();
      clearTimeout(timer);
      clearTimeout(soon);
      clearTimeout(reconnect);
      for (const set of [...byResponder.values()]) for (const waiter of [...set]) waiter.wake('timeout');
      const client = listener;
      listener = undefined;
      listening = false;
      client?.removeAllListeners();
      client?.on('error', () => undefined);
      await Promise.allSettled([client?.end(), checking]);
    },
  };
}
