import { z } from 'zod';

const flag = (defaultOn: boolean | undefined) =>
  z
    .enum(['0', '1', 'true', 'false', 'on', 'off', 'yes', 'no'])
    .optional()
    .transform((value) => (value === undefined ? defaultOn : ['1', 'true', 'on', 'yes'].includes(value)));

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
  /** `postgres://...` for PostgreSQL (several hosts), otherwise a SQLite file (`./data/tsaro.db`, `sqlite:PATH`, `:memory:`). */
  DATABASE_URL: z.string().min(1).default('./data/tsaro.db'),
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
  /** Speed of the simulated responder network (sandbox and drills); 10 is ten times faster. */
  SANDBOX_SPEED: z.coerce.number().min(0.1).max(10_000).default(1),
  /** Create the demo organization on an empty database and print its keys. Default on for SQLite, off for PostgreSQL. */
  DEMO: flag(undefined),
  /** Seconds between sweeps: code expiry, auto-checkout, retention erasure, idempotency purge. */
  SWEEP_INTERVAL_S: z.coerce.number().int().min(1).max(3600).default(15),
  /** Seconds a webhook receiver has to answer before the attempt counts as failed. */
  WEBHOOK_TIMEOUT_S: z.coerce.number().min(0.1).max(60).default(10),
  /** Key that seals webhook signing secrets at rest: 64 hex characters or base64 of 32 bytes. Unset: one generated and kept in the database. */
  SECRETS_KEY: z.string().min(32).optional(),
  /** Load the shipped UCDP GED extract into an empty threat event store at start. */
  THREAT_SEED: flag(true),
  /** Largest request body accepted, in kilobytes; larger is 413. */
  BODY_LIMIT_KB: z.coerce.number().int().min(1).max(10_240).default(256),
});

export type Config = z.infer<typeof ConfigSchema> & { DEMO: boolean; THREAT_SEED: boolean };

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
  return { ...config, DEMO: config.DEMO ?? !isPostgresUrl(config.DATABASE_URL), THREAT_SEED: config.THREAT_SEED ?? true };
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}
