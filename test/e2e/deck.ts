/** The built deck, read from the site's files, so sweeps over every card can be split into short tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Card page paths in the order of the built topic list (`dir`: dist or dist-base), e.g. "/cards/gpu-util/". */
export function builtCardPaths(dir: string): string[] {
  const html = readFileSync(join(dir, 'topics', 'index.html'), 'utf8');
  return [...new Set([...html.matchAll(/<a [^>]*href="([^"]+)"[^>]*data-card=/g)].map((m) => m[1]!))];
}

/** `items` in groups of `size`, so a sweep over the deck is several short tests rather than one long one. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
