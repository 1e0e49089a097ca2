import { statSync } from 'node:fs';
import { z } from 'zod';

const flag = (defaultOn: boolean | undefined) =>
  z
    .enum(['0', '1', 'true', 'false', 'on', 'off', 'yes', 'no'])
    .optional()
    .transform((value) => (value === undefined ? defaultOn : ['1', 'true', 'on', 'yes'].includes(value)));

/** Whether a tile URL's host is one name or IPv4 address. */
const tileHost = (url: string): boolean => {
  const { hostname } = new URL(url);
  return z.regexes.domain.test(hostname) || z.regexes.ipv4.test(hostname);
};

const seconds = (fallback: number) => z.coerce.number().int().min(1).max(86_400).default(fallback);

/**
 * Every setting the server reads, one line of doc each. A wrong value stops the start with a
 * message naming the variable (see `loadConfig`).
 */
export const ConfigSchema = z.object({
  /** TCP port of the API. */
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  /** Interface to bind; 127.0.0.1 keeps a fresh install off the network. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The address phones reach this server at, for the responder app's sign-in links (`tsaro responder add`). Default `http://HOST:PORT`. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** `postgres://...` for PostgreSQL (several hosts), otherwise a SQLite file (`./data/tsaro.db`, `sqlite:PATH`, `:memory:`). */
  DATABASE_URL: z.string().min(1).default('./data/tsaro.db'),
  /** PostgreSQL: seconds to wait for a connection (and at start, for the first answer) before giving up with a 503 (or refusing to start). */
  DATABASE_CONNECT_TIMEOUT_S: z.coerce.number().min(0.5).max(300).default(10),
  /** PostgreSQL: seconds a statement may run before the server cancels it (the request gets a 503). */
  DATABASE_STATEMENT_TIMEOUT_S: z.coerce.number().min(0.5).max(3600).default(30),
  /** PostgreSQL: prepare the statements that run again and again once per connection. `0` behind PgBouncer in transaction mode without `max_prepared_statements`. */
  DATABASE_PREPARED_STATEMENTS: flag(true),
  /** PostgreSQL: connections this host keeps for everything but broad reads (the SOS, the gates, writes, reads of one thing). No broad read ever takes one. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(500).default(10),
  /**
   * Broad reads (lists, searches, stats, analytics, reports) running at once on this host: on
   * PostgreSQL the connections of their own pool, on SQLite their worker threads. More wait their turn.
   */
  DATABASE_READ_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Seconds a broad read may run; longer is stopped and answered 503 "too broad" (narrow the request). */
  DATABASE_READ_TIMEOUT_S: z.coerce.number().min(0.1).max(600).default(5),
  /** Seconds a broad read may wait for its turn; longer is answered 503 with Retry-After. */
  DATABASE_READ_QUEUE_S: z.coerce.number().min(0.1).max(600).default(10),
  /** SQLite: the read threads' CPU priority below the event loop (Linux nice): 19 yields the cores to the SOS most. */
  DATABASE_READ_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Pages by `page` (an OFFSET) this many rows deep or deeper are "deep": they run DATABASE_READ_DEEP_PAGES at a time. */
  DATABASE_READ_DEEP_FROM_ROWS: z.coerce.number().int().min(1).default(10_000),
  /**
   * A search of a list whose rows, before the search, number this many or fewer reads those rows
   * instead of the text index (shared by every organization: a small organization's search would
   * otherwise read every organization's entries for its words). 0: always the text index.
   */
  DATABASE_SEARCH_SCAN_ROWS: z.coerce.number().int().min(0).max(1_000_000).default(5_000),
  /** Deep pages running at once on this host; one more waits a second for a place, then is answered 503 with Retry-After. */
  DATABASE_READ_DEEP_PAGES: z.coerce.number().int().min(1).max(64).default(1),
  /** `redis://...`: rate limits shared by every host. Unset: limits are kept in this process. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  /** pino level: fatal, error, warn, info, debug, trace, silent. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Seconds a dispatching incident waits for a responder to accept before it escalates. */
  DISPATCH_WINDOW_S: seconds(60),
  /** Seconds an escalated incident waits before it is unresponsive. */
  ESCALATION_WINDOW_S: seconds(300),
  /** Kilometres around an incident its first offers reach; escalation widens it threefold. */
  DISPATCH_RADIUS_KM: z.coerce.number().min(0.1).max(500).default(15),
  /** Responders the first round of offers goes to; escalation offers three times as many. */
  DISPATCH_OFFER_COUNT: z.coerce.number().int().min(1).max(50).default(3),
  /** Seconds a responder's position counts as a fix: an older one is never used to rank (they are left out of automatic offers until the phone reports again). */
  DISPATCH_FIX_MAX_AGE_S: seconds(300),
  /** Seconds between a responder's "I'm OK" check-ins on scene; one missed alerts the controllers, two raise the case to the top of the queue. */
  CHECK_IN_EVERY_S: seconds(300),
  /** An available responder whose phone sent no fix for this many seconds raises an alert for staff. */
  NO_FIX_ALERT_S: seconds(300),
  /** Seconds a responder may hold an offer before staff are alerted. */
  STATUS_LIMIT_OFFERED_S: seconds(120),
  /** Seconds from accepting an incident to arriving before staff are alerted. */
  STATUS_LIMIT_EN_ROUTE_S: seconds(1800),
  /** Seconds on scene before staff are alerted. */
  STATUS_LIMIT_ON_SCENE_S: seconds(3600),
  /** Seconds out of service before staff are alerted. */
  STATUS_LIMIT_OUT_OF_SERVICE_S: seconds(28_800),
  /** Seconds between the alerts job's looks (shifts, fixes, status ages, check-ins). */
  ALERTS_EVERY_S: seconds(15),
  /** The time zone of shifts' hours (an IANA name). */
  SHIFT_TIME_ZONE: z
    .string()
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, 'an IANA time zone, e.g. Africa/Lagos')
    .default('Africa/Lagos'),
  /** Speed of the simulated responder network (sandbox and drills); 10 is ten times faster. */
  SANDBOX_SPEED: z.coerce.number().min(0.1).max(10_000).default(1),
  /** Create the demo organization on an empty database and print its keys. Default on for SQLite, off for PostgreSQL. */
  DEMO: flag(undefined),
  /** Seconds between sweeps: code expiry, auto-checkout, retention erasure, idempotency purge, silent kiosks. */
  SWEEP_INTERVAL_S: z.coerce.number().int().min(1).max(3600).default(15),
  /** Seconds without a heartbeat after which a gate kiosk counts as offline (`GET /kiosks`) and the sweep raises `kiosk.offline` (kiosks beat every 30 s). */
  KIOSK_OFFLINE_AFTER_S: seconds(120),
  /** Event streams (`GET /events/stream`) one key or one person may hold open on a host; one more is a 429 with Retry-After. */
  STREAM_MAX_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Event streams a host holds open in all (each costs about 26 kB); one more is a 429 with Retry-After. */
  STREAM_MAX_PER_HOST: z.coerce.number().int().min(1).max(1_000_000).default(5000),
  /** `kannel`: text messages go through the operator's Kannel (docs/operations.md). Unset: SMS is off. */
  SMS_GATEWAY: z.enum(['kannel']).optional(),
  /** Kannel smsbox's sendsms address, e.g. `http://127.0.0.1:13013/cgi-bin/sendsms`. */
  KANNEL_SENDSMS_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' }).optional(),
  /** The `sendsms-user` Tsaro sends as. */
  KANNEL_USERNAME: z.string().min(1).optional(),
  KANNEL_PASSWORD: z.string().min(1).optional(),
  /** The sender a phone shows (alphanumeric, at most 11 characters, or a number). */
  SMS_SENDER_ID: z.string().trim().min(1).max(16).default('TSARO'),
  /** Texts one number is sent by one organization in any hour: past it a host's text is held (never sent) and alarms are merged (docs/operations.md). */
  SMS_MAX_PER_RECIPIENT_HOUR: z.coerce.number().int().min(1).max(10_000).default(10),
  /** Texts one organization sends in any hour, to all its numbers: past it, the same as SMS_MAX_PER_RECIPIENT_HOUR. */
  SMS_MAX_PER_ORGANIZATION_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** Seconds between two alarm texts to one number once it is over a ceiling: the alarms in between go as one text naming how many. */
  SMS_ALARM_MERGE_S: seconds(120),
  /** Seconds a webhook receiver has to answer before the attempt counts as failed. */
  WEBHOOK_TIMEOUT_S: z.coerce.number().min(0.1).max(60).default(10),
  /**
   * Divides the webhook retry schedule (at once, 30 s, 5 min, then hourly until 72 h): 3600 makes
   * an hour of schedule pass in a second. For tests and fault drills; leave it at 1 in production.
   */
  WEBHOOK_RETRY_SCALE: z.coerce.number().min(1).max(1_000_000).default(1),
  /**
   * Sandbox webhook endpoints may be on loopback or private addresses (this host's own services,
   * the operator's network). Off by default: a shared deployment must not let a partner reach its
   * Redis or PostgreSQL. Development and tests turn it on. Live endpoints are never allowed there.
   */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  /**
   * The sealing key for webhook signing secrets, pass-signing private keys and stored answers at
   * rest: 64 hex characters or base64 of 32 bytes. It never lives in the database. Unset: read
   * from SECRETS_KEY_FILE.
   */
  SECRETS_KEY: z.string().min(32).optional(),
  /**
   * A file holding the sealing key, readable by its owner only. Default `~/.config/tsaro/secrets.key`,
   * made on first start on SQLite. PostgreSQL (several hosts) needs SECRETS_KEY or this set.
   */
  SECRETS_KEY_FILE: z.string().min(1).optional(),
  /** The sealing key before a rotation (comma-separated if several), still opening values until `tsaro secrets rotate` has re-sealed them. */
  SECRETS_KEY_PREVIOUS: z.string().min(32).optional(),
  /**
   * Map tiles for the console's maps where the deployment has internet, as Leaflet takes them:
   * `https://tile.example/{z}/{x}/{y}.png`. Unset (the default): only the borders shipped with
   * the console, and nothing loads from outside its origin. Its origin joins the console's
   * Content-Security-Policy (`img-src`).
   */
  CONSOLE_TILE_URL: z
    .url({ protocol: /^https$/ })
    // A name or an IPv4 address (the operator's own tile server on the estate's network, issue #48); never a {s} pattern, which one origin in the policy cannot cover.
    .refine((url) => tileHost(url), 'must name one host (a domain or an IPv4 address), not a {s} pattern')
    .refine((url) => url.includes('{z}') && url.includes('{x}') && url.includes('{y}'), 'must hold {z}, {x} and {y}')
    .optional(),
  /**
   * A folder of raster tiles, `z/x/y.png` (the operator's own streets, for a deployment without
   * internet), that Tsaro serves at `/console/tiles/{z}/{x}/{y}.png` for the console's maps; the
   * shipped borders stay under them where a tile is missing. Same origin: the policy is unchanged.
   * One of CONSOLE_TILE_URL and CONSOLE_TILE_DIR.
   */
  CONSOLE_TILE_DIR: z.string().min(1).optional(),
  /** The tiles' attribution, shown on the map (the tile provider's terms ask for it). */
  CONSOLE_TILE_ATTRIBUTION: z.string().min(1).max(300).optional(),
  /** Minutes a console session lasts without use (CONTRACT.md); it ends 7 days after sign-in whatever happens. */
  CONSOLE_IDLE_TIMEOUT_MIN: z.coerce.number().int().min(1).max(10_080).default(720),
  /**
   * The balancers to believe for X-Forwarded-For (comma-separated addresses or CIDRs, or
   * `loopback`), so sign-in limits and the audit log see the client's address. Unset: none; the
   * address is the connection's.
   */
  TRUST_PROXY: z
    .string()
    .transform((text) => text.split(',').map((part) => part.trim()).filter(Boolean))
    .optional(),
  /** Load the shipped UCDP GED extract into an empty threat event store at start. */
  THREAT_SEED: flag(true),
  /** Largest request body accepted, in kilobytes; larger is 413. */
  BODY_LIMIT_KB: z.coerce.number().int().min(1).max(10_240).default(256),
  /** Milliseconds a Redis command may take before this host keeps rate limits in its own memory (and probes Redis every second until it answers). */
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(200),
  /** Port of the Prometheus `GET /metrics` listener. Unset: no metrics listener. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** Interface the metrics listener binds; 127.0.0.1 keeps it off the network unless the operator opens it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
});

export type Config = z.infer<typeof ConfigSchema> & { DEMO: boolean; THREAT_SEED: boolean; PUBLIC_URL: string; WEBHOOK_ALLOW_PRIVATE: boolean };

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(
    Object.keys(ConfigSchema.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (config.SMS_GATEWAY === 'kannel') {
    const missing = (['KANNEL_SENDSMS_URL', 'KANNEL_USERNAME', 'KANNEL_PASSWORD'] as const).filter((name) => config[name] === undefined);
    if (missing.length) throw new ConfigError(`Invalid configuration:\n${missing.map((name) => `  ${name}: required with SMS_GATEWAY=kannel`).join('\n')}`);
  }
  if (config.CONSOLE_TILE_URL && config.CONSOLE_TILE_DIR) {
    throw new ConfigError('Invalid configuration:\n  CONSOLE_TILE_DIR: set CONSOLE_TILE_URL or CONSOLE_TILE_DIR, not both');
  }
  if (config.CONSOLE_TILE_DIR && !isFolder(config.CONSOLE_TILE_DIR)) {
    throw new ConfigError(`Invalid configuration:\n  CONSOLE_TILE_DIR: ${config.CONSOLE_TILE_DIR} is not a folder (of z/x/y.png tiles)`);
  }
  return {
    ...config,
    DEMO: config.DEMO ?? !isPostgresUrl(config.DATABASE_URL),
    THREAT_SEED: config.THREAT_SEED ?? true,
    PUBLIC_URL: config.PUBLIC_URL ?? `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`,
    WEBHOOK_ALLOW_PRIVATE: config.WEBHOOK_ALLOW_PRIVATE ?? false,
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}
