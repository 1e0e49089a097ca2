import type { RequestHandler } from 'express';

/**
 * The Content-Security-Policy of an app the server hosts for people (the responder app at
 * /responder/, the console later): everything from this origin and nothing inline, so text a
 * partner or visitor wrote can never run as script even if it reached the page as HTML.
 * `style-src 'self'` still lets React set `style` properties (CSSOM is not covered by CSP);
 * `connect-src 'self'` is the API on the same origin; the service worker is `worker-src`.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export const APP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  // Sign-in links carry the token in the fragment; no page of the app tells another site where it was.
  'referrer-policy': 'no-referrer',
};

/** Sets APP_SECURITY_HEADERS on every answer of a hosted app, its errors included. */
export const appSecurityHeaders: RequestHandler = (_req, res, next) => {
  res.set(APP_SECURITY_HEADERS);
  next();
};
