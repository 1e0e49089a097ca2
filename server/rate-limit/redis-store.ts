import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { SharedRateLimitStore } from './fallback-store.ts';
import type { WindowState } from './store.ts';

/**
 * The sliding log as a sorted set per key (score = request time), trimmed and counted in one
 * Lua script so two hosts can never both take the last slot.
 */
const SLIDING_LOG = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[5] == '1' then
    redis.call('ZADD', key, now, ARGV[4])
    count = count + 1
    redis.call('PEXPIRE', key, window)
  end
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or ''}
`;

/**
 * Every command gives up after `commandTimeoutMs` (a stopped or unreachable Redis never stalls a
 * request longer than that); the fallback store in front of it decides what happens then.
 */
export function createRedisRateLimitStore(
  url: string,
  options: { commandTimeoutMs: number; keyPrefix?: string },
): SharedRateLimitStore {
  const keyPrefix = options.keyPrefix ?? 'tsaro:rl:';
  const redis = new Redis(url, {
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: Math.max(1000, options.commandTimeoutMs),
    // Commands issued while connecting wait for the connection (up to the timeout); after a
    // dropped connection they are failed at once rather than replayed late.
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  // Connection errors are reported once by the fallback store; ioredis retries on its own.
  redis.on('error', () => undefined);
  redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
  const run = (redis as unknown as { slidingLog: (...args: (string | number)[]) => Promise<[number, number, string]> })
    .slidingLog;

  return {
    async hit(bucket, limit, nowMs, windowMs, consume): Promise<WindowState> {
      const member = `${nowMs}-${randomBytes(6).toString('hex')}`;
      const [allowed, count, oldest] = await run.call(
        redis,
        keyPrefix + bucket,
        nowMs,
        windowMs,
        limit,
        member,
        consume ? '1' : '0',
      );
      const state: WindowState = { allowed: allowed === 1, count, resetAt: oldest === '' ? null : Number(oldest) + windowMs };
      if (allowed === 1 && consume) state.slot = member;
      return state;
    },
    async release(bucket, slot) {
      await redis.zrem(keyPrefix + bucket, slot);
    },
    async ping() {
      // The probe runs the same script on a bucket of its own: a Redis that answers PING but
      // refuses scripts (a read-only replica, out of memory) is not taken back.
      await run.call(redis, `${keyPrefix}probe`, Date.now(), 1000, 1, 'probe', '0');
    },
    async close() {
      if (redis.status !== 'ready') return redis.disconnect();
      // A paused Redis never answers QUIT: give it the command timeout, then drop the socket.
      const quit = redis.quit().then(() => undefined, () => undefined);
      const late = new Promise<void>((resolve) => setTimeout(resolve, options.commandTimeoutMs).unref());
      await Promise.race([quit, late]);
      redis.disconnect();
    },
  };
}
