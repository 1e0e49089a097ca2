/**
 * A typed client for the Tsaro partner API: openapi-fetch over the types generated from the
 * OpenAPI document (src/schema.ts), plus what every integration otherwise writes by hand:
 * an `Idempotency-Key` on every write, retries of 429 and 503 after `Retry-After`, paging through
 * lists, and webhook signature checks.
 */
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.ts';

export type { components, paths } from './schema.ts';
export { verifyWebhookSignature, type VerifyOptions } from './webhooks.ts';

export interface TsaroClientOptions {
  /** `https://HOST/v1/external` (the `{base_url}`). */
  baseUrl: string;
  /** `svc_live_...` or `svc_test_...`. */
  apiKey: string;
  /** Retries of a 429 or 503 before its answer is returned as it is (default 3). */
  maxRetries?: number;
  /** A longer `Retry-After` is not waited for: the answer is returned (default 60 s). */
  maxRetryAfterSeconds?: number;
  /** Makes the key a write carries when the caller sets none (default: a random UUID). */
  idempotencyKey?: () => string;
  /** How to wait before a retry (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: ClientOptions['fetch'];
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRIED = new Set([429, 503]);

/** Seconds to wait from a `Retry-After` (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * fetch that sets `Idempotency-Key` on writes and resends a 429 or 503 after `Retry-After`
 * (or 1 s, 2 s, 4 s... when the server gives none), with the same key, so a retried write is
 * applied once.
 */
function resilientFetch(options: TsaroClientOptions): (request: Request) => Promise<Response> {
  const base = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxRetryAfterSeconds ?? 60;
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  return async (request) => {
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', newKey());
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response;
      const wait = retryAfterSeconds(response.headers.get('retry-after')) ?? 2 ** attempt;
      if (wait > maxWait) return response;
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** Paths whose GET answers a page: `{results, page, limit, totalPages, totalResults}`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: infer R } } } ? (JsonOf<R> extends { results: unknown[]; totalPages: number } ? P : never) : never;
}[keyof paths];
export type ListItem<P extends ListPath> = paths[P] extends { get: { responses: { 200: infer R } } } ? (JsonOf<R> extends { results: Array<infer I> } ? I : never) : never;
export type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? Omit<NonNullable<Q>, 'page'> : never;
export type ListPathParams<P extends ListPath> = paths[P] extends { get: { parameters: { path: infer A } } } ? A : never;

/** An answer other than 2xx, with the API's `{code, message}` body. */
// Plain fields, not parameter properties: Node's type stripping (which the README says this runs on) refuses those.
export class TsaroApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(typeof body === 'object' && body !== null && 'message' in body ? `${status}: ${String(body.message)}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.name = 'TsaroApiError';
  }
}

export interface TsaroClient extends Client<paths> {
  /**
   * Every item of a list, page after page (`limit` 100 unless the query says otherwise):
   * `for await (const incident of tsaro.paginate('/incidents', { status: 'dispatching' }))`.
   */
  paginate<P extends ListPath>(path: P, query?: ListQuery<P>, pathParams?: ListPathParams<P>): AsyncGenerator<ListItem<P>>;
}

export function createTsaroClient(options: TsaroClientOptions): TsaroClient {
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: resilientFetch(options),
  });
  async function* paginate<P extends ListPath>(path: P, query?: ListQuery<P>, pathParams?: ListPathParams<P>): AsyncGenerator<ListItem<P>> {
    const get = client.GET as (path: string, init: unknown) => Promise<{ data?: any; error?: unknown; response: Response }>;
    for (let page = 1; ; page++) {
      const { data, error, response } = await get(path, { params: { query: { limit: 100, ...query, page }, path: pathParams } });
      if (!data) throw new TsaroApiError(response.status, error);
      yield* data.results as ListItem<P>[];
      if (page >= data.totalPages) return;
    }
  }
  return Object.assign(client, { paginate });
}
