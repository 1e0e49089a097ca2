/** Where the responder app is served, on the API server's own origin. */
export const RESPONDER_APP_PATH = '/responder/';

/**
 * The link that signs a phone's app in: the token rides in the fragment, which a browser never
 * sends to a server, so it stays out of access logs and proxies; the app keeps it and clears it
 * from the address bar.
 */
export function signInUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${RESPONDER_APP_PATH}#token=${encodeURIComponent(token)}`;
}
