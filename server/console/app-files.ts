import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { ApiError } from '../http/errors.ts';

/** Where `vite build console` writes the console. */
export const CONSOLE_APP_DIST = resolve(import.meta.dirname, '../../console/dist');

/**
 * No inline script or style, nothing from elsewhere, never framed: the console holds the keys to
 * an organization, and everything partners or visitors wrote is shown in it. `data:` images are
 * the QR codes the page draws itself.
 */
export const CONSOLE_CSP = consoleCsp();

/** The policy, with an online tile server's origin allowed for images when one is set. */
export function consoleCsp(tileOrigin?: string): string {
  const images = tileOrigin ? `'self' data: ${tileOrigin}` : `'self' data:`;
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src ${images}; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'`;
}

/** What the console's maps draw on: the shipped borders only, or also tiles from a tile server or a folder. */
export interface ConsoleMapSettings {
  tileUrl?: string;
  /** A folder of `z/x/y.png` tiles served at /console/tiles/ (CONSOLE_TILE_DIR). */
  tileDir?: string;
  tileAttribution?: string;
}

/** Where the console finds a tile folder's tiles, as Leaflet takes a template. */
export const TILE_PATH_TEMPLATE = '/console/tiles/{z}/{x}/{y}.png';

/** `/tiles/6/32/30.png`: numbers only, so no path leaves the folder. */
const TILE_PATH = /^\/tiles\/(\d{1,2})\/(\d{1,7})\/(\d{1,7})\.png$/;

/** A client route (`/console/join/inv_…`, `/console/keys`): a last segment without a dot. */
const isClientRoute = (path: string) => !/\.[^/]*$/.test(path);

/**
 * The console's static files at /console/, on the API's own origin. Any path under it that is
 * not a file and looks like a page (no extension) gets index.html, so an invite link
 * `/console/join/{token}` or a reload on `/console/webhooks` opens the app on that screen. The
 * page is always revalidated; hashed assets are cached for good.
 */
export function consoleAppRoutes(dir: string = CONSOLE_APP_DIST, map: ConsoleMapSettings = {}): Router {
  const router = Router();
  const csp = consoleCsp(map.tileUrl ? new URL(map.tileUrl.replaceAll(/[{}]/g, '')).origin : undefined);
  router.use((req, res, next) => {
    res.setHeader('content-security-policy', csp);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('x-frame-options', 'DENY');
    // Relative to /console the app's base (/console/) would not apply.
    if (req.originalUrl === '/console' || req.originalUrl.startsWith('/console?')) {
      res.redirect(301, '/console/');
      return;
    }
    // The deployment's map settings, read by the console when a map opens.
    if (req.path === '/config.json') {
      res.setHeader('cache-control', 'no-cache');
      const tileUrl = map.tileDir ? TILE_PATH_TEMPLATE : (map.tileUrl ?? null);
      res.json({ map: { tile_url: tileUrl, tile_attribution: map.tileAttribution ?? null } });
      return;
    }
    // The operator's own tiles (CONSOLE_TILE_DIR); a tile the folder lacks is a 404, and the map
    // shows the shipped borders there.
    const tile = map.tileDir && (req.method === 'GET' || req.method === 'HEAD') ? TILE_PATH.exec(req.path) : null;
    if (tile) {
      const file = resolve(map.tileDir!, tile[1]!, tile[2]!, `${tile[3]}.png`);
      if (!existsSync(file)) {
        res.status(404).end();
        return;
      }
      res.setHeader('cache-control', 'public, max-age=86400');
      res.type('png').sendFile(file);
      return;
    }
    if (!existsSync(join(dir, 'index.html'))) {
      next(new ApiError(503, 'The console is not built: run `npm run build:console` (npm start builds it)'));
      return;
    }
    next();
  });
  // The build writes each asset beside its brotli and gzip copies (console/vite.config.ts): a
  // control room on a 1.6 Mbps link gets a third of the bytes, with no compression per request.
  router.use(
    expressStaticGzip(dir, {
      enableBrotli: true,
      orderPreference: ['br', 'gz'],
      index: 'index.html',
      serveStatic: {
        index: 'index.html',
        redirect: false,
        setHeaders(res, path) {
          if (/[\\/]assets[\\/]/.test(path)) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
          else res.setHeader('cache-control', 'no-cache');
        },
      },
    }),
  );
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isClientRoute(req.path) || req.path.startsWith('/assets/')) {
      next();
      return;
    }
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  });
  return router;
}
