/**
 * The service worker (built by vite-pwa's injectManifest from this file, which injects the precache list
 * ordered and de-duplicated by src/lib/precache-order.ts).
 * - Every page, asset, the question bank and the search index are precached: the whole site works offline.
 * - The precache installs in the listed order (order of need), up to six requests at a time. Workbox's own install
 *   fetches one file at a time, so on a phone's 150 ms round trip 360 files took over a minute of round trips alone.
 * - A page is stored once, as `…/index.html`; `/cards/x/` and `/cards/x` are both answered from it.
 * - Query strings (?seed=, ?q=, Pagefind's ?ts=) never change what a precached file holds.
 * - A navigation to a page that is not precached (a new URL while offline) gets the offline page.
 * - The first worker takes control at once; a later one waits until the learner taps "Reload" (the page sends
 *   SKIP_WAITING), so a page never changes under a learner mid-quiz.
 */
import { cleanupOutdatedCaches, PrecacheController, PrecacheFallbackPlugin, PrecacheRoute } from 'workbox-precaching';
import type { PrecacheEntry } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { inOrder } from './in-order.ts';

/** Requests in flight while installing: what a browser opens to one HTTP/1.1 host. */
const INSTALL_LANES = 6;

// The worker's global, typed by what this file uses (the "webworker" lib would retype the DOM for the whole project).
declare const self: {
  __WB_MANIFEST: (PrecacheEntry | string)[];
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
};
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}

/** The site's base path, e.g. "/" or "/saturate/" (the worker's scope). */
const base = new URL(self.registration.scope).pathname;

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
clientsClaim();
cleanupOutdatedCaches();
const precache = new PrecacheController();
precache.addToCacheList(self.__WB_MANIFEST);

/**
 * Stores every listed file that is not stored yet under its cache key (an unchanged file is kept from the last
 * version); a failed or non-OK response fails the install, as in Workbox's own install. Each response is stored as
 * a fresh copy of its body and headers, so a redirected one is kept as a plain answer a navigation may use (what
 * Workbox's copyRedirectedCacheableResponsesPlugin does). Measured: Chromium runs three or four of a worker's requests
 * at once on one host whatever the lanes (bench/offline-ready.ts; Cache.put itself took 2–7 ms a file).
 */
async function install(): Promise<void> {
  const cache = await caches.open(precache.strategy.cacheName);
  await inOrder([...precache.getURLsToCacheKeys()], INSTALL_LANES, async ([url, cacheKey]) => {
    if (await cache.match(cacheKey)) return;
    // A revisioned entry (a page) must not come from the HTTP cache; a hashed file may (Workbox's rule).
    const response = await fetch(url, { cache: cacheKey === url ? 'default' : 'reload', credentials: 'same-origin' });
    if (response.status !== 200) throw new Error(`precache: ${url} answered ${response.status}`);
    const body = await response.blob();
    const { status, statusText, headers } = response;
    await cache.put(cacheKey, new Response(body, { status, statusText, headers }));
  });
}
self.addEventListener('install', (event) => event.waitUntil(install()));
self.addEventListener('activate', (event) => void precache.activate(event)); // drops files no longer listed

registerRoute(
  new PrecacheRoute(precache, {
    ignoreURLParametersMatching: [/.*/],
    directoryIndex: 'index.html',
    cleanURLs: false,
    // "/cards/x" (no trailing slash) is the page stored as "/cards/x/index.html".
    urlManipulation: ({ url }) =>
      url.pathname.endsWith('/') || /\.[a-z0-9]+$/i.test(url.pathname)
        ? []
        : [new URL(`${url.pathname}/index.html`, url.origin)],
  }),
);
registerRoute(
  ({ request, url }) => request.mode === 'navigate' && !url.pathname.startsWith('/api/'),
  new NetworkOnly({
    // (workbox's own plugin type fails exactOptionalPropertyTypes on its optional callbacks)
    plugins: [
      new PrecacheFallbackPlugin({
        fallbackURL: `${base}offline/index.html`,
        precacheController: precache,
      }) as WorkboxPlugin,
    ],
  }),
);
