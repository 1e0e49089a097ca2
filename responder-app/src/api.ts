/**
 * The responder API, on the same origin as the app: openapi-fetch over the types generated from
 * that API's own OpenAPI document (src/schema.ts, `npm run client:types`), so a call's path,
 * parameters and body are checked against the document and its answer is typed from it.
 */
import createClient, { type Client, type ClientPathsWithMethod, type MaybeOptionalInit } from 'openapi-fetch';
import type { OutboxAction } from './outbox.ts';
import type { components, paths } from './schema.ts';

export type Offer = components['schemas']['Offer'];
export type Responder = components['schemas']['Responder'];
export type ResponderIncident = components['schemas']['ResponderIncident'];

/** The responder API, on the same origin as the app. */
export const API = '/v1/responder';

/** The request never got an answer (no network, dropped link): try again later, unchanged. */
export class Unreachable extends Error {}

type ResponderClient = Client<paths>;
type HttpMethod = 'get' | 'put' | 'post' | 'delete';
type OkStatus = 200 | 201 | 202 | 203 | 206;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/**
 * What a 2xx of `method path` carries, as the document declares it (openapi-fetch's
 * MethodResponse, without its Readable<>, which turns the tuple `coordinates: [lng, lat]` into number[]).
 */
export type AnswerOf<M extends HttpMethod, P extends ClientPathsWithMethod<ResponderClient, M>> = paths[P][M] extends { responses: infer R } ? JsonOf<R[Extract<keyof R, OkStatus>]> : never;
type CallInit<M extends HttpMethod, P extends keyof paths> = NonNullable<MaybeOptionalInit<paths[P], M>> & { signal?: AbortSignal };
type CallArgs<M extends HttpMethod, P extends keyof paths> = Partial<CallInit<M, P>> extends CallInit<M, P> ? [init?: CallInit<M, P>] : [init: CallInit<M, P>];
type BodyOf<M extends HttpMethod, P extends keyof paths> = CallInit<M, P> extends { body?: infer B } ? NonNullable<B> : never;

/** An answer: the document's body for a 2xx, the API's `{message}` otherwise (a body that is not JSON becomes the message). */
export type Answer<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: { message: string } };

const client = createClient<paths>({ baseUrl: API, cache: 'no-store' });

/** One call to the responder API. A 5xx counts as unreachable too: the same request is retried. */
export async function call<M extends HttpMethod, P extends ClientPathsWithMethod<ResponderClient, M>>(
  token: string,
  method: M,
  path: P,
  ...[init]: CallArgs<M, P>
): Promise<Answer<AnswerOf<M, P>>> {
  const signal = init?.signal;
  let result: { data?: unknown; error?: unknown; response: Response };
  try {
    // The cast joins openapi-fetch's generic init to ours; both come from the same `paths`.
    result = await client.request(method, path as never, { ...init, headers: { authorization: `Bearer ${token}` } } as never);
  } catch (error) {
    // A 2xx whose body is not JSON (openapi-fetch's SyntaxError) tells nothing either: sent again.
    if (signal?.aborted) throw error;
    throw new Unreachable((error as Error).message);
  }
  const { data, error, response } = result;
  const status = response.status;
  const answered = response.ok ? data : error;
  if (status >= 500 || (status !== 401 && (answered === undefined || answered === ''))) throw new Unreachable(`HTTP ${status}`);
  // The document's type for a 2xx; not checked at run time.
  if (response.ok) return { ok: true, status, body: data as AnswerOf<M, P> };
  const said = typeof error === 'object' && error !== null && 'message' in error ? error.message : error;
  return { ok: false, status, body: { message: typeof said === 'string' && said ? said : `HTTP ${status}` } };
}

/** What the server answers an outbox action it applies. */
export type ActionAnswer =
  | AnswerOf<'put', '/availability'>
  | AnswerOf<'post', '/offers/{offerId}/accept'>
  | AnswerOf<'post', '/offers/{offerId}/decline'>
  | AnswerOf<'post', '/incidents/{incidentId}/status'>
  | AnswerOf<'post', '/incidents/{incidentId}/resolve'>;

/**
 * An outbox action's request, by its kind. Its path and body were made for that kind when it was
 * queued (and are kept as they were, so actions queued by an older app still go); the casts say so.
 */
export function sendAction(token: string, action: OutboxAction): Promise<Answer<ActionAnswer>> {
  const id = decodeURIComponent(action.path.split('/')[2] ?? '');
  switch (action.kind) {
    case 'availability':
      return call(token, 'put', '/availability', { body: action.body as BodyOf<'put', '/availability'> });
    case 'accept':
      return call(token, 'post', '/offers/{offerId}/accept', { params: { path: { offerId: id } } });
    case 'decline':
      return call(token, 'post', '/offers/{offerId}/decline', { params: { path: { offerId: id } }, ...(action.body !== undefined && { body: action.body as BodyOf<'post', '/offers/{offerId}/decline'> }) });
    case 'responding':
    case 'on_scene':
      return call(token, 'post', '/incidents/{incidentId}/status', { params: { path: { incidentId: id } }, body: action.body as BodyOf<'post', '/incidents/{incidentId}/status'> });
    case 'resolve':
      return call(token, 'post', '/incidents/{incidentId}/resolve', { params: { path: { incidentId: id } }, body: action.body as BodyOf<'post', '/incidents/{incidentId}/resolve'> });
  }
}
