import { hash } from 'node:crypto';
import type { Express, Response } from 'express';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Express's weak ETag of a body (the `etag` package through `etag fn`, `W/"<length>-<sha1>"`),
 * with a one-shot hash of the string: the same value without a Hash object or a Buffer copy.
 */
export function weakEtagOf(body: string, length: number): string {
  return `W/"${length.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
}

/**
 * Replaces `res.json` for `app` with one that answers exactly what Express's `res.json` →
 * `res.send` answers (the same headers in the same order, the same weak ETag, 304 on a matching
 * If-None-Match), for less work: Express re-reads each setting and header, looks the charset up,
 * copies the body into a Buffer to hash it, and sets each header through `res.set`'s checks. The
 * body stays a string, so Node sends it in one write with the headers.
 *
 * Whatever the common case is not (a HEAD, a conditional request, a status without a body, a
 * Content-Type, ETag or Transfer-Encoding already set, an app with json or etag settings of its
 * own) goes to Express's own `res.send` with the same string, as `res.json` does.
 */
export function answerJsonDirectly(app: Express): void {
  const expressJson = app.response.json;
  // Once per app, at start-up: not the per-request shape the lint rule is about.
  // eslint-disable-next-line no-restricted-syntax
  app.response.json = function json(this: Response, value: unknown) {
    const settings = this.app.settings as Record<string, unknown>;
    if (
      settings['json replacer'] !== undefined ||
      settings['json spaces'] !== undefined ||
      settings['json escape'] ||
      settings.etag !== 'weak' ||
      this.getHeader('content-type') !== undefined
    ) {
      return expressJson.call(this, value);
    }
    const body = JSON.stringify(value) as string | undefined;
    this.setHeader('Content-Type', JSON_TYPE);
    const req = this.req;
    const headers = req.headers;
    const status = this.statusCode;
    if (
      body === undefined ||
      req.method === 'HEAD' ||
      headers['if-none-match'] !== undefined ||
      headers['if-modified-since'] !== undefined ||
      status === 204 ||
      status === 205 ||
      status === 304 ||
      this.getHeader('etag') !== undefined ||
      this.getHeader('transfer-encoding') !== undefined
    ) {
      return this.send(body);
    }
    const length = Buffer.byteLength(body);
    this.setHeader('Content-Length', String(length));
    this.setHeader('ETag', weakEtagOf(body, length));
    this.end(body);
    return this;
  };
}
