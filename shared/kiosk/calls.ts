import type { GateOperationKind } from './gate-operations.ts';
import { z } from 'zod';

/**
 * The gate kiosk's handler map: every call the screens may make to the kiosk core, by name,
 * with its input schema (validated by the host before the core sees it) and its result type.
 * The Electron preload and the browser host carry exactly these calls and nothing else.
 *
 * Conventions: ids made by the kiosk are ULIDs with a prefix (`vis_`, `dec_`, `att_`); times
 * are ISO 8601 UTC strings. Every call answers within well under a second: the status and
 * list calls read the kiosk's own SQLite only (cheap enough to poll every second); `scan`,
 * `walkIn`, `checkout` and `panicPress` save first, then give the server at most 600 ms before
 * deciding or queueing on their own. Only `configure` (which checks the server on purpose)
 * and `syncNow` wait for the network.
 */

// ---------- Inputs ----------

const Text200 = z.string().trim().min(1).max(200);
const Phone = z.string().trim().min(3).max(32);

/** How the text of a scan reached the kiosk. */
export const SCAN_METHODS = ['camera', 'keyboard_wedge', 'keypad'] as const;
export type ScanMethod = (typeof SCAN_METHODS)[number];

export const SetupStatusInput = z.strictObject({});
export const ConfigureInput = z.strictObject({
  serverUrl: z.url({ protocol: /^https?$/ }).max(500).meta({ description: 'The API base, e.g. http://127.0.0.1:3000/v1/external' }),
  apiKey: z.string().trim().regex(/^svc_(live|test)_[0-9A-Za-z]{32,}$/, 'an API key starts with svc_live_ or svc_test_'),
  entryPoint: Text200.meta({ description: 'The gate this kiosk stands at, e.g. "Gate A"' }),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  alarmPhones: z
    .string()
    .trim()
    .max(200)
    .optional()
    .meta({ description: 'Who a guard calls when an SOS cannot be sent, e.g. "Estate control 0803 000 0000, Police 112"; shown on the panic screen' }),
});
export const StartShiftInput = z.strictObject({
  guardName: Text200,
  guardPhone: Phone.optional(),
});
export const ScanInput = z.strictObject({
  /** The typed code (any case, spaces ignored) or the whole scanned pass (`TS1....`). */
  text: z.string().trim().min(1).max(2000),
  method: z.enum(SCAN_METHODS),
  /** The guard was shown "Already inside" for this code and lets the visitor in anyway: recorded with the check-in (the server's `already_inside_override`). */
  overrideAlreadyInside: z.boolean().optional(),
});
export const WalkInInput = z.strictObject({
  visitorName: Text200,
  visitorPhone: Phone,
  /** Whom they visit: a resident, unit or staff member. */
  hostUserId: Text200.optional(),
  notes: z.string().trim().max(2000).optional(),
});
export const OnPremisesInput = z.strictObject({
  /** Part of a name, phone or host, any case. */
  search: z.string().trim().max(200).optional(),
});
export const CheckoutInput = z.strictObject({
  visitId: z.string().min(1).max(100),
  notes: z.string().trim().max(2000).optional(),
});
export const PanicPressInput = z.strictObject({
  /** Made by the UI once per press (a ULID or UUID): pressing "send" again for it never makes a second incident. */
  pressId: z.string().trim().min(8).max(64).regex(/^[0-9A-Za-z_-]+$/),
});
export const PANIC_REPORTS = ['called_for_help', 'false_alarm'] as const;
export const PanicReportInput = z.strictObject({
  /** The press the screen shows. */
  pressId: z.string().trim().min(8).max(64).regex(/^[0-9A-Za-z_-]+$/),
  report: z.enum(PANIC_REPORTS),
});
export const PanicStatusInput = z.strictObject({
  /** Omit for the latest press. */
  pressId: z.string().trim().min(8).max(64).optional(),
});
export const KioskStatusInput = z.strictObject({});
export const RecentScansInput = z.strictObject({
  /** How many of the latest scans, newest first (default 5). */
  limit: z.int().min(1).max(50).default(5),
});
export const DismissAttentionInput = z.strictObject({ attentionId: z.string().min(1).max(100) });
export const SyncNowInput = z.strictObject({});

// ---------- Results ----------

export interface SetupStatus {
  configured: boolean;
  /** Where the settings came from: the environment (KIOSK_* variables) wins over the first-run setup. */
  source: 'environment' | 'setup' | null;
  serverUrl: string | null;
  entryPoint: string | null;
  latitude: number | null;
  longitude: number | null;
  /** `svc_live_…abcd`: enough to recognise the key, never the secret. */
  apiKeyHint: string | null;
  environment: 'live' | 'sandbox' | null;
  /** Who to call when an SOS cannot be sent (setup, or KIOSK_ALARM_PHONES). */
  alarmPhones: string | null;
}

export interface ConfigureCheck {
  name: 'reachable' | 'key_valid' | 'scopes' | 'not_admin';
  ok: boolean;
  message: string;
}
export interface ConfigureResult {
  saved: boolean;
  checks: ConfigureCheck[];
  setup: SetupStatus;
}

export interface Guard {
  name: string;
  phone: string | null;
  since: string;
}

/**
 * Why a scan was decided as it was, for the screen to pick an icon and colour; `message` is the
 * sentence to show.
 */
export const DECISION_REASONS = [
  'admitted',
  'not_found',
  'revoked',
  'used_up',
  'not_yet_active',
  'expired',
  /** Offline: the pass text is malformed, altered, or signed by a key this kiosk does not know. */
  'invalid_pass',
  /** Online: the server answered 429 to too many unknown codes. */
  'too_many_attempts',
  /** The code is for another site's gates (issue #34): said by the server, or offline by the pass's signing key or the cached code. */
  'other_site',
  /** Online: the code is limited to another entry point of this site. */
  'other_entry_point',
  /**
   * The holder of this code is inside already (a visit open here, in the server's list, or said by
   * the server): not let in automatically, and no use spent. `alreadyInside` says since when and
   * where; the guard may let them in anyway (scan again with `overrideAlreadyInside`).
   */
  'already_inside',
] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];

export interface ScanDecision {
  decisionId: string;
  admitted: boolean;
  /** `server`: the server answered; `offline`: the kiosk decided from its cache or the signed pass, to be confirmed on sync. */
  decidedBy: 'server' | 'offline';
  reason: DecisionReason;
  /** Plain words for the guard: "Welcome, Musa Bello", "This code has been revoked". */
  message: string;
  code: string | null;
  codeId: string | null;
  visitor: { name: string | null; phone: string | null } | null;
  purpose: string | null;
  hostUserId: string | null;
  /** After this admission; null when not known (a pass never seen, decided offline). */
  usesLeft: number | null;
  validUntil: string | null;
  /** The visit this admission opened, for checkout; null when refused. */
  visitId: string | null;
  method: ScanMethod;
  scannedAt: string;
  /** The holder's open visit: why the scan was `already_inside`, or the one an override let them in over. */
  alreadyInside?: { since: string; entryPoint: string | null } | null;
  /** Admitted by the guard over "Already inside" (recorded on the check-in). */
  overrodeAlreadyInside?: boolean;
  /** `other_site`: the estate the pass is for, by name, when the kiosk knows it (from the pass keys). */
  estate?: string | null;
}

export interface Visit {
  visitId: string;
  /** The server's access log, once it knows the visit; null while the check-in waits to sync. */
  logId: string | null;
  method: 'code' | 'walk_in';
  visitorName: string | null;
  visitorPhone: string | null;
  hostUserId: string | null;
  entryPoint: string | null;
  checkedInAt: string;
  /** True while something about this visit still waits to reach the server. */
  pendingSync: boolean;
}
export interface OnPremises {
  visitors: Visit[];
  /** How many `visitors` lists (the search's matches). */
  count: number;
  /** Everyone inside, whatever the search. */
  total: number;
  /** `server`: the organization-wide list fetched at `asOf` plus this kiosk's unsynced changes. `local`: only what this kiosk knows. */
  source: 'server' | 'local';
  asOf: string | null;
}
export interface CheckoutResult {
  visit: Visit;
  checkedOutAt: string;
  /** True when the checkout is saved here and waits for the link to reach the server. */
  queued: boolean;
}
export interface WalkInResult {
  visit: Visit;
  queued: boolean;
}

export const PANIC_DELIVERY = ['sending', 'sent', 'retrying', 'refused'] as const;
export interface PanicStatus {
  pressId: string;
  pressedAt: string;
  /**
   * `sending`: first attempt under way; `retrying`: not sent yet, trying again every few seconds;
   * `sent`: the server has the incident; `refused`: the server refused it for good (shown in the
   * needs-attention list too): raise the alarm another way.
   */
  delivery: (typeof PANIC_DELIVERY)[number];
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  incidentId: string | null;
  /** The incident's status on the server (`dispatching`, `assigned`, `responding`, `on_scene`, `resolved`, ...). */
  incidentStatus: string | null;
  /**
   * `etaMinutes` as the server last gave it; `arriveBy`: when that ETA runs out (the moment the
   * kiosk first heard that value plus the minutes), so the screen counts down between updates
   * instead of showing the same "about 28 min" until arrival.
   */
  responder: { name: string; phone: string | null; etaMinutes: number | null; arriveBy?: string | null } | null;
  updatedAt: string;
  /** When the server last told the kiosk the incident's status (sent SOS only): older than a few polls, the status is unknown. */
  statusCheckedAt: string | null;
  /** The core's own time when it answered: ages and countdowns are measured against it, not the page's clock (the core's is corrected by the server's). */
  reportedAt: string;
  /** What the guard reported about this SOS, and whether the server has it (`waiting`: kept until it does). */
  reports: Array<{ report: (typeof PANIC_REPORTS)[number]; at: string; delivery: 'waiting' | 'sent' | 'refused' }>;
}

/** Whether any on-duty responder covers the gate's place, as `GET /dispatch/coverage` last answered. */
export interface GateCoverage {
  covered: boolean;
  /** Sandbox: the simulated network answers every SOS; no real responder is ever sent. */
  simulated: boolean;
  respondersWithinRadius: number;
  nearestKm: number | null;
  radiusKm: number;
  checkedAt: string;
}

export const ATTENTION_KINDS = [
  /** An offline admission the server refused on replay (revoked meanwhile, last use taken at another gate, ...). */
  'admission_refused',
  /** A scan refused offline that the server, on replay, had admitted: the kiosk checked the visitor out again on the server. */
  'refusal_overturned',
  /** An operation the server refused for good (a 4xx): it will not be retried. */
  'operation_refused',
] as const;
export interface AttentionItem {
  attentionId: string;
  kind: (typeof ATTENTION_KINDS)[number];
  /** Plain words: "Musa Bello was admitted offline with DEMO-7K2P; the server says: Code has been revoked". */
  message: string;
  /** The heartbeat never needs a guard's attention (electron/core/link/heartbeat.ts). */
  operation: Exclude<GateOperationKind, 'heartbeat'> | 'panic';
  visitorName: string | null;
  code: string | null;
  /** What the kiosk did and when. */
  happenedAt: string;
  /** The server's own words. */
  serverMessage: string;
  /** The access log the server keeps for an admitted visitor it refused the code of, when one was recorded. */
  logId: string | null;
  createdAt: string;
}

export interface KioskStatus {
  configured: boolean;
  online: boolean;
  entryPoint: string | null;
  guard: Guard | null;
  /** Operations saved here and not yet acknowledged by the server. */
  pendingOperations: number;
  lastSyncAt: string | null;
  /** Last time the server answered anything. */
  lastContactAt: string | null;
  nextAttemptAt: string | null;
  syncing: boolean;
  /** Why the kiosk cannot sync although the server answers (key revoked, plan suspended, scope missing); null when fine. */
  problem: string | null;
  cachedCodes: number;
  attentionCount: number;
  /** Newest first, at most 50; dismissed items are not listed. */
  attention: AttentionItem[];
  /** The latest panic press not yet resolved or cancelled, so every screen can show it. */
  activePanic: PanicStatus | null;
  /** Who to call when an SOS cannot be sent; null when none were given at setup. */
  alarmPhones: string | null;
  /** The site's call-list numbers Tsaro never texts (112, a landline), as the server said; null when none (issue #48). */
  untextedPhones: string | null;
  /** From the key: a `sandbox` gate is a test gate, and every screen says so. */
  environment: 'live' | 'sandbox' | null;
  /** null until the server has answered the coverage check (or when it cannot: an older server). */
  coverage: GateCoverage | null;
  /**
   * The gates of the site this kiosk hears now (issue #49): their kiosk ids, those whose first
   * exchange is done (`ready`: they decide uses together with this one), and the SOSes pressed at
   * other gates that no gate has got to the server yet.
   */
  peers: { gates: Array<{ kioskId: string; ready: boolean }>; unsentSos: Array<{ gate: string; pressedAt: string }> };
}

export interface SyncReport {
  online: boolean;
  /** Operations the server acknowledged in this sync. */
  sent: number;
  /** Operations that went to the needs-attention list. */
  refused: number;
  pendingOperations: number;
  codesUpdated: number;
  error: string | null;
}

// ---------- The map ----------

export const kioskCallInputs = {
  setupStatus: SetupStatusInput,
  configure: ConfigureInput,
  startShift: StartShiftInput,
  scan: ScanInput,
  walkIn: WalkInInput,
  onPremises: OnPremisesInput,
  checkout: CheckoutInput,
  panicPress: PanicPressInput,
  panicStatus: PanicStatusInput,
  panicReport: PanicReportInput,
  kioskStatus: KioskStatusInput,
  recentScans: RecentScansInput,
  dismissAttention: DismissAttentionInput,
  syncNow: SyncNowInput,
} as const;

export interface KioskCallResults {
  setupStatus: SetupStatus;
  configure: ConfigureResult;
  startShift: Guard;
  scan: ScanDecision;
  walkIn: WalkInResult;
  onPremises: OnPremises;
  checkout: CheckoutResult;
  panicPress: PanicStatus;
  panicStatus: PanicStatus | null;
  panicReport: PanicStatus;
  kioskStatus: KioskStatus;
  recentScans: ScanDecision[];
  dismissAttention: { dismissed: boolean };
  syncNow: SyncReport;
}

export type KioskCallName = keyof typeof kioskCallInputs & keyof KioskCallResults;

/** What the screen sends (defaults not yet applied). */
export type KioskCallInput<N extends KioskCallName> = z.input<(typeof kioskCallInputs)[N]>;
/** What the core receives, after validation. */
export type KioskCallParsed<N extends KioskCallName> = z.output<(typeof kioskCallInputs)[N]>;
export type KioskCallResult<N extends KioskCallName> = KioskCallResults[N];

/** The core's side of the map: one function per call. */
export type KioskHandlers = { [N in KioskCallName]: (input: KioskCallParsed<N>) => Promise<KioskCallResult<N>> };

export function isKioskCallName(name: string): name is KioskCallName {
  return Object.hasOwn(kioskCallInputs, name);
}

/**
 * Every failed call answers this shape, over both transports. `code` follows HTTP: 400 bad
 * input (with the field in the message), 404 unknown visit or press, 409 already done, 412 the
 * kiosk is not set up yet, 502 the server could not be reached or refused (configure), 500 a bug.
 */
export interface KioskErrorBody {
  code: number;
  message: string;
}

export class KioskCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'KioskCallError';
  }
  toBody(): KioskErrorBody {
    return { code: this.code, message: this.message };
  }
}

/** "visitorPhone: Too small: ..." for the first problem: the same naming the API uses. */
export function describeInputError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid input';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Validates a call's input as the hosts do, throwing a 400 KioskCallError naming the field. */
export function parseCallInput<N extends KioskCallName>(name: N, input: unknown): KioskCallParsed<N> {
  const parsed = kioskCallInputs[name].safeParse(input ?? {});
  if (!parsed.success) throw new KioskCallError(400, describeInputError(parsed.error));
  return parsed.data as KioskCallParsed<N>;
}
