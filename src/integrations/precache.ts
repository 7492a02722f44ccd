/**
 * The service worker's precache list, as workbox-build hands it over after the build: each page once, under its
 * file name, in order of need (src/lib/precache-order.ts). The deck's order is read from the built topic list, so
 * the first cards a learner meets are stored first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orderPrecache, type PrecacheEntry } from '../lib/precache-order.ts';

/** A workbox-build `manifestTransforms` entry for the site built into `outDir`. */
export function precacheTransform(outDir: string) {
  return async (entries: PrecacheEntry[]) => {
    const topics = join(outDir, 'topics', 'index.html');
    const cardOrder = existsSync(topics)
      ? [...readFileSync(topics, 'utf8').matchAll(/data-card="([^"]+)"/g)].map((m) => m[1]!)
      : [];
    return { manifest: orderPrecache(entries, [...new Set(cardOrder)]), warnings: [] };
  };
}
