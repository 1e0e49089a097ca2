import { join } from 'node:path';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-dist';
import { ATTRIBUTION, CITATIONS } from '../../shared/schemas/threat.ts';
import { buildOpenApiDocument } from './openapi.ts';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tsaro partner API reference</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <footer id="data-attribution" style="font-family: sans-serif; font-size: 13px; max-width: 1400px; margin: 24px auto; padding: 0 20px; color: #3b4151">
    <p>${escapeHtml(ATTRIBUTION)}</p>
    <ul>${CITATIONS.map((citation) => `<li>${escapeHtml(citation)}</li>`).join('')}</ul>
  </footer>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/assets/reference.js"></script>
</body>
</html>`;

const BOOT = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false });`;

/**
 * The files of the installed swagger-ui-dist the page loads, and no others: the package also
 * holds a stock index.html, an OAuth redirect page and source maps, none of them ours to serve.
 */
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

/**
 * `/openapi.json` and the human-readable `/docs`, both without a key. Swagger UI is served from
 * the installed package: kiosks and test machines have no internet, so no CDN.
 */
export function docsRoutes(): Router {
  const router = Router();
  const document = JSON.stringify(buildOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  router.get('/docs', (req, res) => {
    // Relative asset URLs resolve against /v1/external/ only without a trailing slash, and the
    // page is mounted under /api/v1 too: `/docs/` goes to the page relative to where it is.
    if (req.path.endsWith('/')) return res.redirect(301, '../docs');
    res.type('html').send(PAGE);
  });
  router.get('/docs/assets/reference.js', (_req, res) => {
    res.type('application/javascript').send(BOOT);
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    if (!SWAGGER_UI_FILES.has(req.params.file)) return next();
    res.sendFile(join(swaggerUi.getAbsoluteFSPath(), req.params.file), { maxAge: '1h' });
  });
  return router;
}
