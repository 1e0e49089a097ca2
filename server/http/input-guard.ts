import type { RequestHandler } from 'express';
import { badRequest } from './errors.ts';
import { fieldPath } from './parse.ts';

/** Deeper than any request the API defines; deeper still would overflow the stack downstream. */
const MAX_DEPTH = 32;
/** Keys a prototype-pollution attack uses: refused by name, never silently dropped by a schema. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The media types read as JSON (express.json's `type`): application/json and any `+json`. */
export const JSON_MEDIA_TYPES = ['application/json', '+json'];

/**
 * A body that is there: a positive Content-Length, or chunks. A bodiless request (no
 * Content-Length, or 0, and no Transfer-Encoding) is not one, whatever its Content-Type says:
 * the kiosk and clients send POSTs such as cancel without a body.
 */
function carriesBody(req: Parameters<RequestHandler>[0]): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/**
 * What no route accepts, refused before any route sees it: a body that is not JSON (a 400
 * naming Content-Type; read as absent, it would let cancel, revoke or checkout act without
 * their fields), NUL characters (PostgreSQL text
 * cannot hold them) in the URL or anywhere in the body, `__proto__`, `constructor` and
 * `prototype` keys anywhere in the body (a 400 naming the path, e.g.
 * `subject.metadata.__proto__: key not allowed`), and bodies nested deeper than 32 levels. Walks the body without recursion, so a hostile body cannot overflow the stack here.
 */
export const inputGuard: RequestHandler = (req, _res, next) => {
  if (carriesBody(req) && !req.is(JSON_MEDIA_TYPES)) throw badRequest('Content-Type must be application/json for a request body');
  if (/%00/.test(req.originalUrl)) throw badRequest('The URL must not contain NUL (%00) characters');
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: req.body, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw badRequest(`${fieldPath(path) || 'body'}: must not contain NUL characters`);
    } else if (typeof value === 'object' && value !== null) {
      if (path.length >= MAX_DEPTH) throw badRequest(`${fieldPath(path)}: nested deeper than ${MAX_DEPTH} levels`);
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\u0000')) throw badRequest(`${fieldPath(path) || 'body'}: a key contains a NUL character`);
        if (FORBIDDEN_KEYS.has(key)) throw badRequest(`${fieldPath([...path, key])}: key not allowed`);
        stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
      }
    }
  }
  next();
};
