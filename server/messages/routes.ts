import express, { type Router } from 'express';
import { KannelDeliveryReport, ListTextMessagesQuery, TextGateway, TextMessagePage } from '../../shared/schemas/messages.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { parseInput } from '../http/parse.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { listTextMessages, recordDeliveryReport, textGatewayState } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Text messages'];

/** Text messages (SMS) Tsaro sent for the organization's alarms (docs/api.md, "Text messages"). */
export const messageRouteList = [
  route({
    method: 'get',
    lane: 'reads',
    path: '/messages',
    access: 'incidents:read',
    query: ListTextMessagesQuery,
    operationId: 'listTextMessages',
    tags,
    summary: 'List the text messages sent for incidents, newest first',
    description:
      "An escalated or unresponsive live incident at a site texts the site's call list (`escalated`, then `unresponsive`). Each text is queued, sent (the SMS gateway took it), then delivered or failed from the gateway's delivery report; the incident's timeline says the same (`sms_sent`, `sms_delivered`, `sms_failed`). Nothing is sent while the server has no SMS gateway (`SMS_GATEWAY`). Past an hourly ceiling (`GET /messages/gateway`) a host's text is `held` (never sent) and an alarm is `merged` into one text to its number naming how many (`merged_into`); a text's words are Tsaro's, with a caller's (a visitor's name, a gate, a title, an address) only as a short name without links, phone numbers or line breaks.",
    responses: { ...ok(200, 'One page', TextMessagePage), ...errors() },
    async handler({ query, db }, req, res) {
      // A host's text names a visitor: listed only to those who may read visits.
      res.json(await listTextMessages(db, tenantOf(req), query, { hostTexts: authOf(req).scopes.has('logs:read') }));
    },
  }),
  route({
    method: 'get',
    path: '/messages/gateway',
    access: 'incidents:read',
    operationId: 'textGateway',
    tags,
    summary: 'Whether this server sends text messages, through which gateway, and what its hourly ceilings held back',
    description:
      'The console says "Text messages are off" when `enabled` is false: no SMS gateway is set (`SMS_GATEWAY`), and alarms text nobody. `ceilings`: how many texts one number, and one organization, may be sent in any hour; past them a host\'s text is held (never sent) and alarms are merged into one text per number naming how many, at most one every `alarm_merge_seconds`. `last_hour`: the texts held and the alarms merged in the last hour, as this caller may list them.',
    responses: { ...ok(200, 'The gateway', TextGateway), ...errors() },
    async handler(_input, req, res, deps) {
      res.json(await textGatewayState(deps.db, deps.texting, tenantOf(req), { hostTexts: authOf(req).scopes.has('logs:read') }));
    },
  }),
] as const;

export const messageRoutes = (deps: RouteDeps): Router => routerOf(messageRouteList, deps, deps);

/**
 * Where Kannel reports delivery (`dlr-url`, a GET): outside the partner API, authenticated by
 * the message's own token in the URL it was given. Kannel only needs a 2xx to stop retrying.
 */
export function kannelReportRoutes(deps: RouteDeps): Router {
  const router = express.Router();
  router.get('/kannel/dlr', async (req, res) => {
    const report = parseInput(KannelDeliveryReport, req.query, 'query');
    const outcome = await recordDeliveryReport(deps.db, deps.texting, report);
    res.json({ message_id: report.id, status: outcome.status });
  });
  return router;
}
