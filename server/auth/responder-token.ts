import type { Request, RequestHandler } from 'express';
import type { Db, ResponderRow } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { responderByTokenHash } from '../responders/service.ts';
import { hashSecret } from './secrets.ts';

/** A responder token as `tsaro responder add` makes it: `rtk_` and 40 base62 characters (older lengths still accepted). */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `responderAuthentication`: the responder whose token signed the request. */
      responder?: ResponderRow;
    }
  }
}

export const RESPONDER_TOKEN = /^rtk_[0-9A-Za-z]{32,64}$/;

/**
 * The responder behind `Authorization: Bearer rtk_...`, or a 401. A deactivated responder's
 * token answers 401 like an unknown one: that is how the operator signs a phone out.
 */
export async function authenticateResponder(db: Db, req: Request): Promise<ResponderRow> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.get('authorization') ?? '');
  const token = match?.[1];
  if (!token || !RESPONDER_TOKEN.test(token)) throw new ApiError(401, 'Missing or malformed responder token: send Authorization: Bearer rtk_...');
  const row = await responderByTokenHash(db, hashSecret(token));
  if (!row || row.status !== 'active') throw new ApiError(401, 'Invalid or deactivated responder token');
  return row;
}

/** Middleware: a 401 unless the request carries an active responder's token; `responderOf(req)` then reads it. */
export function responderAuthentication(db: Db): RequestHandler {
  return async (req, _res, next) => {
    req.responder = await authenticateResponder(db, req);
    next();
  };
}

export function responderOf(req: Request): ResponderRow {
  if (!req.responder) throw new Error('route is not behind responderAuthentication()');
  return req.responder;
}
