/**
 * Files a static host needs beside the pages, written after the build for its `site` and `base`
 * (so `SITE_URL` and `BASE_PATH` decide them):
 * - `sitemap.xml`: every page (the 404 and offline pages and the data files left out);
 * - `robots.txt` pointing to it, only when the site is at the host's root (crawlers read no other);
 * - `_headers` (Netlify, Cloudflare Pages): the service worker and the manifest revalidated on every
 *   load, hashed assets cached for a year, the manifest's MIME type. HTML keeps those hosts' default
 *   (`max-age=0, must-revalidate`): a catch-all rule would be merged into the asset rules' Cache-Control.
 */
import type { AstroIntegration } from 'astro';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const SKIP = /^(404|offline|500)\/?$|\.(json|xml|txt)$/;

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page URLs of a build: `site` + `base` + each page's path (Astro gives them without the base). */
export function sitemapUrls(site: string, base: string, pathnames: readonly string[]): string[] {
  const root = new URL(base, site);
  const paths = pathnames.map((p) => p.replace(/^\/+/, '')).filter((p) => !SKIP.test(p));
  return [...new Set(paths)].sort().map((p) => new URL(p === '' || p.endsWith('/') ? p : `${p}/`, root).href);
}

/** One header rule of a `_headers` file: a path pattern (`*` matches anything) and its headers. */
export interface HeaderRule {
  path: string;
  headers: Record<string, string>;
}

/** Cache-Control for files whose URL changes when their content does. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control for files that must be revalidated on every load. */
export const REVALIDATE = 'public, max-age=0, must-revalidate';

/** The host header rules for a site under `base`. */
export function headerRules(base: string): HeaderRule[] {
  return [
    // The browser checks for a new worker on each navigation; a cached sw.js would hide a new deploy.
    { path: `${base}sw.js`, headers: { 'Cache-Control': REVALIDATE } },
    {
      path: `${base}manifest.webmanifest`,
      headers: { 'Content-Type': 'application/manifest+json', 'Cache-Control': REVALIDATE },
    },
    // Astro names these by content hash.
    { path: `${base}_astro/*`, headers: { 'Cache-Control': IMMUTABLE } },
  ];
}

/** The text of a `_headers` file (Netlify and Cloudflare Pages share the format). */
export function headersFile(rules: readonly HeaderRule[]): string {
  return `${rules.map((r) => [r.path, ...Object.entries(r.headers).map(([k, v]) => `  ${k}: ${v}`)].join('\n')).join('\n')}\n`;
}

/** The integration: runs after the build, beside the search index. */
export default function staticHost(): AstroIntegration {
  let site = '';
  let base = '/';
  return {
    name: 'saturate-static-host',
    hooks: {
      'astro:config:done': ({ config }) => {
        site = config.site ?? '';
        base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      },
      'astro:build:done': async ({ dir, pages, logger }) => {
        const out = fileURLToPath(dir);
        await writeFile(join(out, '_headers'), headersFile(headerRules(base)));
        if (!site) return logger.warn('no `site` set: no sitemap written (set SITE_URL).');
        const urls = sitemapUrls(
          site,
          base,
          pages.map((p) => p.pathname),
        );
        const xml = [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
          ...urls.map((u) => `  <url><loc>${escapeXml(u)}</loc></url>`),
          '</urlset>',
          '',
        ].join('\n');
        const sitemapUrl = new URL('sitemap.xml', new URL(base, site)).href;
        await writeFile(join(out, 'sitemap.xml'), xml);
        if (base === '/')
          await writeFile(join(out, 'robots.txt'), `User-agent: *\nAllow: /\n\nSitemap: ${sitemapUrl}\n`);
        logger.info(`sitemap.xml: ${urls.length} pages under ${new URL(base, site).href}; _headers for ${base}`);
      },
    },
  };
}
