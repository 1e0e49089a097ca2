import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { DeepPageBusy, ReadLaneBusy, ReadTooBroad } from '../db/read-lane.ts';
import type { FieldProblem } from '../../shared/schemas/common.ts';
import { errorBody } from './error-body.ts';

/** An error the client caused or may act on; the handler answers `{code, message}` with its status. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Invalid input: every field's problem, the first of them being `message`. */
  readonly problems: FieldProblem[] | undefined;
  /** What the body says beside `code` and `message`, for an error a client acts on (a validation held because the holder is inside: `open_visit`). */
  readonly details: Record<string, unknown> | undefined;
  constructor(status: number, message: string, headers: Record<string, string> = {}, problems?: FieldProblem[], details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.problems = problems;
    this.details = details;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string) => new ApiError(409, message);

/** Seconds a client is told to wait after a 503 from a database fault. */
export const DATABASE_RETRY_AFTER_S = 2;

/**
 * PostgreSQL is unreachable, restarting or too slow: 503 with Retry-After. A write that failed
 * this way did not commit, or its outcome is unknown; either way it was not acknowledged, and a
 * retry with the same Idempotency-Key either replays the stored answer or runs it once.
 */
export function databaseUnavailable(): ApiError {
  return new ApiError(503, 'The database is not answering; nothing was acknowledged. Retry shortly (with the same Idempotency-Key for writes)', {
    'Retry-After': String(DATABASE_RETRY_AFTER_S),
  });
}

/**
 * A broad read (a list, search, stats or report) stopped by its time limit: 503, without
 * Retry-After, saying the request was too broad. Asking the same again would take as long;
 * a narrower one (a filter, a shorter window, a longer search, the next page by cursor) answers.
 */
export function readTooBroad(err: ReadTooBroad): ApiError {
  return new ApiError(
    503,
    `The request was too broad to answer within ${err.limitMs / 1000} s: narrow it (a filter, a shorter date range, a longer search term) or page on with cursor. Sending it again unchanged will not help`,
  );
}

/** Seconds a client is told to wait when every broad-read place is taken. */
export const READS_BUSY_RETRY_AFTER_S = 1;

/** Every broad-read place is taken (DATABASE_READ_CONCURRENCY) and stayed so: 503 with Retry-After. */
export function readsBusy(): ApiError {
  return new ApiError(503, 'Too many lists, searches and reports are running on this server right now; retry shortly', {
    'Retry-After': String(READS_BUSY_RETRY_AFTER_S),
  });
}

/** A page by `page` past `fromRows` while every deep-page place was taken (DATABASE_READ_DEEP_PAGES): 503 with Retry-After. */
export function deepPageBusy(err: DeepPageBusy): ApiError {
  return new ApiError(
    503,
    `Pages more than ${err.fromRows} rows deep by page number are read a few at a time on this server, and none was free; retry shortly, or page on with cursor (each page's next_cursor), which answers at any depth at once`,
    { 'Retry-After': String(READS_BUSY_RETRY_AFTER_S) },
  );
}

export const routeNotFound: RequestHandler = (req) => {
  throw new ApiError(404, `No route for ${req.method} ${req.path}`);
};

/** body-parser's errors carry `type`; each becomes a plain 4xx instead of a stack trace. */
const BODY_PARSER_ERRORS: Record<string, [number, string]> = {
  'entity.parse.failed': [400, 'Malformed JSON in request body'],
  'entity.too.large': [413, 'Request body is too large'],
  'entity.verify.failed': [400, 'Request body could not be verified'],
  'encoding.unsupported': [415, 'Unsupported content encoding'],
  'charset.unsupported': [415, 'Unsupported charset'],
  'request.aborted': [400, 'Request aborted'],
  'request.size.invalid': [400, 'Request size did not match Content-Length'],
  'stream.encoding.set': [500, 'Internal server error'],
  'parameters.too.many': [413, 'Too many parameters'],
};

/** The one error handler, mounted last: every error leaves as `{code, message}`, never a stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let status = 500;
    let message = 'Internal server error';
    let problems: FieldProblem[] | undefined;
    let details: Record<string, unknown> | undefined;
    if (err instanceof ReadTooBroad) err = readTooBroad(err);
    else if (err instanceof ReadLaneBusy) err = readsBusy();
    else if (err instanceof DeepPageBusy) err = deepPageBusy(err);
    const databaseFault = isDatabaseUnavailable(err);
    if (databaseFault) {
      logger.warn({ err, reqId: req.id }, 'request failed: database unavailable');
      err = databaseUnavailable();
    }
    if (err instanceof ApiError) {
      status = err.status;
      message = err.message;
      problems = err.problems;
      details = err.details;
      res.set(err.headers);
    } else if (isBodyParserError(err) && BODY_PARSER_ERRORS[err.type]) {
      [status, message] = BODY_PARSER_ERRORS[err.type]!;
    } else if (err instanceof URIError) {
      status = 400;
      message = 'Malformed percent-encoding in URL';
    } else if (isClientHttpError(err)) {
      // Other body-parser failures (a body that does not match its Content-Encoding, say) carry a 4xx.
      status = err.status;
      message = `Request body could not be read: ${err.expose ? err.message : 'invalid'}`;
    }
    if (status >= 500 && !databaseFault) logger.error({ err, reqId: req.id }, 'request failed');
    if (res.headersSent) return;
    res.status(status).json(errorBody(status, message, problems, details));
  };
}

function isClientHttpError(err: unknown): err is { status: number; message: string; expose?: boolean } {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function isBodyParserError(err: unknown): err is { type: string } {
  return typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type === 'string';
}
