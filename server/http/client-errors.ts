import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './error-body.ts';

/**
 * What Node's HTTP parser refuses before Express sees a request (headers over 16 KB, a garbage
 * request line, both Content-Length and Transfer-Encoding) would otherwise leave with an empty
 * body. Every answer the server writes is `{code, message}`: this writes a whole HTTP response
 * with that JSON, then closes the connection (the stream can not be trusted after a parse error).
 */
const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'Malformed HTTP request: Content-Length and Transfer-Encoding must not both be sent'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Malformed HTTP request: Content-Length and Transfer-Encoding must not both be sent'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'Malformed HTTP request: invalid Content-Length'],
  HPE_INVALID_METHOD: [400, 'Malformed HTTP request: invalid request line'],
  HPE_INVALID_URL: [400, 'Malformed HTTP request: invalid request line'],
  HPE_INVALID_VERSION: [400, 'Malformed HTTP request: invalid request line'],
  HPE_INVALID_CONSTANT: [400, 'Malformed HTTP request: invalid request line'],
  HPE_INVALID_HEADER_TOKEN: [400, 'Malformed HTTP request: invalid header'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timed out before it was complete'],
};

export function protocolErrorResponse(code: string | undefined): { status: number; body: string; raw: string } {
  const [status, message] = PARSER_ERRORS[code ?? ''] ?? [400, 'Malformed HTTP request'];
  const body = JSON.stringify(errorBody(status, message));
  const raw =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body;
  return { status, body, raw };
}

/** The `clientError` listener of the HTTP server. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // Nothing to answer: the client went away, or a response is already on this connection.
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  socket.end(protocolErrorResponse(err.code).raw);
}
