import {
  parseCallInput,
  type Guard,
  type KioskCallName,
  type KioskCallResult,
  type KioskHandlers,
} from '../../shared/kiosk/calls.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { systemClock, type KioskClock } from './clock.ts';
import { loadPassKeys } from './caches/pass-keys.ts';
import { DEFAULT_TIMINGS, type CoreContext, type KioskTimings } from './context.ts';
import { openKioskDatabase, type KioskDb } from './database.ts';
import { coverageWatch, heartbeatWatch } from './link/watches.ts';
import { statusHandlers } from './link/status.ts';
import { Background } from './background.ts';
import { panicTimers } from './panic/timers.ts';
import { gateHandlers } from './gate/handlers.ts';
import { idFactory } from './ids.ts';
import { outboxHandlers } from './outbox/handlers.ts';
import { panicHandlers } from './panic/handlers.ts';
import { PassVerifier } from './caches/pass-verifier.ts';
import { linkHandlers } from './link/handlers.ts';
import { Link } from './link/link.ts';
import { readJsonSetting, readSetting, writeSetting } from './settings-store.ts';
import { plainSecretStore, readStoredSetup, type KioskSettings, type SecretStore } from './setup/settings.ts';
import { setupHandlers } from './setup/handlers.ts';
import { adoptServer } from './setup/server-change.ts';
import { SyncLoop } from './link/sync.ts';
import { createPeers } from './peers/room.ts';
import type { PeerOptions, Peers } from './peers/peers.ts';

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
  /** KIOSK_PEER_PORT and KIOSK_PEERS: the gates of its site it talks to (issue #49). None: it talks to no peer. */
  peers?: PeerOptions;
}

export interface KioskCore {
  readonly handlers: KioskHandlers;
  /** Validates the input as the hosts must, then runs the handler. Throws KioskCallError. */
  call<N extends KioskCallName>(name: N, input: unknown): Promise<KioskCallResult<N>>;
  /** Starts the background sync loop, the SOS retry timer and (with `peers`) the peer channel. */
  start(): void;
  /** Stops the timers, lets a sync under way finish (a few seconds at most), and closes the database. */
  close(): Promise<void>;
  readonly kioskId: string;
  readonly dataDir: string;
  /** For tests and the benchmark: the kiosk's own database. */
  readonly db: KioskDb;
  /** The gates of its site it hears (the port it listens on for them, once started). */
  readonly peers: Peers;
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
  const logError = options.logError ?? ((error: unknown) => process.stderr.write(`kiosk core: ${(error as Error)?.stack ?? String(error)}\n`));
  const nowIso = () => clock.now().toISOString();
  // Never started without `options.peers`: then it hears nobody and every gate decides alone.
  const peers = createPeers({ db, kioskId, clock, newId, nowIso, logEvent, logError }, options.peers ?? { port: 0, addresses: [] });

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
    peers,
    guard: () => readJsonSetting<Guard>(db, 'guard') ?? null,
    nowIso,
    logError,
    logEvent,
  };
  const coverage = coverageWatch(ctx);
  // Each needs the other only later, from a closure: a beat naming a new site kicks the sync, a sync back after failures beats.
  const heartbeat = heartbeatWatch(ctx, { coverage, siteChanged: () => sync.kick() });
  const sync = new SyncLoop(ctx, options.random, () => void heartbeat.runSoon());
  const background = new Background(sync, [coverage, heartbeat], panicTimers(ctx), options.peers ? peers : null);

  const nudgeWhenOffline = () => sync.nudgeWhenOffline();

  const handlers: KioskHandlers = {
    ...setupHandlers(ctx, { fetch: fetchImpl, sync, coverage }),
    ...gateHandlers(ctx, nudgeWhenOffline),
    ...panicHandlers(ctx, coverage),
    ...statusHandlers(ctx, sync, nudgeWhenOffline),
    ...outboxHandlers(ctx),
    ...linkHandlers(sync),
  };

  return {
    handlers,
    kioskId,
    dataDir: options.dataDir,
    db,
    peers,
    async call(name, input) {
      const parsed = parseCallInput(name, input);
      return (handlers[name] as (input: unknown) => Promise<KioskCallResult<typeof name>>)(parsed);
    },
    start: () => background.start(),
    async close() {
      await background.stop();
      db.close();
    },
  };
}
