import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
import { buildOpenApiDocument } from './openapi.ts';
import { escapeHtml, renderReferencePage, type OpenApiDocument } from './reference-page.ts';

/**
 * The reference page allows nothing but its own stylesheet: it has no script, no image, no
 * frame and no form. It is served on the console's origin too, so it must not be framable.
 */
export const REFERENCE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const STYLESHEET = readFileSync(join(import.meta.dirname, 'reference.css'), 'utf8');

/** Where the page is, the key and the first incident: what a newcomer needs before the operations. `%BASE%` is the API's address. */
const FIRST_REQUEST = `
<p>Every request carries an API key in <code>Authorization: Bearer</code>. The first <code>npm start</code>
prints a sandbox owner key; keys are made in the console under <a href="/console/keys">Keys</a>. A sandbox key
(<code>svc_test_...</code>) is answered by a simulated responder network, so an incident moves through
every status while you watch; a live key (<code>svc_live_...</code>) reaches real responders.</p>
<pre><code>KEY=svc_test_...
BASE=%BASE%

curl -s -X POST $BASE/incidents -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -H 'Idempotency-Key: first-incident-0001' \\
  -d '{"category":"sos","severity":"critical","subject":{"name":"Ada Obi","phone":"+2348012345678"},
       "location":{"coordinates":[3.3792,6.5244],"address":"12 Admiralty Way, Lekki"}}'</code></pre>
<p>The answer is <code>201</code> with the incident, already <code>dispatching</code>, and its <code>incident_id</code>.
Read it again to follow it (or receive each change as a signed webhook, see <a href="#tag-webhooks">Webhooks</a>):</p>
<pre><code>curl -s $BASE/incidents/inc_... -H "Authorization: Bearer $KEY"</code></pre>
<p>A request with bad input answers <code>400</code> with <code>{"code": 400, "message": "severity is required", "errors": [...]}</code>:
<code>message</code> is the first problem, <code>errors</code> every problem with its field. Sending the same
<code>Idempotency-Key</code> again replays the first answer instead of reporting the incident twice.</p>`;

/**
 * `/openapi.json` and the human-readable `/docs`, both without a key. The page is rendered once,
 * from the same document, when first asked for; per request only the API's address is filled in.
 */
export function docsRoutes(): Router {
  const router = Router();
  const openApi = buildOpenApiDocument();
  const document = JSON.stringify(openApi);
  // Rendered at the first request for it (about 20 ms), not at every start of every host.
  // Relative to /v1/external/docs (and /v1/external/api/v1/docs): the page's links work under both mounts.
  let page: [before: string, after: string] | undefined;
  const rendered = () =>
    (page ??= renderReferencePage(openApi as unknown as OpenApiDocument, { firstRequest: FIRST_REQUEST, stylesheet: 'docs/assets/reference.css', documentUrl: 'openapi.json' }).split('%BASE%') as [string, string]);
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  router.get('/docs', (req, res) => {
    // Relative asset URLs resolve against /v1/external/ only without a trailing slash, and the
    // page is mounted under /api/v1 too: `/docs/` goes to the page relative to where it is.
    if (req.path.endsWith('/')) return res.redirect(301, '../docs');
    const base = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
    const [before, after] = rendered();
    res.set(REFERENCE_PAGE_HEADERS).type('html').send(before + escapeHtml(base) + after);
  });
  router.get('/docs/assets/reference.css', (_req, res) => {
    res.set(REFERENCE_PAGE_HEADERS).type('text/css').set('cache-control', 'public, max-age=3600').send(STYLESHEET);
  });
  return router;
}
