import type { Guard } from '../../shared/kiosk/calls.ts';
import type { KioskClock } from './clock.ts';
import type { KioskDb } from './database.ts';
import type { KioskIdPrefix } from './ids.ts';
import type { PassVerifier } from './caches/pass-verifier.ts';
import type { Link } from './link/link.ts';
import type { Peers } from './peers/peers.ts';
import type { SecretStore } from './setup/settings.ts';

export interface KioskTimings {
  /** How long a scan, walk-in or checkout waits for the server before the kiosk decides offline. */
  onlineDecisionTimeoutMs: number;
  /** Timeout of every other request. */
  requestTimeoutMs: number;
  healthTimeoutMs: number;
  /** Between syncs while everything works. */
  syncIntervalMs: number;
  /** First retry after a failed sync; doubles up to `backoffMaxMs`, with jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** An unsent SOS is tried again this often, whatever the sync backoff. */
  panicRetryMs: number;
  /** A sent SOS's incident is read this often while it is active. */
  panicPollMs: number;
  /** How often the kiosk asks whether any on-duty responder covers the gate (GET /dispatch/coverage). */
  coverageCheckMs: number;
  /** While the server cannot be reached, a bare health check this often: the queue leaves as soon as it answers, not after the backoff. */
  offlineProbeMs: number;
  /** KIOSK_HEARTBEAT_S: how often the kiosk reports its queue and clock (PUT /kiosks/{kioskId}/heartbeat). */
  heartbeatMs: number;
}

export const DEFAULT_TIMINGS: KioskTimings = {
  onlineDecisionTimeoutMs: 600,
  requestTimeoutMs: 10_000,
  healthTimeoutMs: 2_000,
  syncIntervalMs: 5_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 30_000,
  panicRetryMs: 3_000,
  // The guard must learn within seconds that nobody accepted (escalated): one small read while an SOS is open.
  panicPollMs: 2_000,
  coverageCheckMs: 180_000,
  offlineProbeMs: 1_000,
  heartbeatMs: 30_000,
};

/** Everything one kiosk core's parts share; made by createKioskCore, never module state. */
export interface CoreContext {
  db: KioskDb;
  /** The kiosk's clock corrected by the server's (see `learnServerTime`): every time the kiosk records. */
  clock: KioskClock;
  /** The machine's own clock, in milliseconds, uncorrected. */
  localNowMs(): number;
  /** A health answer's timestamp, and when (local clock) the request left and the answer came. */
  learnServerTime(serverTime: string, sentAtMs: number, receivedAtMs: number): void;
  newId: (prefix: KioskIdPrefix, at: Date) => string;
  verifier: PassVerifier;
  secrets: SecretStore;
  kioskId: string;
  /** The kiosk's version, in its heartbeats. */
  appVersion: string;
  timings: KioskTimings;
  /** The link to the server: the settings in use and every piece of mutable network state. */
  link: Link;
  /** The gates of the site this kiosk hears (issue #49): the peer room's network state. */
  peers: Peers;
  guard(): Guard | null;
  nowIso(): string;
  /** What the core could not handle; the host logs it. */
  logError(error: unknown): void;
  /** What an installer reading the host's log wants to know happened (the link dropping or returning). */
  logEvent(message: string): void;
}
