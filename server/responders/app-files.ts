import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { Router } from 'express';
import { appSecurityHeaders } from '../http/app-headers.ts';
import { ApiError } from '../http/errors.ts';

/** Where `vite build responder-app` writes the responder app. */
export const RESPONDER_APP_DIST = resolve(import.meta.dirname, '../../responder-app/dist');

/**
 * The responder app's static files at /responder/, on the API's own origin (no CORS). The page,
 * the manifest and the service worker are always revalidated so a phone picks up a new build
 * on its next visit; hashed assets are cached for good. Every answer carries the hosted apps'
 * security headers (server/http/app-headers.ts).
 */
export function responderAppRoutes(dir: string = RESPONDER_APP_DIST): Router {
  const router = Router();
  router.use(appSecurityHeaders);
  router.use((req, res, next) => {
    // Relative to /responder the app's scope (/responder/) would not apply.
    if (req.originalUrl === '/responder') {
      res.redirect(301, '/responder/');
      return;
    }
    if (!existsSync(join(dir, 'index.html'))) {
      next(new ApiError(503, 'The responder app is not built: run `npm run build:responder` (npm start builds it)'));
      return;
    }
    next();
  });
  router.use(
    express.static(dir, {
      index: 'index.html',
      redirect: true,
      setHeaders(res, path) {
        if (/[\\/]assets[\\/]/.test(path)) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
        else res.setHeader('cache-control', 'no-cache');
        if (path.endsWith('sw.js')) res.setHeader('service-worker-allowed', '/responder/');
      },
    }),
  );
  return router;
}
