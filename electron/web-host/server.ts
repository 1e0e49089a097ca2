import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { httpServerOptions } from '../../shared/http-timeouts.ts';
import { KIOSK_CALL_PATH } from '../../shared/kiosk/client.ts';
import { answerCall } from '../core/answer-call.ts';
import type { KioskCore } from '../core/core.ts';
// The same policy as the renderer's meta tag, plus what only a header can say; one text for both hosts.
import { RENDERER_CONTENT_SECURITY_POLICY as CONTENT_SECURITY_POLICY } from '../renderer-protocol.ts';

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tsaro gate</title></head>
<body style="font-family:sans-serif;padding:2rem"><h1>Tsaro gate kiosk</h1>
<p>The kiosk core is running. The screens are not built yet: run <code>npm run build:renderer</code> (<code>npm run kiosk:web</code> builds them itself from a checkout).</p></body></html>`;

export interface WebHost {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface WebHostOptions {
  core: KioskCore;
  /** 0 for any free port (tests). */
  port: number;
  /** The built renderer (renderer/dist). */
  rendererDir: string;
  logError?: (error: unknown) => void;
}

/**
 * The browser host: the renderer and the handler map over HTTP, on 127.0.0.1 only, so a kiosk
 * can be a Chromium window in kiosk mode. Any page the browser opens could also reach
 * 127.0.0.1, so calls are accepted only with this host's own Host (no DNS rebinding), no
 * foreign Origin, and a JSON body (which a cross-site form cannot send without a preflight
 * this host never grants).
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const app = express();
  app.disable('x-powered-by');
  const logError = options.logError ?? ((error: unknown) => console.error(error));
  let port = options.port;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  app.use((req, res, next) => {
    res.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    if (!allowedHosts().has(req.headers.host ?? '')) {
      res.status(421).json({ code: 421, message: 'This kiosk host answers only at its own loopback address' });
      return;
    }
    next();
  });

  app.post(`${KIOSK_CALL_PATH}:name`, express.json({ limit: '64kb' }), async (req, res) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts().has(origin.replace(/^https?:\/\//, ''))) {
      res.status(403).json({ code: 403, message: 'Calls are accepted only from the kiosk page itself' });
      return;
    }
    if (!req.is('application/json')) {
      res.status(415).json({ code: 415, message: 'Send the call input as application/json' });
      return;
    }
    const answer = await answerCall(options.core, String(req.params.name), req.body, logError);
    res.status(answer.status).set('Cache-Control', 'no-store').json(answer.body);
  });
  app.all(`${KIOSK_CALL_PATH}*rest`, (_req, res) => {
    res.status(405).json({ code: 405, message: 'Kiosk calls are POST requests' });
  });

  const index = join(options.rendererDir, 'index.html');
  app.use(express.static(options.rendererDir, { index: 'index.html', fallthrough: true }));
  app.get('*path', (_req, res) => {
    if (existsSync(index)) res.sendFile(index);
    else res.type('html').send(PLACEHOLDER);
  });

  // Malformed JSON and the like: the kiosk's error shape, never a stack trace.
  app.use((error: Error & { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) logError(error);
    res.status(status).json({ code: status, message: status === 500 ? 'The kiosk host failed' : error.message });
  });

  // A request that stalls while arriving is closed, as the API server's are (shared/http-timeouts.ts).
  const server = createServer(httpServerOptions(), app).listen(options.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
