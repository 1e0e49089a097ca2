/**
 * The operations centre's client: openapi-fetch over the staff API's own document
 * (`/v1/staff`, types in ./schema.ts from `npm run client:types`), on the page's origin, with the
 * staff session's CSRF token on every change. A failure is thrown as the API's message.
 */
import createFetchClient from 'openapi-fetch';
import type { components, paths } from './schema.ts';

export type StaffSchemas = components['schemas'];
export type StaffSession = StaffSchemas['StaffSession'];

export function createStaffClient(csrfToken: () => string | undefined) {
  const client = createFetchClient<paths>({ baseUrl: '/v1/staff' });
  client.use({
    onRequest({ request }) {
      const token = csrfToken();
      if (token && request.method !== 'GET') request.headers.set('x-csrf-token', token);
      return request;
    },
  });
  return client;
}
export type StaffClient = ReturnType<typeof createStaffClient>;

/** The answer of a call that succeeded, or its `{code, message}` as an Error (status kept). */
export async function answerOf<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const message = (error as { message?: string } | undefined)?.message ?? `The server answered ${response.status}`;
  throw Object.assign(new Error(message), { status: response.status });
}
