/**
 * The kiosk's HTTP client for the Tsaro API: one function that classifies every answer the way
 * the outbox needs it.
 *   - `ok`: 2xx, the operation is applied (or was already, and this is its replayed answer);
 *   - `refused`: a 4xx the operation itself caused (bad body, already checked out, ...): retrying
 *     cannot help, so it goes to the needs-attention list;
 *   - `blocked`: 401, 402 or 403: the kiosk's key or the organization's plan, not the operation;
 *     nothing is sent until that is fixed, and nothing is dropped;
 *   - `unavailable`: no answer, a timeout, a 5xx, a 429 or a 409 "still in progress": try again later.
 */
export type ServerAnswer<T = any> =
  | { kind: 'ok'; status: number; body: T; replayed: boolean }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'blocked'; status: number; message: string }
  | { kind: 'unavailable'; status: number | null; message: string; retryAfterMs: number | null };

export interface ServerApi {
  request<T = any>(method: string, path: string, options?: { body?: string; idempotencyKey?: string; timeoutMs?: number }): Promise<ServerAnswer<T>>;
  /** ok: the server answers and its database too; serverTime: its clock, to correct the kiosk's. */
  health(timeoutMs?: number): Promise<{ ok: boolean; serverTime: string | null }>;
}

export interface ServerApiOptions {
  serverUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** Default per-request timeout. */
  timeoutMs: number;
}

export function createServerApi(options: ServerApiOptions): ServerApi {
  const base = options.serverUrl.replace(/\/+$/, '');
  return {
    async request(method, path, { body, idempotencyKey, timeoutMs } = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      let response: Response;
      let text: string;
      try {
        response = await options.fetch(base + path, {
          method,
          headers,
          body,
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs ?? options.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        return { kind: 'unavailable', status: null, message: networkMessage(error), retryAfterMs: null };
      }
      return classifyAnswer(response.status, parseJson(text), {
        replayed: response.headers.get('idempotent-replayed') === 'true',
        retryAfter: response.headers.get('retry-after'),
      });
    },

    async health(timeoutMs = 2000) {
      // A connection kept alive past the server's idle timeout fails once when reused: one more
      // try at once tells that apart from a link that is down.
      for (let attempt = 1; ; attempt++) {
        try {
          const response = await options.fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
          const body = parseJson(await response.text());
          // 200 `degraded` is a server that serves every request (only Redis is down, limits are
          // per host); a 503 is one whose database does not answer.
          const serving = body?.status === 'ok' || body?.status === 'degraded';
          return { ok: response.ok && serving, serverTime: typeof body?.timestamp === 'string' ? body.timestamp : null };
        } catch (error) {
          const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
          if (timedOut || attempt >= 2) return { ok: false, serverTime: null };
        }
      }
    },
  };
}

/** One answer, by its status and body: a whole response, or one item of a batch replay (`POST /kiosk/replay`). */
export function classifyAnswer(status: number, body: any, meta: { replayed: boolean; retryAfter: string | null }): ServerAnswer {
  const message = typeof body?.message === 'string' ? body.message : `HTTP ${status}`;
  if (status >= 200 && status < 300) return { kind: 'ok', status, body, replayed: meta.replayed };
  if (status === 401 || status === 402 || status === 403) return { kind: 'blocked', status, message };
  if (status >= 500 || status === 429 || (status === 409 && /in progress/i.test(message)) || status === 408) {
    const retryAfter = Number(meta.retryAfter);
    return { kind: 'unavailable', status, message, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null };
  }
  return { kind: 'refused', status, message };
}

function parseJson(text: string): any {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function networkMessage(error: unknown): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'The server did not answer in time';
  const cause = err.cause?.code ?? err.cause?.message;
  return cause ? `The server cannot be reached (${cause})` : `The server cannot be reached (${err.message})`;
}
