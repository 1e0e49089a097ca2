/**
 * How the Electron shell serves the kiosk's screens: a privileged custom scheme,
 * `tsaro-kiosk://app/…`, answered from the built renderer (renderer/dist) on disk, rather than
 * file:// URLs. Why: Chromium's fetch() refuses file:// (so the QR decoder's .wasm could not be
 * fetched, and WebAssembly.instantiateStreaming needs `application/wasm` anyway), file:// pages
 * share one opaque origin with every other file, and a standard, secure scheme gives the page a
 * real origin of its own for its CSP ('self'), storage and camera permission. Plain functions,
 * tested in Node (test/kiosk/renderer-protocol.test.ts); main.ts only registers them.
 */
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

export const RENDERER_SCHEME = 'tsaro-kiosk';
export const RENDERER_HOST = 'app';
export const RENDERER_ORIGIN = `${RENDERER_SCHEME}://${RENDERER_HOST}`;
/** The one page the kiosk window shows. */
export const RENDERER_INDEX_URL = `${RENDERER_ORIGIN}/index.html`;

/** What `protocol.registerSchemesAsPrivileged` is given, before the app is ready. */
export const RENDERER_SCHEME_PRIVILEGES = {
  scheme: RENDERER_SCHEME,
  // standard: a real origin (relative URLs, localStorage, IndexedDB); secure: getUserMedia and
  // the like as on https; supportFetchAPI: the decoder fetches its .wasm.
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

/** The same policy as the renderer's meta tag and the browser host's header. */
export const RENDERER_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob: mediastream:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.wav': 'audio/wav',
};

export type RendererFile = { status: 200; path: string; mimeType: string } | { status: 400 | 404 | 405; reason: string };

/**
 * The file under `rendererDir` a request for `url` is answered with, or why none is. Only this
 * scheme and host; no way out of the folder (`..`, encoded slashes or backslashes, NUL); `/` is
 * the index; a file of a type not listed is not served.
 */
export function resolveRendererFile(url: string, rendererDir: string, method = 'GET'): RendererFile {
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, reason: 'only GET and HEAD' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { status: 400, reason: 'not a URL' };
  }
  if (parsed.protocol !== `${RENDERER_SCHEME}:` || parsed.host !== RENDERER_HOST) return { status: 404, reason: 'another origin' };
  // The URL parser has already folded `.` and `..` segments; encoded ones (%2e%2e, %2f, %5c) are refused here.
  if (/%2f|%5c|%00/i.test(parsed.pathname)) return { status: 400, reason: 'encoded separator' };
  let pathname: string;
  try {
    pathname = decodeURIComponent(parsed.pathname);
  } catch {
    return { status: 400, reason: 'bad percent-encoding' };
  }
  const segments = pathname.split('/').filter(Boolean);
  if (segments.some((segment) => segment === '..' || segment === '.' || segment.includes('\\') || segment.includes('\0'))) {
    return { status: 400, reason: 'path outside the renderer' };
  }
  if (!segments.length) segments.push('index.html');
  const root = resolve(rendererDir);
  const path = resolve(join(root, ...segments));
  if (!path.startsWith(root + sep)) return { status: 400, reason: 'path outside the renderer' };
  const mimeType = MIME_TYPES[extname(path).toLowerCase()];
  if (!mimeType) return { status: 404, reason: 'not a file the kiosk serves' };
  return { status: 200, path, mimeType };
}

/**
 * The protocol handler's answer (`protocol.handle(RENDERER_SCHEME, …)`): the file with its MIME
 * type and the page's security headers, or a short error. A symbolic link inside the folder that
 * leads out of it is refused too.
 */
export async function answerRendererRequest(request: Request, rendererDir: string): Promise<Response> {
  const found = resolveRendererFile(request.url, rendererDir, request.method);
  const headers = { 'Content-Security-Policy': RENDERER_CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };
  if (found.status !== 200) return new Response(found.reason, { status: found.status, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  try {
    const [real, root] = await Promise.all([realpath(found.path), realpath(rendererDir)]);
    if (!real.startsWith(root + sep)) return new Response('path outside the renderer', { status: 400, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
    const body = await readFile(real);
    return new Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: { ...headers, 'Content-Type': found.mimeType, 'Content-Length': String(body.length) },
    });
  } catch {
    return new Response('not found', { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}

/**
 * Whether the kiosk page may load `url` at all: only its own files, and the data:, blob: and
 * camera URLs it makes itself. A kiosk has no internet, and its page has no business there: the
 * core (in the main process) does all talking to the server. Anything else is cancelled, so a
 * dependency that tries a CDN fails at once and visibly rather than hanging offline.
 */
export function rendererMayRequest(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'data:' || parsed.protocol === 'blob:' || parsed.protocol === 'devtools:') return true;
  return parsed.protocol === `${RENDERER_SCHEME}:` && parsed.host === RENDERER_HOST;
}
