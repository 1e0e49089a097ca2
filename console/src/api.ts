/**
 * The partner API and the console's own routes, on the page's origin: openapi-fetch over the
 * types generated from the server's OpenAPI document (clients/typescript/src/schema.ts, `npm run
 * client:types`; a test fails while it is stale), as the kiosk and the responder app use. A call's
 * path, parameters and body are checked against the document and its answer is typed from it.
 * What every request needs (the environment, the CSRF token, the session ending on a 401) is in
 * one middleware, not at the call sites.
 */
import createFetchClient, { type Client as FetchClient, type ClientPathsWithMethod, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../clients/typescript/src/schema.ts';

/** The document's schemas, by name: `Schemas['ApiKey']`. */
export type Schemas = components['schemas'];
export type Environment = Schemas['Environment'];

/** The partner API and the console's own routes, on the page's origin. */
export const API_BASE = '/v1/external';

/** An answer that was not 2xx: the API's `{code, message}`, with the status and any Retry-After. */
export class ApiError extends Error {
  readonly status: number;
  readonly retryAfterS: number | null;
  constructor(status: number, message: string, retryAfterS: number | null = null) {
    super(message);
    this.status = status;
    this.retryAfterS = retryAfterS;
  }
}

export interface ClientContext {
  /** The session's CSRF token, sent on every request that changes something. */
  csrfToken: () => string | undefined;
  environment: () => Environment;
  /** The organization worked in, for a person in several (`Tsaro-Organization`); undefined: the one they joined first. */
  organization: () => string | undefined;
  /** A 401 from a data route: the session ended (idle, signed out elsewhere, person removed). */
  onSessionEnded: () => void;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type PathOf<M extends Method> = ClientPathsWithMethod<FetchClient<paths>, M>;
type OkStatus = 200 | 201 | 202 | 204;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
/** A list's item: what `results` of its page holds. */
export type ItemOf<P extends keyof paths> = AnswerOf<'get', P> extends { results: (infer T)[] } ? T : never;
/** What a 2xx of `method path` carries, as the document declares it. */
export type AnswerOf<M extends Method, P extends keyof paths> = paths[P][M] extends { responses: infer R } ? JsonOf<R[Extract<keyof R, OkStatus>]> : never;
/** openapi-fetch's `{ params: { path, query }, body }`, and the API's Idempotency-Key. */
export type InitOf<M extends Method, P extends keyof paths> = NonNullable<MaybeOptionalInit<paths[P], M>> & { idempotencyKey?: string };
type Args<M extends Method, P extends keyof paths> = Partial<InitOf<M, P>> extends InitOf<M, P> ? [init?: InitOf<M, P>] : [init: InitOf<M, P>];
/** A route's path parameters (`{ endpointId }`). */
export type PathParamsOf<P extends keyof paths> = InitOf<'get', P> extends { params?: { path?: infer T } } ? NonNullable<T> : never;
/** A list route's query (what `readAllPages` and the list hook send). */
export type QueryOf<P extends keyof paths> = InitOf<'get', P> extends { params?: { query?: infer Q } } ? NonNullable<Q> : never;

export interface Client {
  get<P extends PathOf<'get'>>(path: P, ...init: Args<'get', P>): Promise<AnswerOf<'get', P>>;
  post<P extends PathOf<'post'>>(path: P, ...init: Args<'post', P>): Promise<AnswerOf<'post', P>>;
  put<P extends PathOf<'put'>>(path: P, ...init: Args<'put', P>): Promise<AnswerOf<'put', P>>;
  patch<P extends PathOf<'patch'>>(path: P, ...init: Args<'patch', P>): Promise<AnswerOf<'patch', P>>;
  del<P extends PathOf<'delete'>>(path: P, ...init: Args<'delete', P>): Promise<AnswerOf<'delete', P>>;
}

/** Sign-in routes answer 401 for a wrong password or code: that is not a session that ended. */
const SIGN_IN_PATHS = /^\/console\/(sign-in|invitations\/[^/]+(\/accept)?$|session$)/;

/** The console's headers on every request, and a 401 from a data route ending the session. */
export function consoleMiddleware(ctx: ClientContext): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('accept', 'application/json');
      request.headers.set('tsaro-environment', ctx.environment());
      const organization = ctx.organization();
      if (organization) request.headers.set('tsaro-organization', organization);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const token = ctx.csrfToken();
        if (token) request.headers.set('x-csrf-token', token);
      }
      return request;
    },
    onResponse({ request, response }) {
      const path = new URL(request.url).pathname.slice(API_BASE.length);
      if (response.status === 401 && !SIGN_IN_PATHS.test(path)) ctx.onSessionEnded();
      return response;
    },
  };
}

export function createClient(ctx: ClientContext): Client {
  const api = createFetchClient<paths>({ baseUrl: API_BASE, credentials: 'same-origin', cache: 'no-store', querySerializer: (query) => withQuery('', query).slice(1) });
  api.use(consoleMiddleware(ctx));
  async function call(method: Method, path: string, init: { idempotencyKey?: string; headers?: Record<string, string> } = {}): Promise<unknown> {
    const { idempotencyKey, ...rest } = init;
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      // The cast joins the generic init to openapi-fetch's; both come from the same `paths`.
      result = await api.request(method, path as never, { ...rest, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : undefined } as never);
    } catch {
      throw new ApiError(0, 'The server did not answer. Check the connection and try again.');
    }
    const { data, error, response } = result;
    if (response.ok) return data;
    const said = typeof error === 'object' && error !== null && 'message' in error ? (error as { message: unknown }).message : undefined;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(response.status, typeof said === 'string' && said ? said : `The server answered ${response.status}.`, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  return {
    get: (path, ...[init]) => call('get', path, init as never) as never,
    post: (path, ...[init]) => call('post', path, init as never) as never,
    put: (path, ...[init]) => call('put', path, init as never) as never,
    patch: (path, ...[init]) => call('patch', path, init as never) as never,
    del: (path, ...[init]) => call('delete', path, init as never) as never,
  };
}

/** A query string from a record, blanks left out: an empty filter is no filter. */
export function withQuery(path: string, query?: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** What to tell a person about a failed request: the server's own words. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429 && error.retryAfterS) return `${error.message} Try again in ${error.retryAfterS} s.`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
