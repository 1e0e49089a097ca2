/**
 * The kiosk's HTTP client for the Tsaro API: openapi-fetch over the partner API's generated types
 * (clients/typescript/src/schema.ts, the same document and library as `@tsaro/client`), so a
 * call's path, parameters and body are checked against the document and its answer is typed from
 * it. Every answer is classified the way the outbox needs it:
 *   - `ok`: 2xx, the operation is applied (or was already, and this is its replayed answer);
 *   - `refused`: a 4xx the operation itself caused (bad body, already checked out, ...): retrying
 *     cannot help, so it goes to the needs-attention list;
 *   - `blocked`: 401, 402 or 403: the kiosk's key or the organization's plan, not the operation;
 *     nothing is sent until that is fixed, and nothing is dropped;
 *   - `unavailable`: no answer, a timeout, a 5xx, a 429 or a 409 "still in progress", or a 2xx
 *     whose body is not JSON (a proxy's page): try again later.
 */
import createClient, { type Client, type ClientPathsWithMethod, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from '../../../clients/typescript/src/schema.ts';
import { GATE_OPERATIONS, type GateOperationKind } from '../../../shared/kiosk/gate-operations.ts';
import type { OpenVisit } from '../../../shared/schemas/access.ts';

export type PartnerPaths = paths;
type PartnerClient = Client<paths>;
type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

export type ServerAnswer<T = unknown> =
  | { kind: 'ok'; status: number; body: T; replayed: boolean }
  /** `openVisit`: a validation held because the holder of the code is inside (409, `already_inside: hold`). */
  | { kind: 'refused'; status: number; message: string; openVisit?: OpenVisit }
  | { kind: 'blocked'; status: number; message: string }
  | { kind: 'unavailable'; status: number | null; message: string; retryAfterMs: null | number };

type OkStatus = 200 | 201 | 202 | 203 | 206;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/**
 * What a 2xx of `method path` carries, as the document declares it (openapi-fetch's
 * MethodResponse, without its Readable<>, which turns the tuple `coordinates: [lng, lat]` into number[]).
 */
export type AnswerOf<M extends HttpMethod, P extends ClientPathsWithMethod<PartnerClient, M>> = paths[P][M] extends { responses: infer R } ? JsonOf<R[Extract<keyof R, OkStatus>]> : never;

/** openapi-fetch's options for the operation (params: path, query, header; body), and this call's own timeout. */
export type CallInit<M extends HttpMethod, P extends keyof paths> = NonNullable<MaybeOptionalInit<paths[P], M>> & {
  /** Instead of the default per-request timeout. */
  timeoutMs?: number;
};
/** The request body `method path` takes, as the document declares it. */
export type BodyOf<M extends HttpMethod, P extends keyof paths> = CallInit<M, P> extends { body?: infer B } ? NonNullable<B> : never;
/** The init may be left out when nothing in it is required (no path parameter, no body). */
type CallArgs<M extends HttpMethod, P extends keyof paths> = Partial<CallInit<M, P>> extends CallInit<M, P> ? [init?: CallInit<M, P>] : [init: CallInit<M, P>];

export interface ServerApi {
  /**
   * One call of the partner API: `api.call('get', '/incidents/{incidentId}', { params: { path: { incidentId } } })`.
   * A write's Idempotency-Key is its declared header parameter (`params.header['Idempotency-Key']`).
   */
  call<M extends HttpMethod, P extends ClientPathsWithMethod<PartnerClient, M>>(method: M, path: P, ...init: CallArgs<M, P>): Promise<ServerAnswer<AnswerOf<M, P>>>;
  /** ok: the server answers and its database too; serverTime: its clock, to correct the kiosk's. */
  health(timeoutMs?: number): Promise<{ ok: boolean; serverTime: string | null }>;
}

/** `/access-logs/:logId/checkout` (Express, as gate-operations.ts declares it) as the document writes it: `/access-logs/{logId}/checkout`. */
type DocumentPath<P extends string> = P extends `${infer Head}:${infer Name}/${infer Tail}`
  ? `${Head}{${Name}}/${DocumentPath<Tail>}`
  : P extends `${infer Head}:${infer Name}`
    ? `${Head}{${Name}}`
    : P;

/**
 * A gate operation's declared method and path (shared/kiosk/gate-operations.ts) in the document's
 * form, for `api.call`: the type checker then holds the declaration to the document (a declared
 * path the partner API does not serve with that method does not compile) and types its body.
 */
export function gateCall<K extends GateOperationKind>(kind: K) {
  const declared = GATE_OPERATIONS[kind];
  return {
    method: declared.method.toLowerCase() as Lowercase<(typeof GATE_OPERATIONS)[K]['method']>,
    path: declared.path.replace(/:(\w+)/g, '{$1}') as DocumentPath<(typeof GATE_OPERATIONS)[K]['path']>,
  };
}

export interface ServerApiOptions {
  serverUrl: string;
  apiKey: string;
  /** Called as `fetch(url, init)`, never with a Request: Electron's and the tests' links see plain URLs. */
  fetch: typeof fetch;
  /** Default per-request timeout. */
  timeoutMs: number;
}

export function createServerApi(options: ServerApiOptions): ServerApi {
  const base = options.serverUrl.replace(/\/+$/, '');
  const client = createClient<paths>({
    baseUrl: base,
    headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
    redirect: 'error',
    // openapi-fetch hands over a Request; the kiosk's fetch is called as it always was.
    fetch: async (request) =>
      options.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body === null ? undefined : await request.text(),
        redirect: 'error',
        signal: request.signal,
      }),
  });
  return {
    async call(method, path, ...[init]) {
      const { timeoutMs, ...rest } = (init ?? {}) as { timeoutMs?: number };
      try {
        // The cast joins openapi-fetch's generic init to ours; both come from the same `paths`.
        const { data, error, response } = await client.request(method, path as never, {
          ...rest,
          signal: AbortSignal.timeout(timeoutMs ?? options.timeoutMs),
        } as never);
        return classifyAnswer(response.status, response.ok ? data : error, {
          replayed: response.headers.get('idempotent-replayed') === 'true',
          retryAfter: response.headers.get('retry-after'),
        });
      } catch (error) {
        // openapi-fetch reads a 2xx body as JSON: one that is not (a proxy's page) tells nothing of the operation.
        if (error instanceof SyntaxError) return { kind: 'unavailable', status: null, message: 'The server answered with a body that is not JSON', retryAfterMs: null };
        return { kind: 'unavailable', status: null, message: networkMessage(error), retryAfterMs: null };
      }
    },

    async health(timeoutMs = 2000) {
      // A connection kept alive past the server's idle timeout fails once when reused: one more
      // try at once tells that apart from a link that is down. Not through the typed client: a
      // 503 here is an answer to read (the database is down), not an error.
      for (let attempt = 1; ; attempt++) {
        try {
          const response = await options.fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
          const body = parseJson(await response.text()) as Partial<AnswerOf<'get', '/health'>> | undefined;
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

/**
 * One answer, by its status and body: a whole response, or one item of a batch replay
 * (`POST /kiosk/replay`). `T` is what the caller knows a 2xx of that request carries (the
 * document's type); the body is not checked against it at run time.
 */
export function classifyAnswer<T = unknown>(status: number, body: unknown, meta: { replayed: boolean; retryAfter: string | null }): ServerAnswer<T> {
  const said = typeof body === 'object' && body !== null && 'message' in body ? body.message : undefined;
  const message = typeof said === 'string' ? said : `HTTP ${status}`;
  if (status >= 200 && status < 300) return { kind: 'ok', status, body: body as T, replayed: meta.replayed };
  if (status === 401 || status === 402 || status === 403) return { kind: 'blocked', status, message };
  if (status >= 500 || status === 429 || (status === 409 && /in progress/i.test(message)) || status === 408) {
    const retryAfter = Number(meta.retryAfter);
    return { kind: 'unavailable', status, message, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null };
  }
  const openVisit = status === 409 && typeof body === 'object' && body !== null && 'open_visit' in body ? (body.open_visit as OpenVisit) : undefined;
  return openVisit ? { kind: 'refused', status, message, openVisit } : { kind: 'refused', status, message };
}

function parseJson(text: string): unknown {
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
