/** The built deck, read from the site's files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Card page paths in the order of the built topic list (`dir`: dist or dist-base), e.g. "/cards/gpu-util/". */
export function builtCardPaths(dir: string): string[] {
  const html = readFileSync(join(dir, 'topics', 'index.html'), 'utf8');
  return [...new Set([...html.matchAll(/<a [^>]*href="([^"]+)"[^>]*data-card=/g)].map((m) => m[1]!))];
}
