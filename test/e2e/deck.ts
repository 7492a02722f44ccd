/** The built deck, read from the site's files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Card page paths in the order of the built topic list (`dir`: dist or dist-base), e.g. "/cards/gpu-util/". */
export function builtCardPaths(dir: string): string[] {
  const html = readFileSync(join(dir, 'topics', 'index.html'), 'utf8');
  return [...new Set([...html.matchAll(/<a [^>]*href="([^"]+)"[^>]*data-card=/g)].map((m) => m[1]!))];
}

/** The first, last and three evenly between of `items` (fewer when it is short): a sample across the deck. */
export function spreadOver<T>(items: readonly T[]): T[] {
  return [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => items[Math.round(f * (items.length - 1))]!))];
}
