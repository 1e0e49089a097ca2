import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateLimitStore, WindowState } from './store.ts';

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

export function createRedisRateLimitStore(url: string, keyPrefix = 'tsaro:rl:'): RateLimitStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
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
      return { allowed: allowed === 1, count, resetAt: oldest === '' ? null : Number(oldest) + windowMs };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
