// The responder app's service worker: the app opens offline to its last state. The page and
// its files come from the network when it answers (so a new build reaches the phone) and from
// the cache when it does not. The responder API (/v1/responder) is never cached: the app's own
// outbox (IndexedDB) keeps what waits to be sent.
const CACHE = 'tsaro-responder-v1';
const SHELL = ['/responder/', '/responder/manifest.webmanifest', '/responder/icon.svg'];

// The page's own scripts and styles (hashed names, read from the page) are kept at install, so
// the app opens offline even if the network drops right after the first visit.
async function keepShell() {
  const cache = await caches.open(CACHE);
  await cache.addAll(SHELL);
  const page = await (await cache.match('/responder/')).text();
  const assets = [...page.matchAll(/\/responder\/assets\/[^"']+/g)].map((match) => match[0]);
  await cache.addAll([...new Set(assets)]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(keepShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/responder/')) return;
  const key = event.request.mode === 'navigate' ? '/responder/' : event.request;
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(() => caches.match(key).then((cached) => cached || Response.error())),
  );
});
