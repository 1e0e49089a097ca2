import pg from 'pg';
import type { Logger } from 'pino';
import { setNewest } from '../bounded-map.ts';
import { directReadOf } from '../db/direct-read.ts';
import type { Db } from '../db/schema.ts';
import { authRevision, type KeyWithOrganization } from './store.ts';

/**
 * An in-process cache of API keys (by secret hash) with their organization, that never serves
 * a key after a change that could refuse it. Migration 0014's triggers bump `auth_revision` on
 * every such change (revoke, scopes, plan, suspension, deletion) from any writer, and on
 * PostgreSQL also NOTIFY `tsaro_auth`.
 *
 * - SQLite: the revision row is read per request (one indexed read of one row on the
 *   query-only connection); a different revision empties the cache before it is used.
 * - PostgreSQL: a dedicated connection LISTENs; a notification empties the cache. While that
 *   connection is down the cache is not trusted (every request reads the database), and after
 *   it is back the cache starts empty: a notification missed meanwhile cannot leave a stale key.
 * - A lookup that started before an invalidation is never stored after it (a generation count).
 * - Unknown keys are not cached: a key created a moment ago works at once.
 */
export interface KeyCache {
  lookup(secretHash: string, load: () => Promise<KeyWithOrganization | undefined>): Promise<KeyWithOrganization | undefined>;
  /**
   * This host is about to change keys (a revoke through the API): the cache is bypassed until
   * the returned release is called once the change has answered, then starts empty. Its own
   * client's next request never depends on the NOTIFY having arrived.
   */
  hold(): () => void;
  close(): Promise<void>;
}

const CAPACITY = 10_000;

class Entries {
  private readonly map = new Map<string, KeyWithOrganization>();
  generation = 0;
  held = 0;

  hold(): () => void {
    this.held++;
    this.clear();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.clear();
    };
  }

  get(hash: string) {
    return this.held ? undefined : this.map.get(hash);
  }
  set(hash: string, value: KeyWithOrganization, generation: number) {
    if (generation !== this.generation || this.held) return;
    setNewest(this.map, hash, value, CAPACITY);
  }
  clear() {
    this.map.clear();
    this.generation++;
  }
}

/** No cache: every request reads the key (what a caller without a cache gets). */
export const uncachedKeys: KeyCache = { lookup: (_hash, load) => load(), hold: () => () => undefined, close: async () => undefined };

/**
 * SQLite's `data_version` of the query-only connection: it changes whenever any other connection
 * (this process's writer, the CLI, another process) commits, and costs no table read. Undefined
 * without that connection (an in-memory database).
 */
function dataVersionOf(db: Db): unknown {
  return directReadOf(db)?.('pragma data_version', [])?.rows[0];
}

export function createSqliteKeyCache(db: Db): KeyCache {
  const entries = new Entries();
  let revision: number | undefined;
  // The data_version the revision was read at: while it stands nothing has committed since, so
  // the revision stands too and is not read again (a GET-only load reads it once per write).
  let revisionAt: number | undefined;
  return {
    async lookup(hash, load) {
      const version = dataVersionOf(db) as { data_version: number } | undefined;
      let current = revision;
      if (version === undefined || version.data_version !== revisionAt || current === undefined) {
        current = await authRevision(db);
        revisionAt = version?.data_version;
      }
      if (current === undefined) return load();
      if (current !== revision) {
        entries.clear();
        revision = current;
      }
      const cached = entries.get(hash);
      if (cached) return cached;
      const generation = entries.generation;
      const found = await load();
      if (found) entries.set(hash, found, generation);
      return found;
    },
    hold: () => entries.hold(),
    close: async () => undefined,
  };
}

export interface PostgresKeyCacheOptions {
  url: string;
  logger: Logger;
  /** First wait before reconnecting the listener; doubles up to 5 s. */
  retryMs?: number;
  /** A listener connection not made within this is given up and tried again (DATABASE_CONNECT_TIMEOUT_S). */
  connectTimeoutMs?: number;
}

export interface PostgresKeyCache extends KeyCache {
  /** Whether the listener is up and the cache trusted (tests wait on it). */
  readonly trusted: boolean;
  /** Resolves once the listener is up for the first time. */
  ready: Promise<void>;
  /** Notifications received (tests wait for another process's change to arrive). */
  readonly notifications: number;
}

export function createPostgresKeyCache(options: PostgresKeyCacheOptions): PostgresKeyCache {
  const entries = new Entries();
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = options.retryMs ?? 100;
  let notifications = 0;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const down = (err?: unknown) => {
    if (listening) options.logger.warn({ err }, 'API-key cache listener lost; keys are read from the database until it is back');
    listening = false;
    entries.clear();
    const dead = client;
    client = undefined;
    dead?.removeAllListeners();
    dead?.on('error', () => undefined);
    dead?.end().catch(() => undefined);
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, 5_000);
  };

  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.url,
      application_name: 'tsaro-key-cache',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      // A peer gone without a word (a failover, a cut link) is noticed, and the cache distrusted.
      keepAlive: true,
    });
    client = next;
    next.on('error', (err) => client === next && down(err));
    next.on('end', () => client === next && down());
    next.on('notification', () => {
      notifications++;
      entries.clear();
    });
    try {
      await next.connect();
      await next.query('LISTEN tsaro_auth');
    } catch (err) {
      if (client === next) down(err);
      return;
    }
    if (client !== next || closed) return;
    // Whatever changed while nobody listened is unknown: start empty.
    entries.clear();
    listening = true;
    retryMs = options.retryMs ?? 100;
    markReady();
  };
  void connect();

  return {
    get trusted() {
      return listening;
    },
    ready,
    async lookup(hash, load) {
      if (!listening) return load();
      const cached = entries.get(hash);
      if (cached) return cached;
      const generation = entries.generation;
      const found = await load();
      if (found && listening) entries.set(hash, found, generation);
      return found;
    },
    hold: () => entries.hold(),
    get notifications() {
      return notifications;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      listening = false;
      const last = client;
      client = undefined;
      last?.removeAllListeners();
      last?.on('error', () => undefined);
      await last?.end().catch(() => undefined);
    },
  };
}
