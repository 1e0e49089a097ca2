import { Router, type Request } from 'express';
import { AvailabilityRequest } from '../../shared/schemas/responders.ts';
import type { Clock } from '../clock.ts';
import type { Db, ResponderRow } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { parseInput } from '../http/parse.ts';
import { rowToResponder } from './responder.ts';
import { findResponderByToken, reportAvailability } from './service.ts';

const TOKEN = /^rtk_[0-9A-Za-z]{32,64}$/;

/**
 * The responder API at /v1/responder, apart from the partner API: a responder's phone app
 * authenticates with its own token (`Authorization: Bearer rtk_...`), reports availability and
 * location, and (with the dispatch engine) sees and answers offers.
 */
export function responderRoutes(deps: { db: Db; clock: Clock }): Router {
  const router = Router();

  async function responderOf(req: Request): Promise<ResponderRow> {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.get('authorization') ?? '');
    const token = match?.[1];
    if (!token || !TOKEN.test(token)) throw new ApiError(401, 'Missing or malformed responder token: send Authorization: Bearer rtk_...');
    const row = await findResponderByToken(deps.db, token);
    if (!row || row.status !== 'active') throw new ApiError(401, 'Invalid or deactivated responder token');
    return row;
  }

  router.get('/me', async (req, res) => {
    res.json({ responder: rowToResponder(await responderOf(req)) });
  });

  router.put('/availability', async (req, res) => {
    const responder = await responderOf(req);
    const body = parseInput(AvailabilityRequest, req.body, 'body');
    res.json({ responder: await reportAvailability(deps.db, deps.clock, responder.responder_id, body) });
  });

  return router;
}
