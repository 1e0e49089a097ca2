/**
 * How long an HTTP server of ours (the API, the kiosk's browser host) waits for a request to
 * arrive. A client that opens a connection and sends its headers or body a byte at a time
 * (slowloris) would otherwise hold a socket and its memory for Node's defaults, 60 s for the
 * headers and 300 s for the whole request, and a few hundred of them exhaust a host. A
 * request is counted only while it is being received: once it is whole, its handler may take as
 * long as it needs, so a long poll (`GET /offers?wait=30`) is not cut.
 */
export interface RequestTimeouts {
  /** The request line and every header, from the request's first byte. */
  headersMs: number;
  /** The whole request, body included, from its first byte. */
  requestMs: number;
}

/** 20 s for headers that a phone on a bad link sends in one packet; 30 s for a body of at most 256 KB. */
export const REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 20_000, requestMs: 30_000 };

/**
 * Options for `http.createServer`: the timeouts above, Node's 5 s keep-alive idle time stated
 * (a client reusing a connection within it saves a handshake; an idle socket is not kept longer),
 * and how often the timeouts are checked (Node's default, 30 s, would let a stalled request live
 * up to 50 s).
 */
export function httpServerOptions(timeouts: RequestTimeouts = REQUEST_TIMEOUTS) {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs / 2),
  };
}
