import { z } from 'zod';

/**
 * What the gates of a site tell each other (issue #49; docs/kiosk.md, "The gates of a site").
 * Each fact has an id made by the kiosk that recorded it and never changes, so two kiosks' facts
 * merge by union however often they are exchanged, and a fact passed on by a third kiosk is the
 * same fact. A fact says what happened; only the kiosk that recorded an operation replays it to
 * the server.
 */
const Id = z.string().min(1).max(100);
const Text = z.string().max(500);
const Time = z.iso.datetime({ offset: true });

export const UseFact = z.strictObject({
  kind: z.literal('use'),
  /** The admitting kiosk's operation id of the validation (its replay settles the use). */
  useId: Id,
  codeId: Id,
  code: z.string().max(64),
  kioskId: Id,
  gate: Text,
  at: Time,
});
/** The server has counted a use: its count after it, which every kiosk's cache adopts. */
export const SettledFact = z.strictObject({ kind: z.literal('settled'), useId: Id, codeId: Id, kioskId: Id, useCount: z.number().int().min(0), at: Time });
export const VisitFact = z.strictObject({
  kind: z.literal('visit'),
  visitId: Id,
  kioskId: Id,
  gate: Text,
  method: z.enum(['code', 'walk_in']),
  codeId: Id.nullable(),
  visitorName: Text.nullable(),
  visitorPhone: Text.nullable(),
  hostUserId: Text.nullable(),
  at: Time,
});
/** The server's log id of a visit, once its recorder has it: a check-out anywhere can then name it. */
export const VisitLogFact = z.strictObject({ kind: z.literal('visit_log'), visitId: Id, kioskId: Id, logId: Id, at: Time });
/**
 * A visitor checked out at `gate`. When the visit was recorded elsewhere and the server has no log
 * id for it yet, the recorder of the visit queues the check-out to the server (`by` and `notes`
 * travel for it).
 */
export const CheckoutFact = z.strictObject({
  kind: z.literal('checkout'),
  visitId: Id,
  kioskId: Id,
  gate: Text,
  by: Text.nullable(),
  notes: Text.nullable(),
  /** The visit's recorder replays this check-out (the checking-out kiosk could not: no log id). */
  delegated: z.boolean(),
  at: Time,
});
/** An SOS at a gate, and each state it reached: every gate shows it, and one that reaches the server can carry it. */
export const PanicFact = z.strictObject({
  kind: z.literal('panic'),
  panicId: Id,
  /** The gate whose button was pressed. */
  kioskId: Id,
  gate: Text,
  state: z.enum(['pending', 'sent', 'closed']),
  pressedAt: Time,
  at: Time,
  /** Pending: the SOS exactly as its gate sends it (its idempotency key and body), so a gate that reaches the server can carry it. */
  request: z.strictObject({ idempotencyKey: z.string().min(1).max(200), body: z.string().max(8000) }).optional(),
  /** Sent: the incident the server made, and the gate that sent it (the pressing gate or a carrier). */
  incidentId: Id.optional(),
  incidentStatus: z.string().max(40).optional(),
  sentBy: Id.optional(),
});

export const PeerFact = z.discriminatedUnion('kind', [UseFact, SettledFact, VisitFact, VisitLogFact, CheckoutFact, PanicFact]);
export type PeerFact = z.infer<typeof PeerFact>;
export type UseFact = z.infer<typeof UseFact>;
export type VisitFact = z.infer<typeof VisitFact>;
export type CheckoutFact = z.infer<typeof CheckoutFact>;
export type PanicFact = z.infer<typeof PanicFact>;

/** A fact's id: its kind and its own id (a panic's state is part of it: each state is a fact). */
export function factIdOf(fact: PeerFact): string {
  switch (fact.kind) {
    case 'use':
    case 'settled':
      return `${fact.kind}:${fact.useId}`;
    case 'visit':
    case 'visit_log':
    case 'checkout':
      return `${fact.kind}:${fact.visitId}`;
    case 'panic':
      return `panic:${fact.panicId}:${fact.state}`;
  }
}

/** What a fact is about: the pass of a use, the visit of a visit, the SOS of a panic. */
export function subjectOf(fact: PeerFact): string {
  switch (fact.kind) {
    case 'use':
    case 'settled':
      return fact.codeId;
    case 'visit':
    case 'visit_log':
    case 'checkout':
      return fact.visitId;
    case 'panic':
      return fact.panicId;
  }
}

/** The messages of the peer channel, after the handshake. */
export const PeerMessage = z.discriminatedUnion('type', [
  /** Facts; `ready` on the last batch of the first exchange: the sender's ledger is all here. */
  z.strictObject({ type: z.literal('facts'), facts: z.array(z.unknown()).max(1000), ready: z.boolean().optional() }),
  /** A gate asks the pass's owner for one more use; `use` is the use it will record if granted. */
  z.strictObject({
    type: z.literal('ask'),
    askId: Id,
    use: UseFact,
    /** The pass as the asking gate knows it, for an owner that has never seen it. */
    maxUses: z.number().int().min(1),
    useCount: z.number().int().min(0),
  }),
  z.strictObject({ type: z.literal('answer'), askId: Id, admit: z.boolean(), lastUse: UseFact.nullable() }),
]);
export type PeerMessage = z.infer<typeof PeerMessage>;
