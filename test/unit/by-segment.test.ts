import type { AddressInfo } from 'node:net';
import express, { Router, type ErrorRequestHandler, type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bySegment } from '../../server/http/by-segment.ts';

/** Three routers as features declare them: full paths, one segment shared by two of them. */
function routers(): Router[] {
  const incidents = Router();
  incidents.get('/incidents', (_req, res) => void res.json({ from: 'incidents', list: true }));
  incidents.get('/incidents/:incidentId', (req, res) => void res.json({ from: 'incidents', id: req.params.incidentId }));
  incidents.post('/incidents/:incidentId/cancel', () => {
    throw Object.assign(new Error('already closed'), { status: 409 });
  });
  const codes = Router();
  codes.post('/access-codes/validate', (_req, res) => void res.json({ from: 'codes', validated: true }));
  codes.get('/access-codes/:code', (req, res, next) => (req.params.code === 'skip' ? next('route') : res.json({ from: 'codes', code: req.params.code })));
  // The same first segment in a later router: reached when the first has no route for the path,
  // and after `next('route')` leaves the first router's match.
  const more = Router();
  more.get('/access-codes/:code/history', (req, res) => void res.json({ from: 'more', code: req.params.code }));
  more.get('/access-codes/:code', (req, res) => void res.json({ from: 'more', code: req.params.code }));
  more.get('/safety/score', (_req, res) => void res.json({ from: 'more', score: 71 }));
  return [incidents, codes, more];
}

const onError: ErrorRequestHandler = (err, _req, res, _next) => {
  res.status((err as { status?: number }).status ?? 500).json({ error: (err as Error).message });
};

function appWith(mount: (api: Router) => void): Express {
  const app = express();
  const api = Router();
  mount(api);
  app.use('/v1', api);
  app.use((_req, res) => void res.status(404).json({ error: 'no route' }));
  app.use(onError);
  return app;
}

async function listen(app: Express) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const REQUESTS: Array<[string, string]> = [
  ['GET', '/v1/incidents'],
  ['GET', '/v1/incidents/'],
  ['GET', '/v1/incidents/inc_1'],
  ['GET', '/v1/Incidents/inc_1'],
  ['GET', '/v1/INCIDENTS'],
  ['GET', '/v1/incidents/inc_1/extra'],
  ['POST', '/v1/incidents/inc_1/cancel'],
  ['DELETE', '/v1/incidents/inc_1'],
  ['OPTIONS', '/v1/incidents/inc_1'],
  ['OPTIONS', '/v1/access-codes/ABC'],
  ['POST', '/v1/access-codes/validate'],
  ['GET', '/v1/access-codes/ABC'],
  ['GET', '/v1/access-codes/skip'],
  ['GET', '/v1/access-codes/ABC/history'],
  ['GET', '/v1/safety/score?latitude=6.5'],
  ['GET', '/v1/safety'],
  ['GET', '/v1/unknown/thing'],
  ['GET', '/v1/'],
  ['GET', '/v1'],
  ['GET', '/v1/%69ncidents'],
  ['GET', '/v1/:incidentId'],
];

describe('bySegment: the feature routers behind one lookup by first path segment', () => {
  let mountedInTurn: Awaited<ReturnType<typeof listen>>;
  let routedBySegment: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    mountedInTurn = await listen(appWith((api) => routers().forEach((router) => api.use(router))));
    routedBySegment = await listen(appWith((api) => api.use(bySegment(routers()))));
  });
  afterAll(async () => {
    await mountedInTurn.close();
    await routedBySegment.close();
  });

  it('answers every request exactly as the routers mounted one after another do', async () => {
    const answer = async (base: string, [method, path]: [string, string]) => {
      const response = await fetch(`${base}${path}`, { method });
      return { request: `${method} ${path}`, status: response.status, allow: response.headers.get('allow'), body: await response.text() };
    };
    for (const request of REQUESTS) {
      expect(await answer(routedBySegment.url, request)).toEqual(await answer(mountedInTurn.url, request));
    }
    // And the answers are the routes' own, not two identical 404s.
    expect(JSON.parse((await answer(routedBySegment.url, ['GET', '/v1/access-codes/skip'])).body)).toEqual({ from: 'more', code: 'skip' });
    expect((await answer(routedBySegment.url, ['GET', '/v1/Incidents/inc_1'])).status).toBe(200);
    expect((await answer(routedBySegment.url, ['POST', '/v1/incidents/inc_1/cancel'])).status).toBe(409);
  });

  it('lists every route of its routers, so walkers of app.router (the OpenAPI check) still see them', () => {
    const paths = bySegment(routers()).listRoutes().map((route) => `${route.methods?.join(',')} ${String(route.path)}`);
    expect(paths).toContain('GET,HEAD /incidents/:incidentId');
    expect(paths).toContain('GET,HEAD /safety/score');
    expect(paths).toHaveLength(8);
  });

  it('refuses, at start-up, a router it could not route correctly', () => {
    const wildcard = Router();
    wildcard.get('/:anything/score', (_req, res) => void res.end());
    expect(() => bySegment([wildcard])).toThrow(/literal segment/);
    const withMiddleware = Router();
    withMiddleware.use((_req, _res, next) => next());
    withMiddleware.get('/incidents', (_req, res) => void res.end());
    expect(() => bySegment([withMiddleware])).toThrow(/middleware/);
  });
});
