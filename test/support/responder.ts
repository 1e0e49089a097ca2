import type { TestServer } from './server.ts';

/** A responder app's call of the responder API (`/v1/responder`), with the responder's own token. */
export type ResponderCall = (path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: any }>;

/** Calls the responder API of `server` as the responder holding `token` (GET, or the method given). */
export function responderCall(server: Pick<TestServer, 'baseUrl'>, token: string): ResponderCall {
  const base = server.baseUrl.replace('/v1/external', '/v1/responder');
  return async (path, init = {}) => {
    const response = await fetch(base + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
}
