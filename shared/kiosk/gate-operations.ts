import type { z } from 'zod';
import { CheckoutRequest, CreateAccessLogRequest, ValidateAccessCodeRequest } from '../schemas/access.ts';
import type { Scope } from '../schemas/api-keys.ts';
import { KioskHeartbeatRequest } from '../schemas/kiosks.ts';
import { DAY_MS, HOUR_MS } from '../time.ts';

/**
 * What a gate kiosk sends the server, declared once: each operation's single request (method,
 * path in Express form, the scope its key needs, the body schema, the status of success). The
 * server's routes, its batch endpoint (`POST /kiosk/replay`, server/kiosk-replay/) and the
 * kiosk core (its outbox, setup check and replay batches) all read it. A new kind of operation
 * is one entry here; the type checker then asks each reader that handles kinds one by one (the
 * batch's `run`, the kiosk's description of a refusal) for its part.
 */
export interface GateOperation {
  method: 'POST' | 'PATCH' | 'PUT';
  /** Express form, `/access-logs/:logId/checkout`; `gateOperationPath` fills it in. */
  path: string;
  scope: Scope;
  body: z.ZodType;
  /** What the single route answers when the operation is applied. */
  okStatus: 200 | 201;
  /** How the kiosk names it to a guard when the server refuses it for good. */
  described: string;
}

export const GATE_OPERATIONS = {
  validate: {
    method: 'POST',
    path: '/access-codes/validate',
    scope: 'access_codes:validate',
    body: ValidateAccessCodeRequest,
    okStatus: 200,
    described: 'The scan',
  },
  walk_in: {
    method: 'POST',
    path: '/access-logs',
    scope: 'access_codes:write',
    body: CreateAccessLogRequest,
    okStatus: 201,
    described: 'The walk-in check-in',
  },
  checkout: {
    method: 'PATCH',
    path: '/access-logs/:logId/checkout',
    scope: 'access_codes:write',
    body: CheckoutRequest,
    okStatus: 200,
    described: 'The checkout',
  },
  // The kiosk's health, queued like the rest while offline, but only the latest is kept
  // (electron/core/link/heartbeat.ts): an upsert of the kiosk's state, never a change to replay in order.
  heartbeat: {
    method: 'PUT',
    path: '/kiosks/:kioskId/heartbeat',
    scope: 'access_codes:validate',
    body: KioskHeartbeatRequest,
    okStatus: 200,
    described: 'The heartbeat',
  },
} as const satisfies Record<string, GateOperation>;

export type GateOperationKind = keyof typeof GATE_OPERATIONS;
export const GATE_OPERATION_KINDS = Object.keys(GATE_OPERATIONS) as GateOperationKind[];

/** The operation's path with its parameters filled in (each URI-encoded): `gateOperationPath('checkout', { logId })`. */
export function gateOperationPath(kind: GateOperationKind, params: Record<string, string> = {}): string {
  return GATE_OPERATIONS[kind].path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${kind}: the path needs ${name}`);
    return encodeURIComponent(value);
  });
}

/** The parameters of a filled-in path of the operation, or undefined when the path is not one of its. */
export function gateOperationParams(kind: GateOperationKind, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = GATE_OPERATIONS[kind].path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  return match ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])) : undefined;
}

/**
 * How old an operation's own time (`scanned_at`, `checked_in_at`, `checked_out_at`) may be when
 * it reaches the server, which refuses older ones with a 400: a kiosk may be offline for days
 * and still replay what it did, with the time it happened.
 */
export const REPLAY_WINDOW_MS = 7 * DAY_MS;

/**
 * The kiosk's margin inside that window, for an operation it makes now carrying an earlier time
 * (the walk-in that records a visitor admitted offline whose scan the server refused). The
 * kiosk makes it while online, just after the server's answer, and sends it with the next
 * batch; the margin covers the kiosk's clock (kept within 5 s of the server's, and the server
 * allows a minute ahead) and a link that drops before that batch leaves. An operation older
 * than the window minus this margin is sent with the time it is made, the earlier time in its
 * notes, rather than be refused and lost. (The kiosk used to assume 6 days, a day's margin
 * taken from nowhere.)
 */
export const KIOSK_REPLAY_MARGIN_MS = HOUR_MS;

/** Whether an operation the kiosk makes at `now` may still carry the earlier time `at`. */
export function withinKioskReplayWindow(at: string, now: string): boolean {
  return Date.parse(now) - Date.parse(at) < REPLAY_WINDOW_MS - KIOSK_REPLAY_MARGIN_MS;
}
