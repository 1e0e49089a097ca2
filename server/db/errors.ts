import { isStalePreparedStatement } from './statement-names.ts';

type PgLikeError = { code?: unknown; message?: unknown; neverSent?: unknown };
const codeOf = (err: unknown) => String((err as PgLikeError | null)?.code ?? '');
const messageOf = (err: unknown) => String((err as PgLikeError | null)?.message ?? '');

/** Socket errors: the connection to PostgreSQL is gone or never came up. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The statement never reached the server (the client was already broken): safe to run again, even a write. */
export function isNeverSent(err: unknown): boolean {
  return (err as PgLikeError | null)?.neverSent === true || /is not queryable/.test(messageOf(err));
}

/** The client-side wait for an answer ran out (`query_timeout`): the connection is no longer trusted. */
export function isAnswerTimeout(err: unknown): boolean {
  return messageOf(err) === 'Query read timeout';
}

/**
 * The connection this statement ran on is unusable: terminated by the server (57P01 admin
 * shutdown, 57P02 crash, a restart), reset, or stopped answering. Its outcome may be unknown.
 */
export function isConnectionLost(err: unknown): boolean {
  const code = codeOf(err);
  if (SOCKET_CODES.has(code) || code === '57P01' || code === '57P02' || code.startsWith('08')) return true;
  return isNeverSent(err) || isAnswerTimeout(err) || /^Connection terminated/.test(messageOf(err));
}

/**
 * PostgreSQL is down, restarting, overloaded or too slow: a 503 the client may retry, not a bug.
 * Covers a lost connection, a connection that could not be made in time, 57P03 (starting up),
 * 53xxx (too many connections, out of resources), 57014 (statement_timeout), and a prepared
 * statement refused inside a transaction because a migration changed its table (it is prepared
 * anew for the retry: statement-names.ts).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (isConnectionLost(err) || code === '57P03' || code === '57014' || code.startsWith('53') || isStalePreparedStatement(err)) return true;
  return /timeout exceeded when trying to connect|Connection terminated due to connection timeout/.test(messageOf(err));
}
