import type { ErrorBody, FieldProblem } from '../../shared/schemas/common.ts';

/**
 * Every error the server answers, on every path (the error handler, the Idempotency-Key
 * middleware, a refused operation of a kiosk batch, the HTTP parser's refusals, the metrics
 * listener): `{code, message}`, the code equal to the HTTP status, and for invalid input every
 * field's problem in `errors`. Built here only.
 */
export function errorBody(status: number, message: string, errors?: FieldProblem[], details?: Record<string, unknown>): ErrorBody {
  // `details`: what an error a client acts on says beside (`open_visit` of a held validation); never over `code` or `message`.
  const base: ErrorBody = errors?.length ? { code: status, message, errors } : { code: status, message };
  return details ? { ...details, ...base } : base;
}
