import { z } from 'zod';
import { GATE_OPERATIONS, type GateOperationKind } from '../kiosk/gate-operations.ts';
import { KioskId } from './kiosks.ts';

/** Most operations in one replay: on SQLite the batch holds the database's writer while it runs. */
export const MAX_REPLAY_OPS = 200;

const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')
  .meta({ description: "The operation's own Idempotency-Key: the same record as the single request's, so either replays the other" });

/** `As \`PATCH /access-logs/{logId}/checkout\``: the single request the operation stands for. */
const operationOf = <K extends GateOperationKind>(kind: K) =>
  z.literal(kind).meta({ description: `As \`${GATE_OPERATIONS[kind].method} ${GATE_OPERATIONS[kind].path.replace(/:(\w+)/g, '{$1}')}\`` });

const ValidateOp = z.strictObject({
  operation: operationOf('validate'),
  idempotency_key: IdempotencyKey,
  body: GATE_OPERATIONS.validate.body,
});

const WalkInOp = z.strictObject({
  operation: operationOf('walk_in'),
  idempotency_key: IdempotencyKey,
  body: GATE_OPERATIONS.walk_in.body,
});

const CheckoutOp = z
  .strictObject({
    operation: operationOf('checkout'),
    idempotency_key: IdempotencyKey,
    log_id: z.string().min(1).max(100).optional().meta({ description: 'The visit to close, when the kiosk knows it' }),
    log_of: IdempotencyKey.optional().meta({
      description:
        'Or: the Idempotency-Key of the walk-in or validation that opened the visit (earlier in this batch or in an earlier request); the server closes the log that operation answered',
    }),
    body: GATE_OPERATIONS.checkout.body.optional(),
  })
  .refine((op) => (op.log_id === undefined) !== (op.log_of === undefined), { path: ['log_id'], message: 'give exactly one of log_id and log_of' });

const HeartbeatOp = z.strictObject({
  operation: operationOf('heartbeat'),
  idempotency_key: IdempotencyKey,
  kiosk_id: KioskId.meta({ description: 'The kiosk the heartbeat is from (the path parameter of the single request)' }),
  body: GATE_OPERATIONS.heartbeat.body,
});

export const ReplayOperation = z.discriminatedUnion('operation', [ValidateOp, WalkInOp, CheckoutOp, HeartbeatOp]).meta({ id: 'ReplayOperation' });
export type ReplayOperation = z.infer<typeof ReplayOperation>;

export const ReplayRequest = z
  .strictObject({
    ops: z.array(ReplayOperation).min(1).max(MAX_REPLAY_OPS).meta({ description: `Applied in this order; at most ${MAX_REPLAY_OPS}` }),
  })
  .meta({ id: 'ReplayRequest' });

export const ReplayItemResult = z
  .object({
    idempotency_key: z.string(),
    status: z.int().meta({
      description:
        'The status the single request would answer (200, 201, 400, 403, 404, 409, 429...); 424 when `log_of` names no operation that checked a visitor in (yet): nothing was done, send it again later',
    }),
    replayed: z.boolean().meta({ description: 'The stored answer of an earlier request with this key (the single route says so in `Idempotent-Replayed`)' }),
    body: z.unknown().meta({ description: "The single route's body: `ValidationResult`, `{access_log}`, or the error `{code, message}` (a validation held with `already_inside: hold`: `AlreadyInsideError`, with `open_visit`)" }),
  })
  .meta({ id: 'ReplayItemResult' });
export type ReplayItemResult = z.infer<typeof ReplayItemResult>;

export const ReplayResponse = z
  .object({ results: z.array(ReplayItemResult).meta({ description: 'One per operation, in order' }) })
  .meta({ id: 'ReplayResponse' });
