import type { Environment } from './types.ts';

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

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface ClientContext {
  /** The session's CSRF token, sent on every request that changes something. */
  csrfToken: () => string | undefined;
  environment: () => Environment;
  /** A 401 from a data route: the session ended (idle, signed out elsewhere, person removed). */
  onSessionEnded: () => void;
}

export interface RequestOptions {
  /** The API's Idempotency-Key: a retry of the same request is answered, never run twice. */
  idempotencyKey?: string;
}

export interface Client {
  get<T = any>(path: string, query?: Query): Promise<T>;
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  patch<T = any>(path: string, body: unknown): Promise<T>;
  put<T = any>(path: string, body: unknown): Promise<T>;
  del<T = any>(path: string): Promise<T>;
}

export function withQuery(path: string, query?: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** Sign-in routes answer 401 for a wrong password or code: that is not a session that ended. */
const SIGN_IN_PATHS = /^\/console\/(sign-in|invitations\/[^/]+(\/accept)?$|session$)/;

export function createClient(ctx: ClientContext): Client {
  async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'tsaro-environment': ctx.environment() };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (method !== 'GET') {
      const token = ctx.csrfToken();
      if (token) headers['x-csrf-token'] = token;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(API_BASE + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'The server did not answer. Check the connection and try again.');
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (response.ok) return parsed as T;
    const message = typeof parsed?.message === 'string' ? parsed.message : `The server answered ${response.status}.`;
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status === 401 && !SIGN_IN_PATHS.test(path.split('?')[0]!)) ctx.onSessionEnded();
    throw new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  return {
    get: (path, query) => request('GET', withQuery(path, query)),
    post: (path, body, options) => request('POST', path, body ?? {}, options),
    patch: (path, body) => request('PATCH', path, body),
    put: (path, body) => request('PUT', path, body),
    del: (path) => request('DELETE', path),
  };
}

/** What to tell a person about a failed request: the server's own words. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429 && error.retryAfterS) return `${error.message} Try again in ${error.retryAfterS} s.`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
