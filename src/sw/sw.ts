/**
 * The service worker (built by vite-pwa's injectManifest from this file, which injects the precache list
 * ordered and de-duplicated by src/lib/precache-order.ts).
 * - Every page, asset, the question bank and the search index are precached: the whole site works offline.
 * - A page is stored once, as `…/index.html`; `/cards/x/` and `/cards/x` are both answered from it.
 * - Query strings (?seed=, ?q=, Pagefind's ?ts=) never change what a precached file holds.
 * - A navigation to a page that is not precached (a new URL while offline) gets the offline page.
 * - The first worker takes control at once; a later one waits until the learner taps "Reload" (the page sends
 *   SKIP_WAITING), so a page never changes under a learner mid-quiz.
 */
import { cleanupOutdatedCaches, precacheAndRoute, PrecacheFallbackPlugin } from 'workbox-precaching';
import type { PrecacheEntry } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';

// The worker's global, typed by what this file uses (the "webworker" lib would retype the DOM for the whole project).
declare const self: {
  __WB_MANIFEST: (PrecacheEntry | string)[];
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
};

/** The site's base path, e.g. "/" or "/saturate/" (the worker's scope). */
const base = new URL(self.registration.scope).pathname;

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST, {
  ignoreURLParametersMatching: [/.*/],
  directoryIndex: 'index.html',
  cleanURLs: false,
  // "/cards/x" (no trailing slash) is the page stored as "/cards/x/index.html".
  urlManipulation: ({ url }) =>
    url.pathname.endsWith('/') || /\.[a-z0-9]+$/i.test(url.pathname)
      ? []
      : [new URL(`${url.pathname}/index.html`, url.origin)],
});
registerRoute(
  ({ request, url }) => request.mode === 'navigate' && !url.pathname.startsWith('/api/'),
  new NetworkOnly({
    // (workbox's own plugin type fails exactOptionalPropertyTypes on its optional callbacks)
    plugins: [new PrecacheFallbackPlugin({ fallbackURL: `${base}offline/index.html` }) as WorkboxPlugin],
  }),
);
