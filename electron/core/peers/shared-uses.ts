import { createHash } from 'node:crypto';

/**
 * The uses of passes that the gates of one site share while the server is away (issue #49;
 * docs/kiosk.md, "Offline across gates"). Pure: no database, no network. The peer channel feeds
 * it what the other gates say and asks it what to decide; the design and its failure cases are
 * written down in docs/kiosk.md.
 *
 * - Every use is a record with an id the admitting gate made, so two gates' ledgers merge by
 *   union (a grow-only set): nothing is lost or counted twice however often they are exchanged.
 * - Each pass has an owner among the gates that can hear each other: the one that scores highest
 *   for the pass (rendezvous hashing over the group's kiosk ids), so the group agrees on it
 *   without a vote and a pass's uses are decided in one place. A gate asks the owner; the owner
 *   decides from its ledger, which holds every use the group knows (gates exchange ledgers when
 *   they first hear each other, before the owner decides anything).
 * - When gates cannot hear each other, each group (one gate alone, at worst) decides alone: a pass
 *   may then be used more often than it allows. When they meet again (or reach the server) every
 *   gate computes the same excess from the merged ledger, and the gate that recorded an excess
 *   use reports it, once.
 */

/** One admission of a pass at a gate. */
export interface UseRecord {
  /** Made by the admitting gate (a ULID in the kiosk), unique across gates. */
  useId: string;
  /** The pass (its code). */
  code: string;
  kioskId: string;
  /** The gate's name, for "Used at Main gate, 10:42". */
  gate: string;
  /** When it was admitted (ISO 8601, the kiosk's corrected clock). */
  at: string;
}

/** Uses by code, each code's by use id. */
export type Ledger = ReadonlyMap<string, ReadonlyMap<string, UseRecord>>;

export const emptyLedger = (): Ledger => new Map();

/** The union of two ledgers: what both gates know. */
export function mergeLedgers(a: Ledger, b: Ledger): Ledger {
  const merged = new Map<string, Map<string, UseRecord>>();
  for (const ledger of [a, b]) {
    for (const [code, uses] of ledger) {
      const into = merged.get(code) ?? new Map<string, UseRecord>();
      for (const [useId, use] of uses) if (!into.has(useId)) into.set(useId, use);
      merged.set(code, into);
    }
  }
  return merged;
}

export function withUse(ledger: Ledger, use: UseRecord): Ledger {
  return mergeLedgers(ledger, new Map([[use.code, new Map([[use.useId, use]])]]));
}

/** The pass's uses in the order every gate agrees on: by time, then by id. */
export function usesOf(ledger: Ledger, code: string): UseRecord[] {
  return [...(ledger.get(code)?.values() ?? [])].sort((x, y) => (x.at === y.at ? (x.useId < y.useId ? -1 : 1) : x.at < y.at ? -1 : 1));
}

/**
 * The gate that decides the pass's uses among `members` (the kiosk ids of the gates that can hear
 * each other, this one included): the highest SHA-256 of code and kiosk id. Every member computes
 * the same owner; when one leaves, only the passes it owned move.
 */
export function ownerOf(code: string, members: readonly string[]): string {
  let best: { kioskId: string; score: string } | undefined;
  for (const kioskId of members) {
    const score = createHash('sha256').update(`${code}\n${kioskId}`).digest('hex');
    if (!best || score > best.score || (score === best.score && kioskId > best.kioskId)) best = { kioskId, score };
  }
  if (!best) throw new Error('ownerOf: no members');
  return best.kioskId;
}

export type UseDecision = { admit: true } | { admit: false; lastUse: UseRecord | null };

/**
 * The owner's decision for one more use of a pass that had `remaining` uses when the gates last
 * heard the server: admitted while the uses it knows are fewer; refused naming the last use
 * ("Used at Main gate, 10:42").
 */
export function decideUse(ledger: Ledger, code: string, remaining: number): UseDecision {
  const uses = usesOf(ledger, code);
  if (uses.length < remaining) return { admit: true };
  // null: the pass had no use left when the gates last heard the server.
  return { admit: false, lastUse: uses.at(-1) ?? null };
}

/**
 * The uses beyond `remaining`, the same at every gate that holds the same ledger: the latest ones
 * (by the agreed order), which were admitted by gates that could not hear the owner.
 */
export function excessUses(ledger: Ledger, code: string, remaining: number): UseRecord[] {
  return usesOf(ledger, code).slice(Math.max(0, remaining));
}

/** The excess uses this gate recorded (only the recorder reports a use, as only it replays it). */
export function excessToReport(ledger: Ledger, remainingByCode: ReadonlyMap<string, number>, kioskId: string): UseRecord[] {
  const mine: UseRecord[] = [];
  for (const [code, remaining] of remainingByCode) {
    for (const use of excessUses(ledger, code, remaining)) if (use.kioskId === kioskId) mine.push(use);
  }
  return mine;
}
