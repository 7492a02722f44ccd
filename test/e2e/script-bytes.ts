/**
 * What a page's JavaScript weighs, as the budget tests (budgets.spec.ts, figures.spec.ts) and the figures
 * benchmark (bench/figures.ts) count it: every JavaScript response the page fetched (modules, their imports,
 * modulepreloads), once per URL, plus its inline scripts, each gzipped at zlib level 6 (what `gzip` and most
 * servers use). KB = 1024 bytes.
 */
import type { Page } from '@playwright/test';
import { gzipSync } from 'node:zlib';

export const KB = 1024;
export const gz = (b: Buffer | string) => gzipSync(b, { level: 6 }).length;

/** Starts recording the page's script responses. */
export function watchScripts(page: Page) {
  const sizes = new Map<string, number>();
  const pending: Promise<void>[] = [];
  page.on('response', (res) => {
    const type = res.headers()['content-type'] ?? '';
    if ((!/javascript/.test(type) && !/\.m?js(\?|$)/.test(res.url())) || sizes.has(res.url())) return;
    sizes.set(res.url(), 0);
    // A body the page no longer holds is fetched again: every script counts at its real size.
    const body = res.body().catch(() => page.request.get(res.url()).then((r) => r.body()));
    pending.push(body.then((b) => void sizes.set(res.url(), gz(b))).catch(() => undefined));
  });
  return {
    /** Gzip bytes by URL. */
    sizes,
    /** Every script so far, in bytes. */
    total: () => [...sizes.values()].reduce((a, n) => a + n, 0),
    /** "path size KB, …" for messages. */
    list: () => [...sizes].map(([u, n]) => `${new URL(u).pathname} ${(n / KB).toFixed(1)} KB`).join(', '),
    /**
     * Until the page has stopped fetching scripts: `networkidle` (it fires once per page, so after a scroll or a
     * tap it no longer waits), then until no new script has come for half a second, and every body is read.
     */
    settled: async () => {
      await page.waitForLoadState('networkidle');
      for (let n = -1; n !== sizes.size;) {
        n = sizes.size;
        await page.waitForTimeout(500);
      }
      await Promise.all(pending);
    },
  };
}

/** The gzip size of the page's inline scripts (classic and module), taken together. */
export async function inlineScriptsGzip(page: Page): Promise<number> {
  const text = await page.evaluate(() =>
    [...document.querySelectorAll('script:not([src])')]
      .filter((el) => !el.getAttribute('type') || /module|javascript/.test(el.getAttribute('type')!))
      .map((el) => el.textContent ?? '')
      .join('\n'),
  );
  return text ? gz(text) : 0;
}
