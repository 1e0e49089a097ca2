import { Router } from 'express';
import { createDocument } from 'zod-openapi';
import { pathsOf } from '../http/define-route.ts';
import { responderRouteList } from './routes.ts';

/** The responder API's own document: a responder's phone app is not a partner integration. */
export function buildResponderOpenApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tsaro responder API',
      version: 'v1',
      description:
        "For the service's own responders' phone apps; Tsaro's own app is served at `/responder/` on the same origin. Authenticate with the token the operator's `tsaro responder add` printed (its `sign_in_url` opens the app signed in): `Authorization: Bearer rtk_...`. A deactivated responder's token answers 401: the app signs out. Send the availability heartbeat while on duty; long-poll `/offers?wait=25` to hear of an incident at once; the first to accept is assigned (exactly once); report `responding`, `on_scene`, then resolve with an outcome. Accept, decline, status and resolve may be retried unchanged after a lost answer: a retry gets the same answer again, and changes nothing twice. A position older than five minutes (DISPATCH_FIX_MAX_AGE_S) is never used to offer you an incident: keep the heartbeat going. `GET /duty` tells your status and, on scene, when the next \"I'm OK\" check-in is due (`POST /incidents/{id}/check-in`): a missed one alerts Tsaro's controllers, two put the case at the top of their queue. `POST /panic` alerts them at once. `PUT /out-of-service` with a reason takes you out of offers until `DELETE /out-of-service`.",
      license: { name: 'Proprietary', identifier: 'LicenseRef-Tsaro-Proprietary' },
    },
    servers: [{ url: '/v1/responder' }],
    security: [{ responderToken: [] }],
    components: { securitySchemes: { responderToken: { type: 'http', scheme: 'bearer', description: 'rtk_... responder token' } } },
    paths: pathsOf(responderRouteList),
  });
}

/** `/openapi.json` of the responder API, without a token. */
export function responderDocsRoutes(): Router {
  const router = Router();
  const document = JSON.stringify(buildResponderOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  return router;
}
