import {
  KioskCallError,
  parseCallInput,
  type Guard,
  type KioskCallName,
  type KioskCallResult,
  type KioskHandlers,
  type KioskStatus,
} from '../../shared/kiosk/calls.ts';
import { createHash } from 'node:crypto';
import packageJson from '../../package.json' with { type: 'json' };
import { systemClock, type KioskClock } from './clock.ts';
import { loadPassKeys } from './caches/pass-keys.ts';
import { DEFAULT_TIMINGS, type CoreContext, type KioskTimings } from './context.ts';
import { openKioskDatabase, type KioskDb } from './database.ts';
import { readCoverage } from './link/coverage.ts';
import { gateHandlers } from './gate/handlers.ts';
import { idFactory } from './ids.ts';
import { outboxHandlers } from './outbox/handlers.ts';
import { countOpenAttention, countPendingOperations, openAttention } from './outbox/store.ts';
import { panicHandlers } from './panic/handlers.ts';
import { activePanicStatus } from './panic/panic.ts';
import { closeFollowedPanics } from './panic/store.ts';
import { PassVerifier } from './caches/pass-verifier.ts';
import { linkHandlers } from './link/handlers.ts';
import { Link } from './link/link.ts';
import {
  environmentOfKey,
  plainSecretStore,
  readJsonSetting,
  readSetting,
  readStoredSetup,
  writeSetting,
  writeStoredSetup,
  type KioskSettings,
  type SecretStore,
} from './settings.ts';
import { checkSettings, configureResult, setupStatus, toSettings } from './setup.ts';
import { SyncLoop } from './link/sync.ts';
import { alarmPhonesOf } from './caches/site.ts';

/** A kiosk clock within this of the server's is left alone. */
const CLOCK_TOLERANCE_MS = 5_000;

export interface KioskCoreOptions {
  /** Where the kiosk's SQLite file lives. */
  dataDir: string;
  /** All four from the environment (KIOSK_*), or none: then the first-run setup decides. */
  serverUrl?: string;
  apiKey?: string;
  entryPoint?: string;
  location?: { latitude: number; longitude: number };
  /** Optional with the four above (KIOSK_ALARM_PHONES): who a guard calls when an SOS cannot be sent. */
  alarmPhones?: string;
  clock?: KioskClock;
  fetch?: typeof fetch;
  /** How the API key is kept at rest when set up on the kiosk (Electron: safeStorage). */
  secretStore?: SecretStore;
  timings?: Partial<KioskTimings>;
  /** Jitter source for the backoff. */
  random?: () => number;
  /** Where unexpected failures of the background sync go (default: stderr). */
  logError?: (error: unknown) => void;
  /** Where the link dropping and returning is logged (default: stdout). */
  logEvent?: (message: string) => void;
  /** The version its heartbeats report (default: the package's). */
  appVersion?: string;
}

export interface KioskCore {
  readonly handlers: KioskHandlers;
  /** Validates the input as the hosts must, then runs the handler. Throws KioskCallError. */
  call<N extends KioskCallName>(name: N, input: unknown): Promise<KioskCallResult<N>>;
  /** Starts the background sync loop and the SOS retry timer. */
  start(): void;
  /** Stops the timers, lets a sync under way finish (a few seconds at most), and closes the database. */
  close(): Promise<void>;
  readonly kioskId: string;
  readonly dataDir: string;
  /** For tests and the benchmark: the kiosk's own database. */
  readonly db: KioskDb;
}

/** Which server and key the cache belongs to: a hash, so the key itself is not kept a second time. */
export function serverFingerprint(settings: Pick<KioskSettings, 'serverUrl' | 'apiKey'>): string {
  return createHash('sha256').update(`${settings.serverUrl}\n${settings.apiKey}`).digest('hex');
}

/** The key alone: it belongs to one organization, whatever address the server is reached at. */
function keyFingerprint(settings: Pick<KioskSettings, 'apiKey'>): string {
  return createHash('sha256').update(`key\n${settings.apiKey}`).digest('hex');
}

const FINGERPRINT_SETTING = 'server_fingerprint';
const KEY_FINGERPRINT_SETTING = 'key_fingerprint';
const MOVED_WITH_PENDING = 'Operations are still waiting to reach the current server; sync them before moving this kiosk';

function writeFingerprints(db: KioskDb, settings: KioskSettings): void {
  writeSetting(db, FINGERPRINT_SETTING, serverFingerprint(settings));
  writeSetting(db, KEY_FINGERPRINT_SETTING, keyFingerprint(settings));
}

/**
 * Another server or key may be another organization: its codes, pass keys, visitors, feed
 * cursor and site are not ours, and the incidents it holds are not readable with the new key.
 * In the caller's transaction.
 */
function forgetServer(db: KioskDb, at: string): void {
  db.exec(`DELETE FROM codes; DELETE FROM pass_keys; DELETE FROM server_visitors; DELETE FROM settings WHERE key IN ('feed_cursor', 'visitors_as_of', 'last_sync_at', 'coverage', 'site', 'codes_site');`);
  closeFollowedPanics(db, at);
}

/**
 * At start: the cache is the settings' server's, or (another server or key, given by the
 * environment) it is wiped, as `configure` does. With operations waiting: another key (maybe
 * another organization) is refused; the same key at another address (the same organization,
 * the server reached another way) keeps the queue and the cache, so a kiosk whose old address
 * is gone can still deliver. A cache from before fingerprints were kept is wiped when nothing
 * waits (it is fetched again), and otherwise adopted.
 */
function adoptServer(db: KioskDb, settings: KioskSettings | undefined, at: string): void {
  if (!settings) return;
  const stored = readSetting(db, FINGERPRINT_SETTING);
  if (stored === serverFingerprint(settings)) return;
  const storedKey = readSetting(db, KEY_FINGERPRINT_SETTING);
  const pending = countPendingOperations(db) > 0;
  if (pending && storedKey !== undefined && storedKey !== keyFingerprint(settings)) {
    throw new Error(`The KIOSK_* settings give this kiosk another API key. ${MOVED_WITH_PENDING} (start it with the previous settings until "Waiting to send" reads 0)`);
  }
  db.transaction(() => {
    if (!pending) forgetServer(db, at);
    writeFingerprints(db, settings);
  })();
}

function settingsFromOptions(options: KioskCoreOptions): KioskSettings | undefined {
  const given = [options.serverUrl, options.apiKey, options.entryPoint, options.location].filter((value) => value !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < 4) throw new Error('Pass serverUrl, apiKey, entryPoint and location together, or none of them');
  return {
    serverUrl: options.serverUrl!.replace(/\/+$/, ''),
    apiKey: options.apiKey!,
    entryPoint: options.entryPoint!,
    latitude: options.location!.latitude,
    longitude: options.location!.longitude,
    ...(options.alarmPhones ? { alarmPhones: options.alarmPhones } : {}),
  };
}

export function createKioskCore(options: KioskCoreOptions): KioskCore {
  const db = openKioskDatabase(options.dataDir);
  const localClock = options.clock ?? systemClock;
  // A kiosk whose clock is off would record wrong times and see its replays refused ("in the
  // future", "too old"): it keeps the server's offset, learnt at each health check.
  let clockOffsetMs = Number(readSetting(db, 'clock_offset_ms') ?? 0);
  const clock: KioskClock = { now: () => new Date(localClock.now().getTime() + clockOffsetMs) };
  const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const secrets = options.secretStore ?? plainSecretStore;
  const newId = idFactory();
  let kioskId = readSetting(db, 'kiosk_id');
  if (!kioskId) {
    kioskId = newId('kiosk', clock.now());
    writeSetting(db, 'kiosk_id', kioskId);
  }
  let settings: KioskSettings | undefined;
  let fromOptions: KioskSettings | undefined;
  try {
    fromOptions = settingsFromOptions(options);
    settings = fromOptions ?? readStoredSetup(db, secrets);
    adoptServer(db, settings, clock.now().toISOString());
  } catch (error) {
    // The data folder's lock goes with the database: a kiosk that cannot start must not keep it.
    db.close();
    throw error;
  }
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const logEvent = options.logEvent ?? ((message: string) => process.stdout.write(`${clock.now().toISOString()} kiosk core: ${message}\n`));
  const verifier = new PassVerifier();
  verifier.setKeys(loadPassKeys(db));

  const ctx: CoreContext = {
    db,
    clock,
    localNowMs: () => localClock.now().getTime(),
    learnServerTime(serverTime, sentAtMs, receivedAtMs) {
      const offset = Date.parse(serverTime) - (sentAtMs + receivedAtMs) / 2;
      const next = Number.isFinite(offset) && Math.abs(offset) > CLOCK_TOLERANCE_MS ? Math.round(offset) : 0;
      if (next === clockOffsetMs) return;
      clockOffsetMs = next;
      writeSetting(db, 'clock_offset_ms', String(next));
    },
    newId,
    verifier,
    secrets,
    kioskId,
    appVersion: options.appVersion ?? packageJson.version,
    timings,
    link: new Link(
      { fetch: fetchImpl, requestTimeoutMs: timings.requestTimeoutMs, nowIso: () => clock.now().toISOString(), logEvent },
      settings,
      fromOptions ? 'environment' : settings ? 'setup' : null,
    ),
    guard: () => readJsonSetting<Guard>(db, 'guard') ?? null,
    nowIso: () => clock.now().toISOString(),
    logError: options.logError ?? ((error) => process.stderr.write(`kiosk core: ${(error as Error)?.stack ?? String(error)}\n`)),
    logEvent,
  };
  const sync = new SyncLoop(ctx, options.random);

  const nudgeWhenOffline = () => sync.nudgeWhenOffline();

  const handlers: KioskHandlers = {
    setupStatus: async () => setupStatus(ctx),

    configure: async (input) => {
      if (ctx.link.source === 'environment') {
        throw new KioskCallError(409, 'This kiosk is set up by its environment (KIOSK_* variables); change them there');
      }
      const next = toSettings(input);
      const checks = await checkSettings(next, fetchImpl, timings.requestTimeoutMs);
      if (checks.some((check) => !check.ok)) return configureResult(false, checks, ctx);
      const previous = ctx.link.settings;
      const storedFingerprint = readSetting(db, FINGERPRINT_SETTING);
      const elsewhere =
        storedFingerprint !== undefined
          ? storedFingerprint !== serverFingerprint(next)
          : previous !== undefined && (previous.serverUrl !== next.serverUrl || previous.apiKey !== next.apiKey);
      if (elsewhere && countPendingOperations(db) > 0) throw new KioskCallError(409, MOVED_WITH_PENDING);
      db.transaction(() => {
        if (elsewhere) forgetServer(db, ctx.nowIso());
        writeStoredSetup(db, secrets, next);
        writeFingerprints(db, next);
      })();
      if (elsewhere) {
        verifier.setKeys([]);
        sync.cachedCodes = 0;
      }
      ctx.link.source = 'setup';
      ctx.link.net = { online: true, lastContactAt: ctx.nowIso(), problem: null };
      ctx.link.use(next);
      sync.kick();
      sync.checkCoverageSoon();
      return configureResult(true, checks, ctx);
    },

    ...gateHandlers(ctx, nudgeWhenOffline),

    ...panicHandlers(ctx),

    kioskStatus: async (): Promise<KioskStatus> => {
      nudgeWhenOffline();
      return {
        configured: ctx.link.settings !== undefined,
        online: ctx.link.net.online === true,
        entryPoint: ctx.link.settings?.entryPoint ?? null,
        guard: ctx.guard(),
        pendingOperations: countPendingOperations(db),
        lastSyncAt: sync.lastSyncAt,
        lastContactAt: ctx.link.net.lastContactAt,
        nextAttemptAt: sync.nextAttemptAt,
        syncing: sync.syncing,
        problem: ctx.link.net.problem,
        cachedCodes: sync.cachedCodes,
        attentionCount: countOpenAttention(db),
        attention: openAttention(db, 50),
        activePanic: activePanicStatus(ctx),
        alarmPhones: alarmPhonesOf(ctx, ctx.link.settings),
        environment: ctx.link.settings ? (environmentOfKey(ctx.link.settings.apiKey) ?? null) : null,
        coverage: readCoverage(db, ctx.link.settings),
      };
    },

    ...outboxHandlers(ctx),
    ...linkHandlers(sync),
  };

  return {
    handlers,
    kioskId,
    dataDir: options.dataDir,
    db,
    async call(name, input) {
      const parsed = parseCallInput(name, input);
      return (handlers[name] as (input: unknown) => Promise<KioskCallResult<typeof name>>)(parsed);
    },
    start: () => sync.start(),
    async close() {
      await sync.stop();
      db.close();
    },
  };
}
