import type { Logger } from 'pino';
import type { RateLimitStore, WindowState } from './store.ts';

/** A shared store that can say whether it answers (the Redis store). */
export interface SharedRateLimitStore extends RateLimitStore {
  /** Resolves when the shared store answers within its command timeout, rejects otherwise. */
  ping(): Promise<void>;
}

/** Where rate limits are kept right now: `shared` (Redis), `local` (this host, Redis down), or `memory` (no Redis configured). */
export type RateLimitMode = 'shared' | 'local' | 'memory';

export interface ResilientRateLimitStore extends RateLimitStore {
  mode(): RateLimitMode;
  /** Asks the shared store now (health checks): a failure switches to the local store at once. */
  check(): Promise<RateLimitMode>;
  /** Called on every switch; metrics count them. */
  onSwitch(listener: (mode: RateLimitMode) => void): void;
}

/**
 * Redis is an accelerator, not a single point of failure: a circuit breaker in front of the
 * shared store. The first command that fails or times out opens it; from then on every window
 * is kept in this host's memory (the limit holds per host) and no request waits on Redis. A
 * background probe pings Redis every `probeIntervalMs`; the first answer closes the breaker and
 * the shared windows are used again. Each switch is logged once.
 */
export function createResilientRateLimitStore(
  shared: SharedRateLimitStore,
  local: RateLimitStore,
  deps: { logger: Logger; probeIntervalMs: number },
): ResilientRateLimitStore {
  let down = false;
  let probe: NodeJS.Timeout | undefined;
  let probing = false;
  let closed = false;
  const listeners: ((mode: RateLimitMode) => void)[] = [];
  const switched = (mode: RateLimitMode) => listeners.forEach((listener) => listener(mode));

  function open(err: unknown) {
    if (down || closed) return;
    down = true;
    deps.logger.warn({ err }, 'Redis is not answering: rate limits are now kept per host until it answers again');
    switched('local');
    probe = setInterval(() => void probeOnce(), deps.probeIntervalMs);
    probe.unref();
  }

  async function probeOnce() {
    if (probing || !down || closed) return;
    probing = true;
    try {
      await shared.ping();
      if (!down || closed) return;
      down = false;
      clearInterval(probe);
      probe = undefined;
      // The same level as the fallback, so a log kept at `warn` shows the outage's end too.
      deps.logger.warn('Redis answers again: rate limits are shared across hosts again');
      switched('shared');
    } catch {
      // still down: the next tick asks again
    } finally {
      probing = false;
    }
  }

  return {
    async hit(bucket, limit, nowMs, windowMs, consume): Promise<WindowState> {
      if (!down) {
        try {
          return await shared.hit(bucket, limit, nowMs, windowMs, consume);
        } catch (err) {
          open(err);
        }
      }
      return local.hit(bucket, limit, nowMs, windowMs, consume);
    },
    async release(bucket, slot) {
      // A slot taken in Redis before an outage is not in the local store: it expires with its window.
      if (!down) {
        try {
          return await shared.release(bucket, slot);
        } catch (err) {
          open(err);
        }
      }
      return local.release(bucket, slot);
    },
    mode: () => (down ? 'local' : 'shared'),
    async check() {
      if (down) return 'local';
      try {
        await shared.ping();
      } catch (err) {
        open(err);
      }
      return down ? 'local' : 'shared';
    },
    onSwitch(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      clearInterval(probe);
      await shared.close();
      await local.close();
    },
  };
}

/** No Redis configured: this host's memory, always. */
export function localOnly(store: RateLimitStore): ResilientRateLimitStore {
  return {
    hit: (...args) => store.hit(...args),
    release: (...args) => store.release(...args),
    mode: () => 'memory',
    check: async () => 'memory',
    onSwitch: () => undefined,
    close: () => store.close(),
  };
}
