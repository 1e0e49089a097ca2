import type { Offer, Responder, ResponderIncident } from '../../shared/schemas/responders.ts';

export type { Offer, Responder, ResponderIncident };

/** The responder API, on the same origin as the app. */
export const API = '/v1/responder';

/** The request never got an answer (no network, dropped link): try again later, unchanged. */
export class Unreachable extends Error {}

export interface Answer<T = any> {
  status: number;
  body: T;
}

/** One call to the responder API. A 5xx counts as unreachable too: the same request is retried. */
export async function call<T = any>(token: string, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(API + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Unreachable((error as Error).message);
  }
  const text = await response.text().catch(() => '');
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text };
  }
  if (response.status >= 500 || (response.status !== 401 && !parsed)) throw new Unreachable(`HTTP ${response.status}`);
  return { status: response.status, body: parsed as T };
}
